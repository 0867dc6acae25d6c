#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-readers: peak RSS and time of cpuprof report on big generated profiles
# (bench/gen_readers.py): a ~100 MB folded file of many distinct long stacks (20 to 60 frames
# of 20 000 names), the same with every frame distinct (the profile's frame table is then most
# of the memory), a ~20 MB pprof and a ~30 MB speedscope JSON, each plain and gzipped. Prints
# the peak RSS (/usr/bin/time) and its ratio to the inflated size. Figures, never pass/fail.
# usage: readers.sh CPUPROF OUT
set -eu
CPUPROF=$(realpath "$1")
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
gen() {
	[ -s "$OUT/$3" ] || python3 "$HERE/gen_readers.py" "$1" "$2" "$OUT/$3"
	[ -s "$OUT/$3.gz" ] || gzip -k -1 "$OUT/$3"
}
gen folded 100 readers.folded
gen unique 100 readers-unique.folded
gen pprof 20 readers.pb
gen json 30 readers.json
printf '%-28s %10s %10s %12s %7s %8s\n' file size inflated "peak RSS" ratio seconds
for f in readers.folded readers-unique.folded readers.pb readers.json; do
	for g in "" .gz; do
		size=$(stat -c %s "$OUT/$f$g")
		inflated=$(stat -c %s "$OUT/$f")
		/usr/bin/time -f '%M %e' -o "$OUT/time" "$CPUPROF" report -n 5 "$OUT/$f$g" >/dev/null
		read -r kib secs <"$OUT/time"
		printf '%-28s %9dM %9dM %11dM %6s× %8s\n' "$f$g" $((size >> 20)) $((inflated >> 20)) \
			$((kib >> 10)) "$(echo "scale=1; $kib * 1024 / $inflated" | bc)" "$secs"
	done
done
