#!/bin/bash
# JIT code named from the process's perf map (/tmp/perf-PID.map), read after it exited.
. "$(dirname "$0")/lib.sh"
require_bpf

expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/jit.folded" -- sh -c "echo \$\$ >'$TMP/pid'; exec '$FIX/fix_jit' 1.5"
rm -f "/tmp/perf-$(cat "$TMP/pid").map"
check_folded_grammar "$TMP/jit.folded"
all=$(count "$TMP/jit.folded" '^fix_jit;')
jit=$(count "$TMP/jit.folded" '^fix_jit;([^;]*;)*main;cp_jit_run;cp_jit_loop( |;)')
note "JIT: $jit of $all samples main;cp_jit_run;cp_jit_loop"
[ "$all" -gt 300 ] && [ $((100 * jit)) -ge $((90 * all)) ] || fail "JIT frames named in $jit of $all samples"
exit 0
