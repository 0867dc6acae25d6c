#!/bin/bash
# --pid on a running process (stdout by default), and nothing of other processes.
. "$(dirname "$0")/lib.sh"
require_bpf

bg "$FIX/fix_tree" 8
target=$!
bg "$FIX/fix_syscall" 8
sleep 0.3
"$CPUPROF" record -p "$target" -d 2s >"$TMP/pid.folded" 2>"$TMP/err" || fail "record -p failed: $(cat "$TMP/err")"
check_folded_grammar "$TMP/pid.folded"
n=$(count "$TMP/pid.folded" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf')
others=$(grep -vc '^fix_tree;' "$TMP/pid.folded")
note "-p $target: $n fix_tree samples in 2 s at 99 Hz, $others lines of other processes"
# at most 198; the bound only proves sampling ran (the machine may be busy)
[ "$n" -ge 40 ] || fail "only $n samples of the target"
[ "$others" -eq 0 ] || fail "other processes in a --pid profile: $(grep -v '^fix_tree;' "$TMP/pid.folded" | head -2)"
grep -q 'samples from 1 process in' "$TMP/err" || fail "summary missing on stderr: $(cat "$TMP/err")"
exit 0
