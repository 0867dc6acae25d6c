#!/bin/bash
# Unwind tables of any size, loaded any time: fix_dlopen_big dlopen()s a library whose table
# has 1.28 M rows (20 MiB in BPF) once it has been sampled; its code keeps no frame pointer,
# so its stacks are complete only with that table. A row array sized when sampling started
# left it out whatever --max-unwind-memory said (0 of ~300 complete). Then the cap:
# --max-unwind-memory 8 leaves it out and the summary says so without -v, with a value that,
# given back, holds it.
. "$(dirname "$0")/lib.sh"
require_bpf

LIB_RE='^fix_dlopen_big;(.*;)?cp_lib_leaf( |;)'
OK_RE='^fix_dlopen_big;_start;__libc_start_main;(__libc_start_call_main;)?main;cp_fix_after_dlopen;cp_lib_work;cp_lib_leaf( |;)'

# run NAME ARGS...: record fix_dlopen_big; lib / ok: its samples in the library, and those
# walked whole from _start
run() {
	local name=$1
	shift
	# phases in CPU time: on a loaded machine the fixture still gets its samples
	CP_FIX_CPU_CLOCK=1 expect_status 0 "$CPUPROF" record -F 299 "$@" \
		-o "$TMP/$name.folded" -- "$FIX/fix_dlopen_big" 0.2 "$PHASE" "$PAUSE"
	check_folded_grammar "$TMP/$name.folded"
	cp "$TMP/err" "$TMP/$name.err"
	lib=$(count "$TMP/$name.folded" "$LIB_RE")
	ok=$(count "$TMP/$name.folded" "$OK_RE")
}

# the default cap: the table goes in mid-recording. Until it is in (a few hundred ms of
# building, more on a loaded machine) the library's frames are walked with frame pointers and
# cut: the fixture works 50 ms in the library (so that a sample asks for its table), then
# sleeps a second before working 0.6 s of CPU time there
PAUSE=1 PHASE=0.6 run default
note "default: $ok of $lib samples in the big library complete"
[ "$lib" -ge 20 ] || fail "only $lib samples in the library: $(cat "$TMP/default.err")"
[ "$(share "$ok" "$((lib - ok))")" -ge 60 ] ||
	fail "$ok of $lib stacks through the big library complete: $(grep -v "$OK_RE" "$TMP/default.folded" | grep cp_lib_leaf | head -3)"
grep -q 'unwind tables left out' "$TMP/default.err" &&
	fail "a table left out under the default cap: $(cat "$TMP/default.err")"

# a cap too small for it: left out (no stack through it complete), and said without -v
PAUSE=0 PHASE=0.3 run small --max-unwind-memory 8
line=$(grep 'unwind tables left out' "$TMP/small.err") ||
	fail "no summary line for the table left out: $(cat "$TMP/small.err")"
note "8 MiB: $ok of $lib complete; $line"
[ "$ok" -eq 0 ] || fail "$ok stacks through a table left out are complete"
echo "$line" | grep -qE 'left out: 1 \(20 MiB, the largest 20 MiB\) did not fit in --max-unwind-memory 8;' ||
	fail "summary line: $line"
asked=$(echo "$line" | sed -n 's/.*run with --max-unwind-memory \([0-9]*\)$/\1/p')
[ -n "$asked" ] && [ "$asked" -ge 20 ] && [ "$asked" -le 256 ] || fail "no value to run with: $line"

# the value it asked for holds the table (-v: its rows are in, none left out)
PAUSE=0 PHASE=0.3 run asked -v --max-unwind-memory "$asked"
v=$(grep 'unwind tables: ' "$TMP/asked.err") || fail "no -v line: $(cat "$TMP/asked.err")"
note "$asked MiB: $ok of $lib complete; $v"
grep -q 'unwind tables left out' "$TMP/asked.err" &&
	fail "--max-unwind-memory $asked still leaves a table out: $(cat "$TMP/asked.err")"
rows=$(echo "$v" | sed -n 's/.*unwind tables: [0-9]* objects, \([0-9]*\) rows.*/\1/p')
[ -n "$rows" ] && [ "$rows" -ge 1280010 ] && echo "$v" | grep -q ' 0 left out (--max-unwind-memory)' ||
	fail "the big library's table is not in with --max-unwind-memory $asked: $v"
exit 0
