#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package that building and testing cpuprof needs, or, given arguments,
# those packages (scripts/install-bench-deps.sh uses that). With --check, install nothing:
# name the missing packages and fail (plain make runs that).
# Idempotent: prints nothing and touches nothing when all packages are present.
set -eu

# protobuf-c: the pprof reader's decoder, generated at build time from src/input/pprof_profile.proto;
# golang-go: Go's runtime/pprof profiles and go tool pprof, which the reader is checked against;
# chromium: the HTML flame graphs are opened headless in the end-to-end tests.
# libc6-dbg: libc's local symbols (__libc_start_call_main, __restore_rt) that the stacks of the
# end-to-end tests are checked against; python3.11-minimal: Debian's static python3.11 test;
# gdb: reads the DWARF of pyenv's CPython builds that the Python offset table is checked against;
# nodejs, openjdk-17-jdk-headless: JIT code walked in mixed mode (t_node_jit, t_java);
# ruby: Debian's Ruby 3.1 (libruby-3.1.so, stripped) whose frames the Ruby walker is tested on;
# ruby3.1-dev: its rb_mjit_min_header, the struct layout the Ruby offset table is checked
# against (Debian has no libruby3.1-dbgsym in the configured sources).
PKGS="make gcc clang llvm libbpf-dev bpftool libelf-dev libdw-dev libjansson-dev
zlib1g-dev libcmocka-dev pkg-config binutils groff-base procps util-linux clang-format cppcheck
golang-go lld mold protobuf-c-compiler libprotobuf-c-dev chromium
libiberty-dev liblzma-dev xz-utils g++ libdebuginfod-dev debuginfod curl
python3.11-minimal libc6-dbg gdb nodejs openjdk-17-jdk-headless ruby ruby3.1-dev"

check_only=0
if [ "${1:-}" = --check ]; then
	check_only=1
	shift
fi
[ $# -gt 0 ] && PKGS="$*"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$check_only" -eq 1 ]; then
	echo "cpuprof: missing packages:$missing; run 'make deps' as root (or install them with apt-get)" >&2
	exit 1
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "cpuprof: missing packages:$missing; run 'sudo $0' or install them with apt-get" >&2
	exit 1
fi

echo "cpuprof: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists; refresh them only when an install fails for that reason.
if ! apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1; then
	apt-get update -q >/dev/null
	apt-get install -y -q --no-install-recommends $missing >/dev/null
fi
