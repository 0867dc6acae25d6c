#!/bin/bash
# Ctrl-C (SIGINT) and SIGTERM stop a system-wide recording and still write a complete file:
# it holds the samples of a busy fixture for the CPU time the fixture got while sampling ran.
. "$(dirname "$0")/lib.sh"
require_bpf

for sig in INT TERM; do
	out=$TMP/sig-$sig.folded
	# a fixture of its own per recording, busy until it is killed
	bg "$FIX/fix_tree" 600 2>/dev/null
	fixture=$!
	start_recording -o "$out"
	c0=$(cpu_now "$fixture")
	# at least 1.5 s, and until the fixture got 0.5 s of CPU on this machine's load
	sleep 1.5
	for _ in $(seq 600); do
		awk -v a="$c0" -v b="$(cpu_now "$fixture")" 'BEGIN { exit !(b - a >= 0.5) }' && break
		sleep 0.1
	done
	c1=$(cpu_now "$fixture")
	kill -"$sig" "$REC"
	wait "$REC"
	rc=$?
	kill "$fixture"
	[ "$rc" -eq 0 ] || fail "SIG$sig: exit $rc: $(cat "$TMP/rec.err")"
	check_folded_grammar "$out"
	n=$(count "$out" '^fix_tree;.*cp_fix_leaf')
	expect_samples "$n" "$(cpu_since "$c0" "$c1")" 99 "SIG$sig"
	[ "$n" -ge 1 ] || fail "SIG$sig: no fix_tree samples"
	ls -a "$TMP" | grep -q "^\.sig-$sig" && fail "temporary file left behind"
done
exit 0
