#!/bin/bash
# Kernel stacks under the user stack for a syscall-heavy fixture; --no-kernel and --kernel-only.
. "$(dirname "$0")/lib.sh"
require_bpf

out=$TMP/sys.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- "$FIX/fix_syscall" 2
check_folded_grammar "$out"
all=$(count "$out" '^fix_syscall;')
kern=$(count "$out" '^fix_syscall;.*_\[k\]')
zero=$(count "$out" '^fix_syscall;([^;]*;)*main;([^;]*;)*[^;]*read[^;]*;[^;]*_\[k\];.*read_zero_\[k\]')
note "fix_syscall $all samples, $kern with kernel frames, $zero through read -> ... -> read_zero_[k]"
[ $((2 * kern)) -ge "$all" ] || fail "only $kern of $all samples have kernel frames"
[ "$zero" -gt 0 ] || fail "no stack reaches read_zero_[k] under the user frames"
# kernel frames only ever follow user frames: once a frame is _[k], all the rest are
mixed=$(sed 's/ [0-9]*$//' "$out" | awk -F';' '{ k = 0; for (i = 2; i <= NF; i++) {
	if ($i ~ /_\[k\]$/) k = 1; else if (k) { print; next } } }' | head -1)
[ -z "$mixed" ] || fail "a user frame after a kernel frame: $mixed"

expect_status 0 "$CPUPROF" record -q --no-kernel -o "$TMP/nok.folded" -- "$FIX/fix_syscall" 1
grep -q '_\[k\]' "$TMP/nok.folded" && fail "--no-kernel still has kernel frames"
grep -q 'main' "$TMP/nok.folded" || fail "--no-kernel lost the user frames"

expect_status 0 "$CPUPROF" record -q --kernel-only -o "$TMP/konly.folded" -- "$FIX/fix_syscall" 1
grep -qE ';(main|cp_fix_sys_loop)(;| )' "$TMP/konly.folded" && fail "--kernel-only still has user frames"
grep -q 'read_zero_\[k\]' "$TMP/konly.folded" || fail "--kernel-only lost the kernel frames"

# without CAP_SYSLOG the kernel hides its addresses; the warning names the setting that did
kptr=$(cat /proc/sys/kernel/kptr_restrict)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$kptr" -ge 1 ] || [ "$paranoid" -ge 2 ]; then
	case $kptr in
	0) want="kernel.perf_event_paranoid=$paranoid without CAP_SYSLOG" ;;
	1) want="kernel.kptr_restrict=1 without CAP_SYSLOG" ;;
	*) want="kernel.kptr_restrict=$kptr hides them even from root" ;;
	esac
	setpriv --inh-caps=-syslog --bounding-set=-syslog "$CPUPROF" record -d 200ms \
		-o "$TMP/nosyslog.folded" 2>"$TMP/nosyslog.err" ||
		fail "record without CAP_SYSLOG: $(cat "$TMP/nosyslog.err")"
	grep -qF "$want" "$TMP/nosyslog.err" ||
		fail "without CAP_SYSLOG, expected '$want': $(cat "$TMP/nosyslog.err")"
fi
exit 0
