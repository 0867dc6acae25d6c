#!/bin/bash
# --pid on a running process (stdout by default), and nothing of other processes.
. "$(dirname "$0")/lib.sh"
require_bpf

bg "$FIX/fix_tree" 600 # until killed: the window is sampling's
target=$!
bg "$FIX/fix_syscall" 600
sleep 0.3
record_window "$target" 2 -p "$target" >"$TMP/pid.folded"
check_folded_grammar "$TMP/pid.folded"
n=$(count "$TMP/pid.folded" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf')
others=$(grep -vc '^fix_tree;' "$TMP/pid.folded")
note "-p $target: $n fix_tree samples in 2 s at 99 Hz, $others lines of other processes"
expect_samples "$n" "$WINDOW_CPU" 99 "-p fix_tree"
[ "$others" -eq 0 ] || fail "other processes in a --pid profile: $(grep -v '^fix_tree;' "$TMP/pid.folded" | head -2)"
grep -q 'samples from 1 process in' "$TMP/rec.err" || fail "summary missing on stderr: $(cat "$TMP/rec.err")"
exit 0
