#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unwind-table build time on the largest ELF objects of this machine (and libc, python3.11):
# rows, bytes and the builder's own time (its monotonic clock, without printing the rows),
# the first run (page cache as it was) and the best of REPS more. Prints; asserts nothing.
# usage: unwind_table.sh CPUPROF [OBJECT...]
set -eu
CPUPROF=$1
shift
REPS=${BENCH_REPS:-5}
TOP=${BENCH_TOP:-4}

if [ $# -eq 0 ]; then
	# the biggest shared objects and executables (ELF only), then two familiar ones
	set -- $(find /usr/lib/x86_64-linux-gnu /usr/bin /usr/lib/llvm-*/bin -maxdepth 1 \
		-type f -size +1M -printf '%s %p\n' 2>/dev/null | sort -rn |
		while read -r _ f; do
			[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] && echo "$f"
		done | head -n "$TOP") /lib/x86_64-linux-gnu/libc.so.6
	[ -e /usr/bin/python3.11 ] && set -- "$@" /usr/bin/python3.11
fi

printf '%-48s %10s %10s %9s %10s %10s\n' object MiB rows 'table MB' 'first ms' 'best ms'
for f in "$@"; do
	ms() { "$CPUPROF" unwind-table "$f" | tail -n 1 | sed -n 's/.*built in \([0-9.]*\) ms.*/\1/p'; }
	first=$(ms)
	best=$first
	i=0
	while [ "$i" -lt "$REPS" ]; do
		t=$(ms)
		best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (a + 0 < b + 0) ? a : b }')
		i=$((i + 1))
	done
	sum=$("$CPUPROF" unwind-table "$f" | tail -n 1)
	rows=$(echo "$sum" | sed -n 's/.*: \([0-9]*\) rows, \([0-9]*\) bytes.*/\1/p')
	bytes=$(echo "$sum" | sed -n 's/.*: \([0-9]*\) rows, \([0-9]*\) bytes.*/\2/p')
	awk -v f="$f" -v size="$(stat -Lc %s "$f")" -v rows="$rows" -v bytes="$bytes" \
		-v first="$first" -v best="$best" 'BEGIN {
		printf "%-48s %10.1f %10d %9.1f %10.2f %10.2f\n", f, size / 1048576, rows,
			bytes / 1e6, first, best }'
done
