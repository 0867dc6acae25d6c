#!/bin/bash
# The output phase is made of little memory (issue 25): after the last sets are named, the
# naming state goes and the writers stream (folded without copies, pprof in 256 KiB pieces,
# JSON never a tree), so reading back what a system-wide recording kept on disk and writing
# three formats peaks at most 1.25 x the memory cpuprof held when the last sets were named
# (-v: the "memory:" line, VmHWM reset in between). Everything goes to disk here
# (CPUPROF_SPILL_AFTER=0), and every frame must come back: none "[frame lost: ...]". The
# figure for a long busy recording is bench/soak.sh's (README "Memory").
. "$(dirname "$0")/lib.sh"
require_bpf

bg env CP_FIX_CPU_CLOCK=1 "$FIX/fix_paths" 6
expect_status 0 env CPUPROF_SPILL_AFTER=0 TMPDIR="$TMP" "$CPUPROF" record -v -F 999 -d 3s \
	-o "$TMP/m.folded" -o "$TMP/m.pb.gz" -o "$TMP/m.json"
line=$(grep '^cpuprof: memory: ' "$TMP/err") || fail "no memory line with -v: $(cat "$TMP/err")"
note "$line"
! grep -q 'cannot read back' "$TMP/err" || fail "$(grep 'cannot read back' "$TMP/err")"
! grep -q 'frame lost' "$TMP/m.folded" || fail "frames lost: $(grep -c 'frame lost' "$TMP/m.folded") lines"
grep -q 'kept on disk until the output' "$TMP/err" || fail "nothing went to disk: $(cat "$TMP/err")"
# the three outputs are whole: the same samples, the kernel's count
counted=$(sed -n 's/.*: \([0-9]*\) samples counted in the kernel.*/\1/p' "$TMP/err")
[ "$(total "$TMP/m.folded")" = "$counted" ] || fail "folded $(total "$TMP/m.folded"), kernel $counted"
gzip -t "$TMP/m.pb.gz" || fail "the pprof file is not a whole gzip stream"
[ "$(tail -c 1 "$TMP/m.json" | od -An -c | tr -d ' ')" = '\n' ] || fail "the JSON does not end in a newline"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["cpuprof"]["samples"] == int(sys.argv[2]), d["cpuprof"]["samples"]' \
	"$TMP/m.json" "$counted" || fail "the JSON does not hold the $counted samples"
grep -q 'peak .* MiB while reading back and writing' <<<"$line" || {
	note "the output's own peak is not known here (/proc/self/clear_refs): no ratio to check"
	exit 0
}
named=$(sed -n 's/.*memory: \([0-9.]*\) MiB when the last sets were named.*/\1/p' <<<"$line")
out=$(sed -n 's/.*peak \([0-9.]*\) MiB while reading back.*/\1/p' <<<"$line")
# ASan keeps freed memory in quarantine: the naming state's memory is not reused there
if ldd "$CPUPROF" 2>/dev/null | grep -q libasan; then
	note "sanitizer build: the ratio is not checked"
	exit 0
fi
awk -v n="$named" -v o="$out" 'BEGIN { exit !(o <= 1.25 * n) }' ||
	fail "the output phase peaked at $out MiB, over 1.25 x the $named MiB held when the last sets were named"
exit 0
