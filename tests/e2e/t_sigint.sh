#!/bin/bash
# Ctrl-C (SIGINT) and SIGTERM stop a system-wide recording and still write a complete file.
. "$(dirname "$0")/lib.sh"
require_bpf

bg "$FIX/fix_tree" 10
for sig in INT TERM; do
	out=$TMP/sig-$sig.folded
	start_recording -o "$out"
	sleep 1.5
	kill -"$sig" "$REC"
	wait "$REC"
	rc=$?
	[ "$rc" -eq 0 ] || fail "SIG$sig: exit $rc: $(cat "$TMP/rec.err")"
	check_folded_grammar "$out"
	n=$(count "$out" '^fix_tree;.*cp_fix_leaf')
	note "SIG$sig after 1.5 s: $n fix_tree samples, total $(total "$out")"
	[ "$n" -ge 40 ] || fail "SIG$sig: only $n fix_tree samples"
	ls -a "$TMP" | grep -q "^\.sig-$sig" && fail "temporary file left behind"
done
exit 0
