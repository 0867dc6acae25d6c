#!/bin/bash
# The vDSO has no file to read an unwind table from: cpuprof builds it from its own copy (the
# kernel maps the same image into every process). A program spending most of its time in
# clock_gettime without frame pointers: its samples inside the vDSO are walked through it to
# _start (>= 99 % of all its samples complete, and a good share of them in the vDSO).
. "$(dirname "$0")/lib.sh"
require_bpf

bg "$FIX/fix_vdso" 600 # until killed
target=$!
sleep 0.3
out=$TMP/vdso.folded
record_window "$target" 2 -F 499 -o "$out" -p "$target"
kill "$target"
check_folded_grammar "$out"
chain='^fix_vdso;_start;__libc_start_main;__libc_start_call_main;main;cp_vdso_run'
all=$(count "$out" '^fix_vdso;')
whole=$(count "$out" "$chain( |;)")
invdso=$(count "$out" "$chain;(clock_gettime|__clock_gettime);__vdso_clock_gettime")
note "vdso: $whole of $all samples complete to _start, $invdso of them through the vDSO"
expect_samples "$all" "$WINDOW_CPU" 499 "fix_vdso"
[ $((100 * whole)) -ge $((99 * all)) ] ||
	fail "only $whole of $all samples complete; others: $(grep '^fix_vdso;' "$out" | grep -vE "$chain( |;)" | cut -c1-200 | head -3)"
[ $((100 * invdso)) -ge $((30 * all)) ] ||
	fail "only $invdso of $all samples in the vDSO: $(sort -t' ' -k2 -nr "$out" | head -3 | cut -c1-200)"
exit 0
