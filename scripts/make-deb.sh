#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make deb: a binary package of the built cpuprof, with dpkg-deb (no debhelper).
# Usage: make-deb.sh BINARY OUTDIR. The package holds what make install puts under /usr (the
# binary without its debug sections, the man page, the bash completion); its Depends are the
# packages of the shared libraries the binary is linked with, each at least at the version it
# was built against. Writes OUTDIR/cpuprof_VERSION_ARCH.deb and prints its path.
set -eu
cd "$(dirname "$0")/.."
bin=$1
outdir=$2

version=$(sed -n 's/^#define CPUPROF_VERSION[[:space:]]*"\(.*\)"$/\1/p' src/session/options.h)
arch=$(dpkg --print-architecture)
[ -n "$version" ] || { echo "make-deb: no CPUPROF_VERSION in src/session/options.h" >&2; exit 1; }

stage=$outdir/deb/root
rm -rf "$stage"
mkdir -p "$stage/DEBIAN"
make --no-print-directory -s install DESTDIR="$PWD/$stage" PREFIX=/usr >/dev/null
strip --strip-debug "$stage/usr/bin/cpuprof"
gzip -9n "$stage/usr/share/man/man1/cpuprof.1"

# the package of each library the binary needs (the runtime package, never its -dev)
deps=""
for lib in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
	pkg=$(dpkg-query -S "*/$lib" 2>/dev/null | sed -n '1s/:.*//p')
	if [ -z "$pkg" ]; then
		echo "make-deb: no installed package holds $lib" >&2
		exit 1
	fi
	ver=$(dpkg-query -W -f='${Version}' "$pkg")
	case ",$deps," in
	*", $pkg (>="*) ;;
	*) deps="$deps, $pkg (>= $ver)" ;;
	esac
done
deps=${deps#, }

size=$(du -sk "$stage/usr" | cut -f1)
cat >"$stage/DEBIAN/control" <<CONTROL
Package: cpuprof
Version: $version
Architecture: $arch
Maintainer: cpuprof developers <cpuprof@invalid>
Installed-Size: $size
Depends: $deps
Recommends: libdebuginfod1
Section: devel
Priority: optional
Description: one-shot CPU profiler for Linux (eBPF)
 Samples every CPU with an eBPF program, names the stacks locally (DWARF,
 ELF symbols, kallsyms, perf maps, CPython and Ruby frames) and writes pprof,
 speedscope JSON, folded stacks and HTML or SVG flame graphs. Needs a kernel
 with BTF (CONFIG_DEBUG_INFO_BTF) and root or CAP_BPF and CAP_PERFMON.
CONTROL

deb=$outdir/cpuprof_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
