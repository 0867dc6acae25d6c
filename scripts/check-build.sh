#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The build does not drift: a dry run of make that pretends one header of the BPF side is new
# (make -W) must rebuild each BPF object including it (directly or through another header of
# bpf/) and that object's skeleton, for every header under bpf/; the profiler's own program
# through the binary. A header no BPF program includes is an error too. And plain make of
# another configuration (SANITIZE=1, DEBUG=1) builds its binary when the ./cpuprof link of this
# one exists (under .SECONDARY a missing intermediate binary was never made): a dry run with a
# build directory that does not exist must link it.
# Usage: scripts/check-build.sh MAKE BINARY GENDIR
set -u
MAKE=$1 BIN=$2 GEN=$3
cd "$(dirname "$0")/.." || exit 1
status=0

includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

for h in bpf/*.h; do
	b=${h#bpf/}
	found=0
	for c in bpf/*.bpf.c; do
		prog=${c#bpf/}
		prog=${prog%.bpf.c}
		uses=0
		for i in $(includes "$c"); do
			[ "$i" = "$b" ] && uses=1
			[ -f "bpf/$i" ] && includes "bpf/$i" | grep -qx -e "$b" && uses=1
		done
		[ "$uses" -eq 1 ] || continue
		found=1
		target=$GEN/$prog.skel.h
		[ "$prog" = profile ] && target=$BIN
		out=$($MAKE --no-print-directory -n -W "$h" "$target" 2>&1)
		for want in "-target bpf" "gen skeleton" "$GEN/$prog.skel.h"; do
			if ! printf '%s\n' "$out" | grep -q -e "$want"; then
				echo "check-build: a change to $h would not rebuild $prog ($want missing from make -n)" >&2
				status=1
			fi
		done
	done
	if [ "$found" -eq 0 ]; then
		echo "check-build: $h is included by no BPF program" >&2
		status=1
	fi
done
missing=build/.check-build-missing
if [ ! -e "$missing" ]; then
	for conf in SANITIZE=1 DEBUG=1; do
		out=$($MAKE --no-print-directory -n "$conf" O="$missing" all 2>&1)
		if ! printf '%s\n' "$out" | grep -q -e "-o $missing/cpuprof "; then
			echo "check-build: make $conf would not build its binary ($missing/cpuprof not linked by make -n)" >&2
			status=1
		fi
	done
fi
exit $status
