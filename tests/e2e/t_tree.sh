#!/bin/bash
# -- COMMAND on the known call tree: exact caller -> callee chains, the 3:1 branch shares, names.
. "$(dirname "$0")/lib.sh"
require_bpf

expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/tree.folded" -- "$FIX/fix_tree" 3
check_tree "$TMP/tree.folded" 499 "-- COMMAND"
exit 0
