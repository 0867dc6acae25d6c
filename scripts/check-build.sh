#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The build does not drift: a dry run of make that pretends one header of the BPF side is new
# (make -W) must rebuild the BPF object and its skeleton, for every header under bpf/.
# Usage: scripts/check-build.sh MAKE BINARY GENDIR
set -u
MAKE=$1 BIN=$2 GEN=$3
cd "$(dirname "$0")/.." || exit 1
status=0
for h in bpf/*.h; do
	out=$($MAKE --no-print-directory -n -W "$h" "$BIN" 2>&1)
	for want in "-target bpf" "gen skeleton" "$GEN/profile.skel.h"; do
		if ! printf '%s\n' "$out" | grep -q -e "$want"; then
			echo "check-build: a change to $h would not rebuild ($want missing from make -n)" >&2
			status=1
		fi
	done
done
exit $status
