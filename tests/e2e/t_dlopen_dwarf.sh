#!/bin/bash
# --unwind dwarf through a library without frame pointers that is dlopen()ed while recording
# (fix_dlopen_nofp: main -> cp_fix_before spins, then dlopen(libcpfix_nofp.so) and main ->
# cp_fix_after_dlopen -> cp_lib_work -> cp_lib_leaf): the library's tables are loaded when it
# shows up, so >= 95 % of the samples in the library have the whole chain from _start, both
# under -p (recording started before the dlopen) and with -- COMMAND. Frame pointers must not
# get the chain (so the check discriminates).
. "$(dirname "$0")/lib.sh"
require_bpf

start='_start;__libc_start_main;__libc_start_call_main;main'
chain="^fix_dlopen_nofp;$start;cp_fix_after_dlopen;cp_lib_work;cp_lib_leaf( |;)"
inlib='^fix_dlopen_nofp;(.*;)?(cp_lib_[a-z_]*|libcpfix_nofp\.so\+0x[0-9a-f]+)( |;)'
before="^fix_dlopen_nofp;$start;cp_fix_before( |;)"

# check FILE WHAT PRE_CPU LIB_CPU: the share of the chain among the library's samples; the
# samples before the dlopen and in the library follow the CPU time the fixture spent there
check() {
	check_folded_grammar "$1"
	whole=$(count "$1" "$chain")
	lib=$(count "$1" "$inlib")
	pre=$(count "$1" "$before")
	note "$2: $whole of $lib samples in the library have the whole chain ($(share "$whole" $((lib - whole)))%); $pre before the dlopen"
	expect_samples "$lib" "$4" 499 "$2: in libcpfix_nofp.so"
	expect_samples "$pre" "$3" 499 "$2: before the dlopen (did recording start after it?)"
	[ "$lib" -ge 1 ] && [ "$pre" -ge 1 ] || fail "$2: no samples in the library ($lib) or before the dlopen ($pre)"
	[ $((100 * whole)) -ge $((95 * lib)) ] ||
		fail "$2: only $whole of $lib samples in the library have the whole chain; others: $(grep -E "$inlib" "$1" | grep -vE "$chain" | cut -c1-250 | head -4)"
	unnamed=$(count "$1" 'libcpfix_nofp\.so\+0x')
	[ "$unnamed" -eq 0 ] || fail "$2: $unnamed samples in libcpfix_nofp.so unnamed: $(grep 'libcpfix_nofp\.so+0x' "$1" | cut -c1-250 | head -2)"
}

# -p: the process exists before recording starts; SIGUSR1 makes it dlopen() 0.5 s after
# sampling has started; the recording ends when it exits (-d only if it would not)
bg "$FIX/fix_dlopen_nofp" 30 2.5 2>"$TMP/pid-fix.err"
target=$!
sleep 0.3
start_recording --unwind dwarf -F 499 -d 60s -o "$TMP/pid.folded" -p "$target"
c0=$(cpu_now "$target") || exit 1
sleep 0.5
kill -USR1 "$target"
wait "$REC"
rc=$?
[ "$rc" -eq 0 ] || fail "-p: record exited $rc: $(cat "$TMP/rec.err")"
wait "$target"
c1=$(fixture_cpu "$TMP/pid-fix.err" fix_dlopen " before dlopen") || exit 1
c2=$(fixture_cpu "$TMP/pid-fix.err" fix_dlopen) || exit 1
cp "$TMP/rec.err" "$TMP/err"
check "$TMP/pid.folded" "-p" "$(cpu_since "$c0" "$c1")" "$(cpu_since "$c1" "$c2")"

# -- COMMAND: tables come with its first samples, and again after the dlopen
expect_status 0 "$CPUPROF" record --unwind dwarf -F 499 -o "$TMP/cmd.folded" -- \
	"$FIX/fix_dlopen_nofp" 0.5 2
c1=$(fixture_cpu "$TMP/err" fix_dlopen " before dlopen") || exit 1
c2=$(fixture_cpu "$TMP/err" fix_dlopen) || exit 1
check "$TMP/cmd.folded" "-- COMMAND" "$c1" "$(cpu_since "$c1" "$c2")"

expect_status 0 "$CPUPROF" record --unwind fp -F 499 -o "$TMP/fp.folded" -- \
	"$FIX/fix_dlopen_nofp" 0.2 1
fpwhole=$(count "$TMP/fp.folded" "$chain")
fplib=$(count "$TMP/fp.folded" "$inlib")
note "fp: $fpwhole of $fplib samples in the library have the whole chain"
c1=$(fixture_cpu "$TMP/err" fix_dlopen " before dlopen") || exit 1
c2=$(fixture_cpu "$TMP/err" fix_dlopen) || exit 1
expect_samples "$fplib" "$(cpu_since "$c1" "$c2")" 499 "fp: in libcpfix_nofp.so"
[ "$fplib" -ge 1 ] || fail "fp: no samples in libcpfix_nofp.so"
[ $((100 * fpwhole)) -lt $((50 * fplib)) ] ||
	fail "frame pointers found the chain in $fpwhole of $fplib samples: does libcpfix_nofp.so have frame pointers?"
exit 0
