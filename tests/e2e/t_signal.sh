#!/bin/bash
# Signal frames: fix_signal (no frame pointers, -O2) spends most of its life in a SIGALRM
# handler that interrupted cp_sig_victim, called from main. --unwind dwarf continues from the
# handler through the kernel's signal frame (glibc's restorer, __restore_rt) into the
# interrupted code:
#   _start;...;main;cp_sig_victim;__restore_rt;cp_sig_handler;cp_sig_work
# >= 95 % of the samples in the handler (or in cp_sig_work, which it calls) reach _start.
# The interrupted pc is not a return address: the fixture interrupts cp_sig_victim at its first
# instruction, right after the one-byte cp_sig_before, so looking it up as pc - 1 names
# cp_sig_before. The restorer's address is no call's return address either (glibc puts a nop
# before __restore_rt for unwinders; as pc - 1 it lies outside the symbol). Without libc's
# symbol table (no libc6-dbg) the restorer has no name and is libc.so.6+0xOFFSET.
. "$(dirname "$0")/lib.sh"
require_bpf

start='_start;__libc_start_main;__libc_start_call_main;main'
handler='^fix_signal;(.*;)?cp_sig_(handler|work)( |;)'

bg "$FIX/fix_signal" 600 # until killed
target=$!
sleep 0.3
# the restorer is named when the symbols of the process's libc are at hand: in its .symtab or
# in a debug file found by build-id (libc6-dbg)
libc=$(grep -m1 -oE '/[^ ]*/libc\.so\.6$' "/proc/$target/maps")
[ -n "$libc" ] || fail "fix_signal maps no libc.so.6"
restorer='(__restore_rt|libc\.so\.6\+0x[0-9a-f]+)'
bid=$(readelf -n "$libc" 2>/dev/null | awk '/Build ID:/ { print $3 }')
for f in "$libc" "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"; do
	if [ -r "$f" ] && readelf -sW "$f" 2>/dev/null | grep -q ' __restore_rt$'; then
		restorer=__restore_rt
		note "libc's symbols for __restore_rt: $f"
	fi
done

out=$TMP/dwarf.folded
record_window "$target" 3 --unwind dwarf -F 499 -o "$out" -p "$target"
dwarf_cpu=$WINDOW_CPU
record_window "$target" 1 --unwind fp -F 499 -o "$TMP/fp.folded" -p "$target"
fp_cpu=$WINDOW_CPU
kill "$target"
check_folded_grammar "$out"

through="^fix_signal;$start;[^;]+;[^;]+;cp_sig_handler( |;)"
all=$(count "$out" "$handler")
whole=$(count "$out" "$through")
victim=$(count "$out" "^fix_signal;$start;cp_sig_victim;[^;]+;cp_sig_handler( |;)")
named=$(count "$out" "^fix_signal;$start;[^;]+;$restorer;cp_sig_handler( |;)")
exact=$(count "$out" "^fix_signal;$start;cp_sig_victim;$restorer;cp_sig_handler;cp_sig_work( |;)")
note "dwarf: $whole of $all samples in the handler reach _start through the signal frame ($(share "$whole" $((all - whole)))%); interrupted frame named cp_sig_victim in $victim, restorer named $restorer in $named, $exact exactly ...;main;cp_sig_victim;$restorer;cp_sig_handler;cp_sig_work"
# the fixture spends nearly all its time in the handler
expect_samples "$all" "$dwarf_cpu" 499 "dwarf: the signal handler"
[ $((100 * whole)) -ge $((95 * all)) ] ||
	fail "dwarf: only $whole of $all samples in the handler reach _start; others: $(grep -E "$handler" "$out" | grep -vE "$through" | cut -c1-250 | head -3)"

fpall=$(count "$TMP/fp.folded" "$handler")
fpwhole=$(count "$TMP/fp.folded" "$through")
note "fp: $fpwhole of $fpall samples in the handler reach _start"
expect_samples "$fpall" "$fp_cpu" 499 "fp: the signal handler"
[ $((100 * fpwhole)) -lt $((50 * fpall)) ] ||
	fail "frame pointers got through the signal frame in $fpwhole of $fpall samples: does fix_signal have frame pointers?"

# the names around the signal frame
misnamed=""
[ $((100 * victim)) -ge $((95 * all)) ] ||
	misnamed="the interrupted function is not cp_sig_victim in $((all - victim)) of $all samples (looked up as pc - 1?);"
[ $((100 * named)) -ge $((95 * all)) ] ||
	misnamed="$misnamed the restorer is not $restorer in $((all - named)) of $all samples;"
[ -z "$misnamed" ] && [ $((100 * exact)) -ge $((95 * all)) ] ||
	fail "dwarf: $misnamed want ...;main;cp_sig_victim;$restorer;cp_sig_handler;cp_sig_work in 95 %: $(grep -E "$handler" "$out" | grep -vE "^fix_signal;$start;cp_sig_victim;$restorer;cp_sig_handler;" | cut -c1-250 | head -3)"
exit 0
