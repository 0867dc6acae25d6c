#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages of one group (as root):
#   install-deps.sh build   what compiling cpuprof needs (make, make demo, make deb)
#   install-deps.sh test    that and what the tests need (make check, make deps)
#   install-deps.sh PKG...  those packages (scripts/install-bench-deps.sh uses that)
# With --check first, install nothing: name the missing packages of the group and fail (plain
# make runs `--check build`, so it names compile-time packages only).
# Idempotent: prints nothing and touches nothing when all packages are present.
set -eu

# One line per package: the package, then why it is needed.
BUILD_PKGS='
make                 runs the build
gcc                  compiles the user-space C code
libc6-dev            C library headers (gcc only recommends them)
clang                compiles the BPF programs (bpf/*.bpf.c) to BPF objects
llvm                 llvm-strip drops the DWARF from the BPF objects
bpftool              writes vmlinux.h from the kernel BTF and the BPF skeletons
libbpf-dev           loads the BPF programs (CO-RE relocation, maps, ring buffer)
libelf-dev           reads ELF symbol tables and sections
libdw-dev            reads DWARF: inlined frames, lines, CFI
libdebuginfod-dev    the debuginfod client header (the library is opened at run time)
libjansson-dev       reads and writes speedscope JSON
zlib1g-dev           gzip of pprof files
libprotobuf-c-dev    the pprof reader decoder runtime
protobuf-c-compiler  protoc-c generates that decoder from src/input/pprof_profile.proto
libiberty-dev        the C++ and Rust demangler
liblzma-dev          MiniDebugInfo (.gnu_debugdata is xz-compressed)
'

TEST_PKGS='
git                  make check fails when the tests changed the work tree (git status)
g++                  the C++ fixtures (inlined frames, demangling)
binutils             objcopy and strip build the debug-link and MiniDebugInfo fixtures
xz-utils             compresses the MiniDebugInfo fixture
libcmocka-dev        the unit tests
pkg-config           make print-toolchain
procps               ps and pgrep in the end-to-end tests
util-linux           setpriv, unshare and nsenter in the end-to-end tests
groff-base           the man page checks render man/cpuprof.1
clang-format         make format-check
cppcheck             make lint
lld                  the call tree linked with lld (t_layout)
mold                 the call tree linked with mold (t_layout)
golang-go            Go binaries and go tool pprof profiles the readers are checked against
chromium             the HTML and SVG flame graphs are opened headless
libxml2-utils        xmllint checks that the SVG flame graphs are well-formed XML (t_svg)
nodejs               JIT frames of node (t_node_jit) and the JSON schema checks
npm                  installs the pinned speedscope schema and ajv (skipped when npm exists)
openjdk-17-jdk-headless  JIT frames of the JVM (t_java)
python3.11-minimal   Debian static python3.11 (t_python)
gdb                  reads the DWARF of CPython builds the Python offset table is checked against
ruby                 Debian Ruby 3.1 (libruby-3.1.so, stripped) walked by the Ruby unwinder
ruby3.1-dev          rb_mjit_min_header, the layout the Ruby offset table is checked against
php8.2-cli           Debian PHP 8.2 (NTS, stripped) walked by the PHP unwinder (t_php)
php8.2-dev           the Zend headers the PHP offset table is checked against
libperl5.36          perl.h, the layout the Perl offset table is checked against (perl-base runs it)
libc6-dbg            libc local symbols (__libc_start_call_main) the e2e stacks are checked against
debuginfod           a local debuginfod server (t_debuginfod)
curl                 asks that server (t_debuginfod)
'

names() { printf '%s\n' "$1" | awk 'NF { print $1 }'; }

check_only=0
if [ "${1:-}" = --check ]; then
	check_only=1
	shift
fi
group=${1:-test}
case $group in
build) PKGS=$(names "$BUILD_PKGS") ;;
test) PKGS="$(names "$BUILD_PKGS") $(names "$TEST_PKGS")" ;;
*) PKGS="$*" ;;
esac

missing=""
for p in $PKGS; do
	# a package whose command another package already provides: NodeSource's nodejs carries
	# its own npm and conflicts with Debian's npm package
	case $p in
	npm) command -v npm >/dev/null 2>&1 && continue ;;
	esac
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$check_only" -eq 1 ]; then
	echo "cpuprof: missing packages:$missing; run 'make deps-build' as root (or install them" \
		"with apt-get)" >&2
	exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "cpuprof: missing packages:$missing; run 'sudo $0 $group' or install them with apt-get" >&2
	exit 1
fi

echo "cpuprof: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists; refresh them only when an install fails for that reason.
if ! apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
