#!/bin/bash
# System-wide: two separate processes, each with its own name and stacks; a process that
# starts and exits half-way through is still named. Each has the samples of the CPU time it
# got while sampling ran, whatever the machine's load.
. "$(dirname "$0")/lib.sh"
require_bpf

# busy until killed, so they run for the whole recording
bg "$FIX/fix_tree" 600 2>/dev/null
tree=$!
bg "$FIX/fix_syscall" 600
sys=$!
sleep 0.2
start_recording -o "$TMP/sys.folded" -o "$TMP/sys.pb.gz"
ta=$(cpu_now "$tree")
sa=$(cpu_now "$sys")
CP_FIX_CPU_CLOCK=1 "$FIX/fix_shared" 1 2>"$TMP/err" # starts after recording began, exits before it ends
sleep 0.5
tb=$(cpu_now "$tree")
sb=$(cpu_now "$sys")
kill -INT "$REC"
wait "$REC" || fail "system-wide record failed: $(cat "$TMP/rec.err")"
kill "$tree" "$sys"
check_folded_grammar "$TMP/sys.folded"
a=$(count "$TMP/sys.folded" '^fix_tree;.*cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf')
b=$(count "$TMP/sys.folded" '^fix_syscall;.*main;')
c=$(count "$TMP/sys.folded" '^fix_shared;([^;]*;)*main;cp_fix_call_lib;cp_lib_work;cp_lib_leaf( |;)')
call=$(count "$TMP/sys.folded" '^fix_shared;')
note "system-wide: fix_tree $a, fix_syscall $b, fix_shared (exited early) $c samples; $(grep -o 'samples from [0-9]* processes' "$TMP/rec.err")"
expect_samples "$a" "$(cpu_since "$ta" "$tb")" 99 fix_tree
expect_samples "$b" "$(cpu_since "$sa" "$sb")" 99 fix_syscall
# named although it exited before the recording ended: (nearly) all its samples, by name
# (90 %, or all but 2 when it got little CPU: its start-up in the loader)
cpu=$(fixture_cpu "$TMP/err" fix_shared) || exit 1
expect_samples "$call" "$cpu" 99 fix_shared
[ "$c" -ge 1 ] && { [ $((100 * c)) -ge $((90 * call)) ] || [ $((call - c)) -le 2 ]; } ||
	fail "the process that exited was not named: $c of $call samples have main;cp_fix_call_lib;cp_lib_work;cp_lib_leaf"
# not itself (other cpuprof instances may run and be profiled: look for this one's pid)
HOME=$TMP GOCACHE=$TMP/gocache go tool pprof -symbolize=none -raw "$TMP/sys.pb.gz" >"$TMP/raw" 2>&1 ||
	fail "pprof: $(tail -2 "$TMP/raw")"
grep -q "pid:\[$REC\]" "$TMP/raw" && fail "the profiler profiled itself (pid $REC)"
grep -q 'pid:\[' "$TMP/raw" || fail "no pid labels in the pprof output"
exit 0
