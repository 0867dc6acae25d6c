#!/bin/bash
# cpuprof report: the same top functions as go tool pprof -top on Go runtime/pprof profiles
# (the committed one and a fresh one); the same table from the pprof, JSON and folded files of
# one recording, with shares that match the folded counts; filters; errors.
. "$(dirname "$0")/lib.sh"
command -v go >/dev/null || fail "go is missing (scripts/install-deps.sh installs golang-go)"
export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=

# "name self% total%" per function, from both tools, sorted by name
ours() {
	"$CPUPROF" report -n 0 "$1" >"$TMP/ours.txt" 2>"$TMP/ours.err" || fail "report $1: $(cat "$TMP/ours.err")"
	awk 'NR > 2 { print $5, $2, $4 }' "$TMP/ours.txt" | sort
}
theirs() {
	go tool pprof -top -nodecount=100000 -nodefraction=0 "$1" 2>/dev/null |
		awk 'f { print $6, $2, $5 } /flat%/ { f = 1 }' | sed 's/\([0-9]\)% /\1.00% /g; s/ \([0-9]*\)%$/ \1.00%/' | sort
}
same_as_pprof() {
	ours "$1" >"$TMP/a"
	theirs "$1" >"$TMP/b"
	[ -s "$TMP/b" ] || fail "go tool pprof printed nothing for $1"
	# pprof prints 100% and 0% without decimals; compare numerically
	paste -d' ' "$TMP/a" "$TMP/b" | awk '$1 != $4 || $2 + 0 != $5 + 0 || $3 + 0 != $6 + 0 { bad = 1; print }
		END { exit bad }' >"$TMP/diff" ||
		fail "report of $1 differs from go tool pprof -top: $(head -3 "$TMP/diff"); ours: $(cat "$TMP/a"); pprof: $(cat "$TMP/b")"
	[ "$(wc -l <"$TMP/a")" -eq "$(wc -l <"$TMP/b")" ] || fail "row counts differ for $1"
	[ "${2:-}" = order ] || return 0
	# and the same order of the functions with self samples (not on a fresh profile: pprof's
	# -nodecount keeps nodes by its own rank, so a function with 1 self sample comes and goes)
	"$CPUPROF" report -n 3 "$1" | awk 'NR > 2 && $1 > 0 { print $5 }' >"$TMP/top_ours"
	go tool pprof -top -nodecount=3 "$1" 2>/dev/null | awk 'f && $1 != "0" { print $6 } /flat%/ { f = 1 }' >"$TMP/top_theirs"
	cmp -s "$TMP/top_ours" "$TMP/top_theirs" || fail "top order: $(cat "$TMP/top_ours") vs $(cat "$TMP/top_theirs")"
}

same_as_pprof tests/data/go_cpu.pb.gz order
scripts/gen-go-pprof.sh "$TMP/fresh.pb.gz" >/dev/null || fail "scripts/gen-go-pprof.sh failed"
same_as_pprof "$TMP/fresh.pb.gz"
grep -q 'main.hot' "$TMP/a" || fail "no main.hot in the fresh profile: $(cat "$TMP/a")"

# JSON: numbers agree with the text table
"$CPUPROF" report --format json -n 2 tests/data/go_cpu.pb.gz >"$TMP/r.json" || fail "report --format json"
python3 - "$TMP/r.json" <<'PY' || fail "JSON report: $(cat "$TMP/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "pprof" and d["by"] == "function" and d["samples"] == 108, d
assert [r["name"] for r in d["rows"]] == ["main.spin", "runtime.asyncPreempt"], d["rows"]
assert d["rows"][0]["self"] == 81 and d["rows"][0]["self_pct"] == 75.0 and d["rows"][0]["total_pct"] == 100.0
PY
"$CPUPROF" report --by file tests/data/go_cpu.pb.gz | grep -qE ' 100\.00%  .*/burn\.go$' || fail "--by file: $("$CPUPROF" report --by file tests/data/go_cpu.pb.gz)"
"$CPUPROF" report --by line tests/data/go_cpu.pb.gz | grep -qE '  main\.spin burn\.go:[0-9]+$' || fail "--by line"
# --focus keeps the samples through main.hot; shares stay of all samples
"$CPUPROF" report --focus '^main\.hot$' tests/data/go_cpu.pb.gz >"$TMP/focus" || fail "--focus"
grep -q '108 samples, 44 matching --focus' "$TMP/focus" || fail "--focus header: $(head -1 "$TMP/focus")"
grep -qE '^ +0 +0\.00% +44 +40\.74%  main\.hot$' "$TMP/focus" || fail "--focus rows: $(cat "$TMP/focus")"
grep -q 'main.cold' "$TMP/focus" && fail "--focus kept main.cold"

