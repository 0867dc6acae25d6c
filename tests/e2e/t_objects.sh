#!/bin/bash
# Names through a shared object and in a non-PIE executable (load bias), and --per-thread.
. "$(dirname "$0")/lib.sh"
require_bpf

expect_status 0 "$CPUPROF" record -F 299 -o "$TMP/so.folded" -- "$FIX/fix_shared" 1.5
n=$(count "$TMP/so.folded" '^fix_shared;([^;]*;)*main;cp_fix_call_lib;cp_lib_work;cp_lib_leaf( |;)')
all=$(count "$TMP/so.folded" '^fix_shared;')
note "shared object: $n of $all samples main;cp_fix_call_lib;cp_lib_work;cp_lib_leaf"
cpu=$(fixture_cpu "$TMP/err" fix_shared) || exit 1
expect_samples "$all" "$cpu" 299 "fix_shared"
[ "$n" -ge 1 ] && [ $((100 * n)) -ge $((90 * all)) ] || fail "shared-object chain in $n of $all samples"

expect_status 0 "$CPUPROF" record -F 299 -o "$TMP/nopie.folded" -- "$FIX/fix_nopie" 1.5
n=$(count "$TMP/nopie.folded" '^fix_nopie;([^;]*;)*main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf( |;)')
all=$(count "$TMP/nopie.folded" '^fix_nopie;')
note "non-PIE: $n of $all samples with the full chain"
cpu=$(fixture_cpu "$TMP/err" fix_tree) || exit 1
expect_samples "$all" "$cpu" 299 "fix_nopie"
[ "$n" -ge 1 ] && [ $((100 * n)) -ge $((90 * all)) ] || fail "non-PIE chain in $n of $all samples"

expect_status 0 "$CPUPROF" record --per-thread -o "$TMP/thr.folded" -- "$FIX/fix_tree" 1
check_folded_grammar "$TMP/thr.folded"
grep -qE '^fix_tree;fix_tree-[0-9]+;([^;]*;)*main;cp_fix_run;' "$TMP/thr.folded" ||
	fail "--per-thread has no 'fix_tree;fix_tree-TID;' frames: $(head -2 "$TMP/thr.folded")"
exit 0
