#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Reading processes' executable mappings, the text of /proc/PID/maps against the PROCMAP_QUERY
# ioctl (bench/maps_read.c): first both ways compared for every process, then ROUNDS reads of
# every process each way, interleaved, RUNS times; prints the CPU seconds of each run and the
# medians. Run as root to read every process.
#   bench/maps_read.sh [ROUNDS [RUNS]]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${1:-20}
RUNS=${2:-5}
OUT=${TMPDIR:-/tmp}/cpuprof-maps-read
mkdir -p "$OUT"
BIN=$OUT/maps_read
gcc -O2 -g -std=gnu11 -Wall -Wextra -I"$HERE/../src" -o "$BIN" "$HERE/maps_read.c" \
	"$HERE/../src/proc/proc_maps.c" "$HERE/../src/util/textline.c"
"$BIN" compare | tail -n 1
t=""
q=""
i=0
while [ "$i" -lt "$RUNS" ]; do
	t="$t $("$BIN" text "$ROUNDS" | sed -n 's/^cpu_s //p')"
	q="$q $("$BIN" query "$ROUNDS" | sed -n 's/^cpu_s //p')"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # the list is split on purpose
med() { printf '%s\n' $1 | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
echo "text  cpu_s:$t median $(med "$t")"
echo "query cpu_s:$q median $(med "$q")"
echo "maps per round: $("$BIN" text 1 | sed -n 's/^maps //p') text, $("$BIN" query 1 | sed -n 's/^maps //p') query"