# errors: one line each, documented statuses
head -c 300 tests/data/go_cpu.pb.gz >"$TMP/cut.pb.gz"
expect_status 65 "$CPUPROF" report "$TMP/cut.pb.gz"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q 'truncated' "$TMP/err" || fail "truncated file: $(cat "$TMP/err")"
printf 'a;b 1\nnonsense\n' >"$TMP/bad.folded"
expect_status 65 "$CPUPROF" report "$TMP/bad.folded"
grep -q 'line 2' "$TMP/err" || fail "bad folded: $(cat "$TMP/err")"
expect_status 66 "$CPUPROF" report "$TMP/missing.pb.gz"
expect_status 64 "$CPUPROF" report --by module tests/data/go_cpu.pb.gz
grep -q "^Try" "$TMP/err" || fail "no Try line: $(cat "$TMP/err")"
expect_status 64 "$CPUPROF" report
expect_status 64 "$CPUPROF" report --focus '(' tests/data/go_cpu.pb.gz

# memory proportional to the input (issue 23): a 20 MB speedscope file is read in place, not
# made into a tree of values (that cost 8.7 times the text); at most 4 times its size. ASan's
# shadow memory and quarantine would count too: not measured on an ASan binary.
if ! ldd "$CPUPROF" 2>/dev/null | grep -q libasan; then
	python3 bench/gen_readers.py json 20 "$TMP/big.json" || fail "gen_readers.py"
	/usr/bin/time -f %M -o "$TMP/rss" "$CPUPROF" report -n 1 "$TMP/big.json" >"$TMP/big.top" ||
		fail "report of a 20 MB speedscope file"
	size=$(stat -c %s "$TMP/big.json")
	[ $(($(cat "$TMP/rss") * 1024)) -le $((4 * size)) ] ||
		fail "report of a $((size >> 20)) MiB JSON file peaked at $(($(cat "$TMP/rss") >> 10)) MiB RSS, more than 4 times its size"
	rm -f "$TMP/big.json"
	# every frame distinct: the profile's frames are most of the memory (a struct of 80 bytes,
	# its index and an interned name made 14 times the 13 bytes of a frame in the file)
	python3 bench/gen_readers.py unique 24 "$TMP/uniq.folded" || fail "gen_readers.py"
	/usr/bin/time -f %M -o "$TMP/rss" "$CPUPROF" report -n 3 "$TMP/uniq.folded" >"$TMP/uniq.top" ||
		fail "report of a 24 MB folded file of distinct frames"
	[ "$(grep -c ' f_[0-9a-f]*$' "$TMP/uniq.top")" -eq 3 ] || fail "distinct frames: $(cat "$TMP/uniq.top")"
	size=$(stat -c %s "$TMP/uniq.folded")
	[ $(($(cat "$TMP/rss") * 1024)) -le $((4 * size)) ] ||
		fail "report of a $((size >> 20)) MiB folded file of distinct frames peaked at $(($(cat "$TMP/rss") >> 10)) MiB RSS, more than 4 times its size"
	rm -f "$TMP/uniq.folded"
fi

