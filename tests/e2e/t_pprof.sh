#!/bin/bash
# pprof output read back by a real reader (go tool pprof): stacks, labels, period, and totals
# equal to the folded output of the same recording.
. "$(dirname "$0")/lib.sh"
require_bpf
command -v go >/dev/null || fail "go is missing (scripts/install-deps.sh installs golang-go)"
export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=

pprof() {
	go tool pprof -symbolize=none "$@" 2>"$TMP/pprof.err" || fail "go tool pprof $*: $(cat "$TMP/pprof.err")"
}

# "-traces" blocks as lines "VALUE frame;frame;..." (leaf first)
traces() {
	pprof -sample_index=samples -traces "$1" | awk '
		/^-+\+-+$/ { if (s != "") print v, s; s = ""; v = ""; next }
		/^ +[a-z_]+: / { next }
		/^ +[0-9]+ +[^ ]/ { v = $1; s = $2; next }
		/^ +[^ ]/ && v != "" { s = s ";" $1 }
		END { if (s != "") print v, s }'
}

expect_status 0 "$CPUPROF" record -F 499 --per-thread -o "$TMP/p.pb.gz" -o "$TMP/p.folded" -- "$FIX/fix_tree" 2
check_folded_grammar "$TMP/p.folded"
[ "$(head -c 2 "$TMP/p.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzip"

pprof -raw "$TMP/p.pb.gz" >"$TMP/raw"
grep -qx 'PeriodType: cpu nanoseconds' "$TMP/raw" || fail "period type: $(grep Period "$TMP/raw")"
grep -qx 'Period: 2004008' "$TMP/raw" || fail "period for 499 Hz: $(grep Period: "$TMP/raw")"
grep -qx 'samples/count cpu/nanoseconds\[dflt\]' "$TMP/raw" || fail "sample types: $(grep -A1 Samples: "$TMP/raw")"
grep -q 'comm:\[fix_tree\]' "$TMP/raw" || fail "no comm label"
grep -qE 'pid:\[[0-9]+\]' "$TMP/raw" || fail "no numeric pid label"
grep -qE 'tid:\[[0-9]+\]' "$TMP/raw" || fail "no numeric tid label"
grep -q 'thread_name:\[fix_tree\]' "$TMP/raw" || fail "no thread_name label"
grep -qE '^Comment: cpuprof [0-9.]+; cpu-clock at 499 Hz$' "$TMP/raw" || fail "no version comment"
grep -qE '^Comment: cpuprof record -F 499 --per-thread -o ' "$TMP/raw" || fail "no command-line comment"
# the fixture's own mapping (built with -g): build-id and functions; files, lines and inline
# frames too unless a start-up sample landed in _start (crt1.o has no DWARF)
grep -qE '^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ .*/fix_tree [0-9a-f]{40} \[FN\](\[FL\]\[LN\]\[IN\])?$' "$TMP/raw" ||
	fail "fix_tree mapping: $(awk '/^Mappings/,0' "$TMP/raw")"
grep -qE '^[0-9]+: 0xffff800000000000/0xffffffffffffffff/0x0 \[kernel.kallsyms\]' "$TMP/raw" ||
	grep -q '_\[k\]' "$TMP/p.folded" && ! grep -q 'kernel.kallsyms' "$TMP/raw" && fail "no kernel mapping"

# totals: samples/count over every sample equals the folded total of the same recording
raw_total=$(awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 } on && /^ +[0-9]+ +[0-9]+:/ { s += $1 } END { print s + 0 }' "$TMP/raw")
folded_total=$(total "$TMP/p.folded")
note "pprof total $raw_total samples, folded total $folded_total"
[ "$raw_total" -eq "$folded_total" ] || fail "pprof total $raw_total != folded total $folded_total"

# stacks: each branch of the tree carries the same samples in both outputs
traces "$TMP/p.pb.gz" >"$TMP/traces"
for branch in heavy light; do
	p=$(grep -E "(^| |;)cp_fix_leaf;cp_fix_$branch;cp_fix_run;main(;|$)" "$TMP/traces" | awk '{ s += $1 } END { print s + 0 }')
	f=$(count "$TMP/p.folded" ";main;cp_fix_run;cp_fix_$branch;cp_fix_leaf( |;)")
	note "$branch: pprof $p, folded $f"
	[ "$p" -eq "$f" ] && [ "$p" -gt 0 ] || fail "$branch branch: pprof $p != folded $f"
done
# leaf first in pprof: the reverse order never appears
grep -qE 'main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf' "$TMP/traces" && fail "pprof stacks are root first"

# top, as a user sees it
pprof -top "$TMP/p.pb.gz" >"$TMP/top"
grep -qE '^ +[0-9.]+(ms|s) +[0-9.]+% .* cp_fix_leaf$' "$TMP/top" || fail "-top: $(cat "$TMP/top")"

# binary data is not written to a terminal; an unknown format is refused
if command -v script >/dev/null; then
	script -qec "$CPUPROF record --format pprof -d 1s" /dev/null >"$TMP/tty"
	grep -q 'refusing to write pprof' "$TMP/tty" || fail "pprof to a terminal: $(cat "$TMP/tty")"
fi
exit 0
