#!/bin/bash
# stderr carries the summary: one short line, then only indented lines, each a "reason
# COUNT" list (a progress line only on a terminal); -q silences it;
# stdout carries nothing but the profile; version; -p ends when its target exits; --help's
# command list is aligned.
. "$(dirname "$0")/lib.sh"

# cpuprof --help: every command's summary starts in the same column (unwind-table included)
cols=$("$CPUPROF" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
	on { match($0, /^  [^ ]+ +/); print RLENGTH }' | sort -u)
[ "$(printf '%s\n' "$cols" | wc -l)" -eq 1 ] && [ "$cols" -gt 3 ] ||
	fail "--help: the command summaries are not aligned: $("$CPUPROF" --help | sed -n '/^Commands:/,/^$/p')"

require_bpf

# (the fixture's own "fix_shared: cpu X s" line is left out)
"$CPUPROF" record -o "$TMP/a.folded" -- "$FIX/fix_shared" 1.2 >"$TMP/out" 2>"$TMP/all.err" || fail "record failed"
grep -v '^fix_shared: cpu ' "$TMP/all.err" >"$TMP/err"
[ -s "$TMP/out" ] && fail "stdout is not empty with -o: $(head -c 200 "$TMP/out")"
head -1 "$TMP/err" | grep -qE '^cpuprof: [0-9]+ samples from 1 process in [0-9.]+ s written to .*a\.folded(; [0-9.]+% of user stacks complete)?$' ||
	fail "summary line: $(cat "$TMP/err")"
[ "$(head -1 "$TMP/err" | wc -c)" -le 160 ] || fail "the first summary line is long: $(head -1 "$TMP/err")"
tail -n +2 "$TMP/err" | grep -vqE '^  (samples left out|with lost or unnamed frames): [^,]+ [0-9]+(, [^,]+ [0-9]+)*$' &&
	fail "a summary line that is not an indented list: $(cat "$TMP/err")"

"$CPUPROF" record -q -o "$TMP/b.folded" -- "$FIX/fix_shared" 0.3 2>"$TMP/all.err" || fail "record -q failed"
grep -v '^fix_shared: cpu ' "$TMP/all.err" >"$TMP/err"
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

# -F above what sampling can sustain is capped with one warning, and the kernel really
# samples at the capped rate: a process gets at most one sample per 1/RATE s of its CPU time
# (at 100 kHz the BPF program's own cost took both CPUs and -d 1s ran for 8.5 s)
cap=20000
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo $cap)
[ "$max" -lt "$cap" ] && cap=$max
timeout -s KILL 120 "$CPUPROF" record -F 100000 -o "$TMP/f.folded" -- "$FIX/fix_tree" 0.5 2>"$TMP/err" ||
	fail "record -F 100000: $(cat "$TMP/err")"
[ "$(grep -c 'sampling at [0-9]* Hz' "$TMP/err")" -eq 1 ] || fail "-F 100000: no one warning: $(cat "$TMP/err")"
n=$(count "$TMP/f.folded" '^fix_tree;')
cpu=$(fixture_cpu "$TMP/err" fix_tree) || exit 1
most=$(awk -v c="$cpu" -v f="$cap" 'BEGIN { printf "%d", 1.5 * c * f + 10 }')
note "-F 100000, capped at $cap Hz: $n fix_tree samples for $cpu s of CPU (at most $most)"
[ "$n" -ge 1 ] && [ "$n" -le "$most" ] || fail "-F 100000: $n samples for $cpu s of CPU (capped at $cap Hz: 1..$most, 1.5 times the cap)"

# -p without -d stops when the target exits, and writes its profile: the target ends once
# sampling runs (the 120 s only catch a recording that never ends)
bg "$FIX/fix_tree" 600 2>/dev/null
target=$!
start_recording -p "$target" -o "$TMP/d.folded"
c0=$(cpu_now "$target") || exit 1
for _ in $(seq 600); do # until it was sampled: 0.2 s of CPU
	awk -v a="$c0" -v b="$(cpu_now "$target")" 'BEGIN { exit !(b - a >= 0.2) }' && break
	sleep 0.1
done
kill "$target"
for _ in $(seq 1200); do kill -0 "$REC" 2>/dev/null || break; sleep 0.1; done
kill -0 "$REC" 2>/dev/null && fail "record -p did not end when its target exited: $(cat "$TMP/rec.err")"
wait "$REC" || fail "record -p: $(cat "$TMP/rec.err")"
check_folded_grammar "$TMP/d.folded"
exit 0