# a recording of our own, in three formats: one table, shares as in the folded counts
[ "$(id -u)" -eq 0 ] && [ -r /sys/kernel/btf/vmlinux ] || skip "the rest needs root and BTF"
require_bpf
expect_status 0 "$CPUPROF" record -q -F 499 -o "$TMP/r.pb.gz" -o "$TMP/r.json" -o "$TMP/r.folded" -- "$FIX/fix_tree" 1
for f in r.pb.gz r.json r.folded; do
	# frames without a symbol are named by address, and pprof keeps the call's address
	# (return address - 1): those rows differ by design
	"$CPUPROF" report -n 0 "$TMP/$f" | tail -n +2 | grep -vE '\+0x[0-9a-f]+$' >"$TMP/$f.top" || fail "report $f"
done
# the header says what the seconds are: CPU time of the samples, and the recording's wall time
for f in r.pb.gz r.json; do # (the folded format has no times)
	"$CPUPROF" report -n 1 "$TMP/$f" | head -1 | grep -qE ' samples \([0-9.]+ CPU seconds at [0-9.]+ ms a sample, recorded over [0-9.]+ s\)$' ||
		fail "report header of $f: $("$CPUPROF" report -n 1 "$TMP/$f" | head -1)"
done
cmp -s "$TMP/r.pb.gz.top" "$TMP/r.folded.top" || fail "pprof and folded tables differ: $(diff "$TMP/r.pb.gz.top" "$TMP/r.folded.top" | head -5)"
cmp -s "$TMP/r.json.top" "$TMP/r.folded.top" || fail "JSON and folded tables differ: $(diff "$TMP/r.json.top" "$TMP/r.folded.top" | head -5)"
all=$(total "$TMP/r.folded")
heavy=$(count "$TMP/r.folded" ';cp_fix_heavy(;| [0-9]+$)')
row=$(awk '$5 == "cp_fix_heavy" { print $3 }' "$TMP/r.folded.top")
[ "$row" = "$heavy" ] || fail "cp_fix_heavy total $row, folded says $heavy of $all"
leaf_self=$(count "$TMP/r.folded" ';cp_fix_leaf$|;cp_fix_leaf [0-9]+$')
"$CPUPROF" report -n 0 "$TMP/r.folded" | awk -v w="$leaf_self" '$5 == "cp_fix_leaf" && $1 != w { exit 1 }' ||
	fail "cp_fix_leaf self differs from the folded counts ($leaf_self)"
"$CPUPROF" report --by process -n 0 "$TMP/r.pb.gz" | grep -qE "^ +$all +100\.00% +$all +100\.00%  fix_tree \(pid [0-9]+\)$" ||
	fail "--by process: $("$CPUPROF" report --by process "$TMP/r.pb.gz")"
pid=$("$CPUPROF" report --by process "$TMP/r.pb.gz" | sed -n 's/.*(pid \([0-9]*\))$/\1/p' | head -1)
"$CPUPROF" report --pid "$pid" "$TMP/r.pb.gz" | grep -q ": pprof, $all samples" || fail "--pid $pid"
"$CPUPROF" report --pid 1 "$TMP/r.pb.gz" | grep -q ": pprof, 0 samples" || fail "--pid 1 kept samples"
"$CPUPROF" report --comm '^fix_' "$TMP/r.json" | grep -q ": json, $all samples" || fail "--comm"
# --by file: kernel frames under [kernel.kallsyms], bracketed once
expect_status 0 "$CPUPROF" record -q -F 499 -o "$TMP/k.pb.gz" -- "$FIX/fix_syscall" 1
"$CPUPROF" report --by file -n 0 "$TMP/k.pb.gz" >"$TMP/kfile" || fail "report --by file"
grep -qE '  \[kernel\.kallsyms\]$' "$TMP/kfile" || fail "--by file: no [kernel.kallsyms] row: $(cat "$TMP/kfile")"
! grep -qF '[[' "$TMP/kfile" || fail "--by file: doubled brackets: $(grep -F '[[' "$TMP/kfile")"
exit 0
