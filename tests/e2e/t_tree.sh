#!/bin/bash
# -- COMMAND on the known call tree: exact caller -> callee chains, the 3:1 branch shares, names.
. "$(dirname "$0")/lib.sh"
require_bpf

out=$TMP/tree.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- "$FIX/fix_tree" 3
check_folded_grammar "$out"

heavy=$(count "$out" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_heavy;cp_fix_leaf( |;)')
light=$(count "$out" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_light;cp_fix_leaf( |;)')
all=$(total "$out")
fixture=$(count "$out" '^fix_tree;')
pct=$(share "$heavy" "$light")
note "samples $all, fix_tree $fixture, heavy $heavy, light $light, heavy share ${pct}% (expected 75%)"

# every 1/499 s of CPU time the fixture got is one sample (it prints its CPU time)
cpu=$(sed -n 's/^fix_tree: cpu \([0-9.]*\) s$/\1/p' "$TMP/err")
[ -n "$cpu" ] || fail "the fixture did not report its CPU time: $(cat "$TMP/err")"
want=$(awk -v c="$cpu" 'BEGIN { printf "%d", c * 499 }')
note "fixture CPU time ${cpu} s: $want samples expected at 499 Hz, $fixture recorded"
[ $((100 * fixture)) -ge $((90 * want)) ] && [ $((100 * fixture)) -le $((110 * want)) ] ||
	fail "$fixture fix_tree samples for $cpu s of CPU at 499 Hz (expected $want +-10%)"
# nearly all samples are in the loop: at least 95% carry the full chain
[ $((100 * (heavy + light))) -ge $((95 * fixture)) ] ||
	fail "only $((heavy + light)) of $fixture samples have main;cp_fix_run;cp_fix_*;cp_fix_leaf"
[ "$pct" -ge 68 ] && [ "$pct" -le 82 ] || fail "heavy branch has ${pct}%, expected 75% (68..82)"
# the wrong order must never appear
grep -qE 'cp_fix_leaf;cp_fix_(heavy|light)|cp_fix_heavy;cp_fix_run' "$out" &&
	fail "callee before caller: $(grep -E 'cp_fix_leaf;cp_fix_' "$out" | head -1)"
# the fixture's own code is always named (the dynamic loader's start-up may not be)
grep -qE '^fix_tree;.*(fix_tree\+0x|\[unknown\].*;cp_fix_)' "$out" &&
	fail "unnamed fixture frame: $(grep -E 'fix_tree\+0x|\[unknown\].*;cp_fix_' "$out" | head -1)"
exit 0
