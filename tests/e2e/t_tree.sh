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

# 3 s at 499 Hz is ~1500 samples; a quarter of them gone would mean lost samples
[ "$fixture" -ge 1100 ] || fail "only $fixture fix_tree samples in 3 s at 499 Hz"
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
