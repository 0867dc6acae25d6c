#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Profile cpuprof symbolize with cpuprof itself (root): record one run on OBJECT with the
# addresses of ADDRS (repeated REPEAT times, so that the run lasts long enough to sample),
# keep the folded profile as OUT.folded and print its top functions, self and inclusive.
# usage: profile_symbolize.sh CPUPROF OBJECT ADDRS OUT [REPEAT] [-- SYMBOLIZE_OPTIONS...]
set -eu
CPUPROF=$(realpath "$1")
OBJ=$2 ADDRS=$3 OUT=$4
REPEAT=${5:-1}
shift 4
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
input=$(mktemp)
trap 'rm -f "$input"' EXIT
i=0
while [ "$i" -lt "$REPEAT" ]; do
	cat "$ADDRS" >> "$input"
	i=$((i + 1))
done
"$CPUPROF" record -q -F 999 -o "$OUT.folded" -- \
	sh -c 'exec "$@" < "$0" > /dev/null' "$input" "$CPUPROF" symbolize -e "$OBJ" "$@"
python3 "$(dirname "$0")/folded_top.py" "$OUT.folded" 15
