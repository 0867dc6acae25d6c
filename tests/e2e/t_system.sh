#!/bin/bash
# System-wide: two separate processes, each with its own name and stacks; a process that
# starts and exits half-way through is still named.
. "$(dirname "$0")/lib.sh"
require_bpf

bg "$FIX/fix_tree" 6
bg "$FIX/fix_syscall" 6
sleep 0.2
start_recording -d 3s -o "$TMP/sys.folded" -o "$TMP/sys.pb.gz"
"$FIX/fix_shared" 1 # starts after recording began, exits 2 s before it ends
wait "$REC" || fail "system-wide record failed: $(cat "$TMP/rec.err")"
check_folded_grammar "$TMP/sys.folded"
a=$(count "$TMP/sys.folded" '^fix_tree;.*cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf')
b=$(count "$TMP/sys.folded" '^fix_syscall;.*main;')
c=$(count "$TMP/sys.folded" '^fix_shared;([^;]*;)*main;cp_fix_call_lib;cp_lib_work;cp_lib_leaf( |;)')
call=$(count "$TMP/sys.folded" '^fix_shared;')
note "system-wide: fix_tree $a, fix_syscall $b, fix_shared (exited early) $c samples; $(grep -o 'samples from [0-9]* processes' "$TMP/rec.err")"
[ "$a" -ge 40 ] || fail "fix_tree: $a samples"
[ "$b" -ge 40 ] || fail "fix_syscall: $b samples"
# named although it exited before the recording ended: (nearly) all its samples, by name
[ "$c" -ge 5 ] && [ $((100 * c)) -ge $((90 * call)) ] ||
	fail "the process that exited was not named: $c of $call samples have main;cp_fix_call_lib;cp_lib_work;cp_lib_leaf"
# not itself (other cpuprof instances may run and be profiled: look for this one's pid)
HOME=$TMP GOCACHE=$TMP/gocache go tool pprof -symbolize=none -raw "$TMP/sys.pb.gz" >"$TMP/raw" 2>&1 ||
	fail "pprof: $(tail -2 "$TMP/raw")"
grep -q "pid:\[$REC\]" "$TMP/raw" && fail "the profiler profiled itself (pid $REC)"
grep -q 'pid:\[' "$TMP/raw" || fail "no pid labels in the pprof output"
exit 0
