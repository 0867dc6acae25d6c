#!/bin/bash
# A file-size limit (ulimit -f) below what cpuprof writes: the files it spills to TMPDIR fail
# with EFBIG and their data stays in memory, as the README says, instead of SIGXFSZ killing
# cpuprof (status 153, no message, no profile). The output and stderr go through FIFOs, which
# the limit does not cover.
. "$(dirname "$0")/lib.sh"
require_bpf

prog=$FIX/fix_tree_nofp
mkdir "$TMP/spill"
mkfifo "$TMP/out.fifo" "$TMP/err.fifo"
cat "$TMP/out.fifo" >"$TMP/p.folded" &
out_cat=$!
cat "$TMP/err.fifo" >"$TMP/rec.err" &
err_cat=$!
# system-wide: more than 256 processes end, their samples and frames are moved to TMPDIR at
# the next drain
(
	ulimit -f 1
	CPUPROF_SPILL_AFTER=0 TMPDIR=$TMP/spill exec "$CPUPROF" record -v -F 499 \
		--drain-interval 200ms -o "$TMP/out.fifo" 2>"$TMP/err.fifo"
) &
rec=$!
for _ in $(seq 100); do
	grep -q 'sampling [0-9]* CPUs' "$TMP/rec.err" 2>/dev/null && break
	sleep 0.1
done
grep -q 'sampling [0-9]* CPUs' "$TMP/rec.err" || fail "record did not start: $(cat "$TMP/rec.err")"
for _ in $(seq 300); do
	"$prog" 0.01 2>/dev/null
done
sleep 1
kill -INT "$rec"
wait "$rec"
rc=$?
wait "$out_cat" "$err_cat"
[ "$rc" -eq 0 ] || fail "record under ulimit -f 1 exited $rc: $(tail -5 "$TMP/rec.err")"
grep -qE 'stay in memory: cannot write them to .*\(File too large, EFBIG;|frames are kept in memory: cannot write them to .*\(File too large, EFBIG;' "$TMP/rec.err" ||
	fail "no word of the spill files that could not be written: $(grep -i 'memory\|disk' "$TMP/rec.err")"
check_folded_grammar "$TMP/p.folded"
counted=$(sed -n 's/.*: \([0-9]*\) samples counted in the kernel.*/\1/p' "$TMP/rec.err")
folded=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/p.folded")
[ -n "$counted" ] && [ "$counted" = "$folded" ] ||
	fail "the kernel counted $counted samples, the folded output holds $folded"
[ -z "$(ls -A "$TMP/spill")" ] || fail "files left in TMPDIR: $(ls -A "$TMP/spill")"
note "ulimit -f 1: $folded samples kept in memory and written; $(grep -o 'stay in memory[^;]*' "$TMP/rec.err" | head -1)"
exit 0
