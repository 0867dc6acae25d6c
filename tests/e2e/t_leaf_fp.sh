#!/bin/bash
# Frame pointers everywhere but in leaf functions (gcc -O2 -fno-omit-frame-pointer
# -momit-leaf-frame-pointer): a frame-pointer walk from a leaf starts at its caller's frame
# record, so the caller is lost (main;cp_fix_run;cp_fix_leaf). --unwind dwarf must find it:
# >= 99 % of the samples of a running process (-p: its tables are loaded before sampling) are
# exactly _start;...;main;cp_fix_run;cp_fix_heavy|cp_fix_light;cp_fix_leaf. --unwind fp on the
# same process must lose the helper in most samples (so the fixture shows the problem).
. "$(dirname "$0")/lib.sh"
require_bpf

start='_start;__libc_start_main;__libc_start_call_main;main'
tree="^fix_tree_lfp;$start;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf( |;)"
# what frame pointers see from the leaf: its caller skipped
lost="^fix_tree_lfp;([^;]*;)*cp_fix_run;cp_fix_leaf( |;)"

bg "$FIX/fix_tree_lfp" 600 # until killed
target=$!
sleep 0.3
out=$TMP/dwarf.folded
record_window "$target" 3 --unwind dwarf -F 499 -o "$out" -p "$target"
check_folded_grammar "$out"
exact=$(count "$out" "$tree")
fixture=$(count "$out" '^fix_tree_lfp;')
note "dwarf: $exact of $fixture samples exact from _start through the helper to the leaf ($(share "$exact" $((fixture - exact)))%)"
expect_samples "$fixture" "$WINDOW_CPU" 499 "dwarf: fix_tree_lfp"
[ $((100 * exact)) -ge $((99 * fixture)) ] ||
	fail "dwarf: only $exact of $fixture samples have the exact chain; others: $(grep '^fix_tree_lfp;' "$out" | grep -vE "$tree" | cut -c1-250 | head -3)"

out=$TMP/fp.folded
record_window "$target" 1 --unwind fp -F 499 -o "$out" -p "$target"
kill "$target"
fpexact=$(count "$out" "$tree")
fplost=$(count "$out" "$lost")
fpall=$(count "$out" '^fix_tree_lfp;')
note "fp: $fpexact of $fpall samples exact, $fplost without the leaf's caller"
expect_samples "$fpall" "$WINDOW_CPU" 499 "fp: fix_tree_lfp"
[ $((100 * fplost)) -ge $((50 * fpall)) ] && [ $((100 * fpexact)) -lt $((50 * fpall)) ] ||
	fail "frame pointers kept the leaf's caller ($fpexact exact, $fplost lost of $fpall): does the leaf have a frame? $(grep '^fix_tree_lfp;' "$out" | cut -c1-250 | head -2)"
exit 0
