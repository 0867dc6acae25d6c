#!/bin/bash
# stderr carries the summary: one short line, then only indented lines, each a "reason
# COUNT" list (a progress line only on a terminal); -q silences it;
# stdout carries nothing but the profile; version; -p ends when its target exits.
. "$(dirname "$0")/lib.sh"
require_bpf

"$CPUPROF" record -o "$TMP/a.folded" -- "$FIX/fix_shared" 1.2 >"$TMP/out" 2>"$TMP/err" || fail "record failed"
[ -s "$TMP/out" ] && fail "stdout is not empty with -o: $(head -c 200 "$TMP/out")"
head -1 "$TMP/err" | grep -qE '^cpuprof: [0-9]+ samples from 1 process in [0-9.]+ s written to .*a\.folded(; [0-9.]+% of user stacks complete)?$' ||
	fail "summary line: $(cat "$TMP/err")"
[ "$(head -1 "$TMP/err" | wc -c)" -le 160 ] || fail "the first summary line is long: $(head -1 "$TMP/err")"
tail -n +2 "$TMP/err" | grep -vqE '^  (samples left out|with lost or unnamed frames): [^,]+ [0-9]+(, [^,]+ [0-9]+)*$' &&
	fail "a summary line that is not an indented list: $(cat "$TMP/err")"

"$CPUPROF" record -q -o "$TMP/b.folded" -- "$FIX/fix_shared" 0.3 2>"$TMP/err" || fail "record -q failed"
[ -s "$TMP/err" ] && fail "-q still printed: $(cat "$TMP/err")"

# on a terminal (script(1) gives one) a progress line is redrawn every second
if command -v script >/dev/null; then
	script -qec "$CPUPROF record -o $TMP/c.folded -- $FIX/fix_tree 2.5" /dev/null >"$TMP/tty" ||
		fail "record under script failed: $(cat "$TMP/tty")"
	grep -q 'recording 2 s, [0-9]* samples' "$TMP/tty" || fail "no progress line on a terminal: $(od -c "$TMP/tty" | head)"
fi

"$CPUPROF" --version >"$TMP/v" || fail "--version failed"
grep -qE '^cpuprof [0-9]' "$TMP/v" && grep -q '^libbpf ' "$TMP/v" && grep -q '^libdw ' "$TMP/v" &&
	grep -q '^jansson ' "$TMP/v" || fail "--version: $(cat "$TMP/v")"
"$CPUPROF" version | cmp -s - "$TMP/v" || fail "'version' and '--version' differ"

# -F above what sampling can sustain is capped with one warning, and -d holds: with both
# CPUs busy, -F 100000 used to turn -d 1s into 8.5 s (more than 5 s is a failure here)
bg "$FIX/fix_tree" 20
bg "$FIX/fix_tree" 20
start=$(date +%s%N)
timeout -s KILL 60 "$CPUPROF" record -F 100000 -d 1s -o "$TMP/f.folded" 2>"$TMP/f.err" ||
	fail "record -F 100000: $(cat "$TMP/f.err")"
ms=$((($(date +%s%N) - start) / 1000000))
[ "$(grep -c 'sampling at [0-9]* Hz' "$TMP/f.err")" -eq 1 ] || fail "-F 100000: no one warning: $(cat "$TMP/f.err")"
[ "$ms" -lt 5000 ] || fail "-F 100000 -d 1s took $ms ms"
note "-F 100000 -d 1s, capped: $ms ms"
kill $BG_PIDS 2>/dev/null

# -p without -d stops when the target exits, and writes its profile
bg "$FIX/fix_tree" 1.5
start=$(date +%s%N)
timeout 10 "$CPUPROF" record -q -p $! -o "$TMP/d.folded" || fail "record -p did not end with its target"
ms=$((($(date +%s%N) - start) / 1000000))
note "-p ended ${ms} ms after start, when its 1.5 s target exited"
[ "$ms" -lt 5000 ] || fail "record -p took $ms ms for a 1.5 s target"
check_folded_grammar "$TMP/d.folded"
exit 0
