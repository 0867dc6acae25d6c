#!/bin/bash
# --comm selects processes by name, including ones that start after recording began; a name
# that matches nothing is said.
. "$(dirname "$0")/lib.sh"
require_bpf

bg "$FIX/fix_syscall" 600 # another name, busy for the whole recording
start_recording --comm '^fix_tree$' -o "$TMP/comm.folded"
"$FIX/fix_tree" 1.5 2>"$TMP/err"
kill -INT "$REC" # after fix_tree exited: all its CPU time was sampled
wait "$REC" || fail "record --comm failed: $(cat "$TMP/rec.err")"
check_folded_grammar "$TMP/comm.folded"
n=$(count "$TMP/comm.folded" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf')
others=$(grep -vc '^fix_tree;' "$TMP/comm.folded")
note "--comm: $n fix_tree samples, $others other lines"
expect_samples "$n" "$(fixture_cpu "$TMP/err" fix_tree)" 99 "--comm fix_tree"
[ "$n" -ge 1 ] || fail "no samples of fix_tree"
[ "$others" -eq 0 ] || fail "other names in a --comm profile: $(grep -v '^fix_tree;' "$TMP/comm.folded" | head -2)"
grep -q 'no process named like' "$TMP/rec.err" && fail "a --comm that matched warned: $(cat "$TMP/rec.err")"

"$CPUPROF" record --comm '^no-such-program$' -d 300ms -o "$TMP/none.folded" 2>"$TMP/none.err" ||
	fail "record --comm (nothing) failed: $(cat "$TMP/none.err")"
grep -q "no process named like --comm '^no-such-program\$' ran" "$TMP/none.err" ||
	fail "no warning for a --comm that matched nothing: $(cat "$TMP/none.err")"
exit 0
