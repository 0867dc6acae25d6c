#!/bin/bash
# cpuprof diff: a program against a variant whose cp_diff_parse does 3x the work. The change of
# its total share agrees with the folded outputs (within 3 points); --fail-if on it exits 3 and
# names it, on functions that did not change exits 0; -o writes flamegraph.pl's difffolded
# layout, whose two columns are the two folded files; malformed expressions are usage errors.
. "$(dirname "$0")/lib.sh"

# both under one name, so that their stacks (process name first) line up in the diff
mkdir -p "$TMP/a" "$TMP/b"
cp "$FIX/fix_diff_base" "$TMP/a/fix_diff"
cp "$FIX/fix_diff_slow" "$TMP/b/fix_diff"

expect_status 64 "$CPUPROF" diff --fail-if 'total(x) > 5' "$TMP/a" "$TMP/b"
grep -q "needs a '%'" "$TMP/err" && grep -q '^Try' "$TMP/err" || fail "malformed --fail-if: $(cat "$TMP/err")"
expect_status 64 "$CPUPROF" diff --fail-if 'cpu(x) > +5%' "$TMP/a" "$TMP/b"
expect_status 64 "$CPUPROF" diff only-one.folded
expect_status 64 "$CPUPROF" diff -o "$TMP/d.svgz" a.folded b.folded

require_bpf
expect_status 0 "$CPUPROF" record -q -F 499 -o "$TMP/base.folded" -o "$TMP/base.pb.gz" -- "$TMP/a/fix_diff" 2
expect_status 0 "$CPUPROF" record -q -F 499 -o "$TMP/new.folded" -o "$TMP/new.json" -- "$TMP/b/fix_diff" 2
check_folded_grammar "$TMP/base.folded"
check_folded_grammar "$TMP/new.folded"

# the expected change in points, from the folded files
expected=$(awk -v a="$(count "$TMP/base.folded" ';cp_diff_parse(;| [0-9]+$)')" -v at="$(total "$TMP/base.folded")" \
	-v b="$(count "$TMP/new.folded" ';cp_diff_parse(;| [0-9]+$)')" -v bt="$(total "$TMP/new.folded")" \
	'BEGIN { printf "%.2f", 100 * b / bt - 100 * a / at }')
# 1/3 -> 3/5 of the work: about +27 points; the folded files say how much it really was
awk -v w="$expected" 'BEGIN { exit !(w > 15 && w < 35) }' || fail "the fixtures did not shift the share as designed: $expected points"

expect_status 0 "$CPUPROF" diff -n 0 "$TMP/base.pb.gz" "$TMP/new.json"
got=$(awk '$NF == "cp_diff_parse" { print $3 }' "$TMP/out")
[ -n "$got" ] || fail "no cp_diff_parse row: $(cat "$TMP/out")"
awk -v g="$got" -v w="$expected" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= 3) }' ||
	fail "cp_diff_parse changed by $got points, the folded outputs say $expected"
# the table is sorted by the size of the change: cp_diff_parse leads
[ "$(awk 'NR == 4 { print $NF }' "$TMP/out")" = cp_diff_parse ] || fail "first row: $(sed -n 4p "$TMP/out")"

# --fail-if: the grown function fails the job and is named; unchanged ones do not
expect_status 3 "$CPUPROF" diff --fail-if 'total(cp_diff_parse) > +10%' "$TMP/base.folded" "$TMP/new.folded"
grep -qE "^fail-if 'total\(cp_diff_parse\) > \+10%': cp_diff_parse total [0-9.]+% -> [0-9.]+% \(\+[0-9.]+ points\)$" "$TMP/err" ||
	fail "offending line: $(cat "$TMP/err")"
expect_status 0 "$CPUPROF" diff --fail-if 'total(main) > +10%' --fail-if 'total(cp_diff_run) < -10%' "$TMP/base.folded" "$TMP/new.folded"
[ ! -s "$TMP/err" ] || fail "unexpected messages: $(cat "$TMP/err")"
expect_status 3 "$CPUPROF" diff --fail-if 'total(main) > +10%' --fail-if 'samples < 100000' "$TMP/base.folded" "$TMP/new.folded"
[ "$(grep -c "^fail-if 'samples < 100000'" "$TMP/err")" -eq 2 ] || fail "samples: $(cat "$TMP/err")"
expect_status 0 "$CPUPROF" diff --fail-if 'total(no_such_function) > +1%' "$TMP/base.folded" "$TMP/new.folded"
grep -q "note: --fail-if 'total(no_such_function) > +1%': no function matches" "$TMP/err" || fail "no note for a pattern that matches nothing"

# JSON agrees with the text
expect_status 0 "$CPUPROF" diff --format json -n 1 "$TMP/base.folded" "$TMP/new.folded"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["rows"][0]; assert r["name"]=="cp_diff_parse" and abs(r["total_change"]-float(sys.argv[2]))<=3, d' \
	"$TMP/out" "$expected" || fail "JSON diff: $(cat "$TMP/out")"

# difffolded: columns 2 and 3 are the two folded files, line for line
expect_status 0 "$CPUPROF" diff -o "$TMP/d.folded" "$TMP/base.folded" "$TMP/new.folded"
LC_ALL=C grep -vcE '^[^;[:cntrl:]]+(;[^;[:cntrl:]]+)* [0-9]+ [0-9]+$' "$TMP/d.folded" | grep -qx 0 || fail "bad difffolded lines"
awk '$(NF-1) > 0 { $NF = ""; print }' "$TMP/d.folded" | sed 's/ $//' | LC_ALL=C sort >"$TMP/d.base"
awk '$NF > 0 { $(NF-1) = ""; print }' "$TMP/d.folded" | sed 's/  / /' | LC_ALL=C sort >"$TMP/d.new"
LC_ALL=C sort "$TMP/base.folded" | cmp -s - "$TMP/d.base" || fail "base column differs from base.folded"
LC_ALL=C sort "$TMP/new.folded" | cmp -s - "$TMP/d.new" || fail "new column differs from new.folded"
[ "$(grep -c ';cp_diff_parse;.* [1-9][0-9]* [1-9][0-9]*$' "$TMP/d.folded")" -ge 1 ] || fail "no stack in both columns"
exit 0
