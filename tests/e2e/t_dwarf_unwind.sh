#!/bin/bash
# --unwind dwarf on code without frame pointers: the known call tree from _start to the leaf,
# and a 200-deep recursion; --unwind fp on the same binary must not get the chain (so the
# check discriminates). A process that exists when recording starts has its tables loaded
# before sampling; a -- COMMAND's executable, loader and C library tables are built before it
# runs, and its mapping table is published at its first sample (the default, --unwind auto).
. "$(dirname "$0")/lib.sh"
require_bpf

start='_start;__libc_start_main;__libc_start_call_main;main'
tree="^fix_tree_nofp;$start;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf( |;)"

# record_pid OUT PID ARGS...: record -p PID (busy until killed) for 2 s of wall time; the CPU
# time PID got while sampling ran in CPU (the recording ends with SIGINT, after reading it)
record_pid() {
	local out=$1 pid=$2 c0
	shift 2
	start_recording "$@" -o "$out" -p "$pid"
	c0=$(cpu_now "$pid") || exit 1
	sleep 2
	CPU=$(cpu_since "$c0" "$(cpu_now "$pid")")
	kill -INT "$REC"
	wait "$REC" || fail "record -p $pid: $(cat "$TMP/rec.err")"
	kill "$pid"
	cp "$TMP/rec.err" "$TMP/err"
}

# a running process: tables built before sampling starts
bg "$FIX/fix_tree_nofp" 600 2>/dev/null
target=$!
sleep 0.3
out=$TMP/dwarf.folded
record_pid "$out" "$target" --unwind dwarf -F 499
check_folded_grammar "$out"
exact=$(count "$out" "$tree")
heavy=$(count "$out" "^fix_tree_nofp;$start;cp_fix_run;cp_fix_heavy;cp_fix_leaf( |;)")
fixture=$(count "$out" '^fix_tree_nofp;')
note "dwarf: $exact of $fixture samples exact from _start to the leaf ($(share "$exact" $((fixture - exact)))%)"
expect_samples "$fixture" "$CPU" 499 "dwarf, -p"
[ "$fixture" -ge 1 ] || fail "no samples of fix_tree_nofp: $(cat "$TMP/err")"
# (99 %, with room for 2 samples when few: cp_fix_now's clock_gettime is off the tree)
[ $((100 * (exact + 2))) -ge $((99 * fixture)) ] ||
	fail "dwarf: only $exact of $fixture samples have the exact chain; others: $(grep '^fix_tree_nofp;' "$out" | grep -vE "$tree" | head -3)"
pct=$(share "$heavy" $((exact - heavy)))
[ "$pct" -ge 68 ] && [ "$pct" -le 82 ] || fail "heavy branch has ${pct}%, expected 75% (68..82)"
grep -q 'unwind tables: [1-9][0-9]* objects' "$TMP/err" ||
	fail "no unwind table summary: $(cat "$TMP/err")"

# -- COMMAND, default unwinder: tables built before it runs. Its exec and exit_group samples
# have no user stack to walk (a new or a torn-down address space): the bar leaves them room.
out=$TMP/cmd.folded
expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$out" -- "$FIX/fix_tree_nofp" 2
exact=$(count "$out" "$tree")
fixture=$(count "$out" '^fix_tree_nofp;')
note "auto, -- COMMAND: $exact of $fixture samples exact ($(share "$exact" $((fixture - exact)))%)"
cpu=$(fixture_cpu "$TMP/err" fix_tree) || exit 1
expect_samples "$fixture" "$cpu" 499 "auto, -- COMMAND"
[ "$fixture" -ge 1 ] && [ $((100 * exact)) -ge $((98 * fixture)) ] ||
	fail "-- COMMAND: only $exact of $fixture samples have the exact chain; others: $(grep '^fix_tree_nofp;' "$out" | grep -vE "$tree" | cut -c1-200 | head -3)"
grep -qE '; (99|100)\.[0-9]% of user stacks complete' "$TMP/err" ||
	fail "summary does not report >= 99 % complete user stacks: $(cat "$TMP/err")"

out=$TMP/fp.folded
expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record --unwind fp -F 499 -o "$out" -- "$FIX/fix_tree_nofp" 1
fpexact=$(count "$out" "$tree")
fpall=$(count "$out" '^fix_tree_nofp;')
note "fp: $fpexact of $fpall samples exact"
cpu=$(fixture_cpu "$TMP/err" fix_tree) || exit 1
expect_samples "$fpall" "$cpu" 499 "fp, -- COMMAND"
[ "$fpall" -ge 1 ] || fail "no samples of fix_tree_nofp with --unwind fp"
[ $((100 * fpexact)) -lt $((50 * fpall)) ] ||
	fail "frame pointers found the chain in $fpexact of $fpall samples: the fixture has frame pointers?"

# 200 frames of recursion: complete to _start, and exactly 200 deep at the leaf
bg "$FIX/fix_deep_nofp" 600
target=$!
sleep 0.3
out=$TMP/deep.folded
record_pid "$out" "$target" --unwind dwarf -F 499
rec=$(printf 'cp_deep_rec;%.0s' $(seq 200))
whole=$(count "$out" "^fix_deep_nofp;$start;cp_deep_run;cp_deep_rec;")
leaf=$(count "$out" "^fix_deep_nofp;$start;cp_deep_run;${rec}cp_deep_leaf( |;)")
all=$(count "$out" '^fix_deep_nofp;')
note "deep: $whole of $all samples complete to _start, $leaf exactly 200 deep at the leaf"
expect_samples "$all" "$CPU" 499 "deep, -p"
[ "$all" -ge 1 ] || fail "no samples of fix_deep_nofp"
[ $((100 * whole)) -ge $((99 * all)) ] ||
	fail "deep: only $whole of $all samples reach _start; others: $(grep '^fix_deep_nofp;' "$out" | grep -vE "^fix_deep_nofp;$start;" | cut -c1-200 | head -3)"
[ $((100 * leaf)) -ge $((95 * all)) ] || fail "deep: only $leaf of $all samples 200 deep at the leaf"
grep -q '\[truncated\]\|unwind-failed' "$out" &&
	fail "a stack ended early: $(grep '\[truncated\]\|unwind-failed' "$out" | cut -c1-200 | head -1)"
exit 0
