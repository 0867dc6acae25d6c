#!/bin/bash
# Thousands of distinct stacks in one set of maps (fix_paths: 46,656 call paths), drained once
# at the end: copying and clearing that many keys loses nothing and counts nothing twice, and
# the recording is not stopped early (the key buffer that grows while the maps are cleared once
# handed the kernel freed memory: "Bad address", and keys counted again from a set not cleared).
. "$(dirname "$0")/lib.sh"
require_bpf

for unwind in fp dwarf; do
	out=$TMP/paths-$unwind.folded
	expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -v --unwind "$unwind" \
		--drain-interval 60s -F 999 -o "$out" -- "$FIX/fix_paths" 3
	! grep -q 'stopped early' "$TMP/err" || fail "--unwind $unwind: $(grep 'stopped early' "$TMP/err")"
	! grep -q 'do not add up' "$TMP/err" || fail "--unwind $unwind: $(grep 'do not add up' "$TMP/err")"
	counted=$(sed -n 's/.*: \([0-9]*\) samples counted in the kernel.*/\1/p' "$TMP/err")
	all=$(total "$out")
	[ -n "$counted" ] && [ "$counted" -eq "$all" ] ||
		fail "--unwind $unwind: the kernel counted ${counted:-?} samples, the profile has $all"
	cpu=$(fixture_cpu "$TMP/err" fix_paths)
	expect_samples "$all" "$cpu" 999 "--unwind $unwind"
	# the leaf under its 6 path functions: most samples have a stack of their own
	stacks=$(grep -c ';step;leaf ' "$out")
	note "--unwind $unwind: $all samples ($counted counted), $stacks distinct leaf stacks"
	[ "$stacks" -ge $((all / 2)) ] || fail "--unwind $unwind: only $stacks distinct leaf stacks in $all samples"
done
exit 0
