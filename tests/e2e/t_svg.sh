#!/bin/bash
# SVG flame graphs (record -o x.svg, report -o, diff -o): well-formed XML (xmllint and python),
# 1200 px wide with the root frame 1180 px, and each function's frames as wide as its share of
# the folded output of the same recording; names that would break XML are escaped; a diff
# colours the grown function red; deep graphs say how tall they are, and very deep ones are cut.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null || fail "xmllint is missing (libxml2-utils)"

# checks FILE.svg [FOLDED FUNCTION...]: the widths of each FUNCTION's frames against FOLDED
svg_check() {
	xmllint --noout "$1" 2>"$TMP/xml.err" || fail "$1 is not well-formed XML: $(head -3 "$TMP/xml.err")"
	python3 - "$@" <<'PY' || fail "$1: widths do not match"
import re, sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
svg = sys.argv[1]
root = ET.parse(svg).getroot()
assert root.get("width") == "1200", root.get("width")
frames = {}
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    t, r = g.find("s:title", ns), g.find("s:rect", ns)
    if t is None or r is None:
        continue
    name = re.sub(r" \([0-9]+ samples, .*\)$", "", t.text)
    frames.setdefault(name, []).append(float(r.get("width")))
assert frames["all"] == [1180.0], frames.get("all")
if len(sys.argv) > 2:
    total, per = 0, {}
    for line in open(sys.argv[2]):
        stack, n = line.rsplit(" ", 1)
        total += int(n)
        for f in set(stack.split(";")[1:]):
            per[f] = per.get(f, 0) + int(n)
    for fn in sys.argv[3:]:
        want = 1180.0 * per[fn] / total
        got = sum(frames.get(fn, []))
        # one frame per path, each rounded to 0.1 px
        if abs(got - want) > 0.05 * len(frames.get(fn, [1])) + 0.01:
            sys.exit("%s: %s is %.2f px wide, the folded file says %.2f" % (svg, fn, got, want))
PY
}

# names that would break the XML, from a folded file
printf 'a<b;x&y "q" \047s\047;\302\265s \342\202\254 5\nfoo;bar baz 2\n' >"$TMP/odd.folded"
printf 'bad;\377\376 1\n' | iconv -f latin1 -t utf-8 >>"$TMP/odd.folded"
expect_status 0 "$CPUPROF" report -o "$TMP/odd.svg" "$TMP/odd.folded"
svg_check "$TMP/odd.svg"
grep -q 'x&amp;y &quot;q&quot; &apos;s&apos;' "$TMP/odd.svg" || fail "names not escaped"
grep -q 'µs €' "$TMP/odd.svg" || fail "UTF-8 names lost"
expect_status 0 "$CPUPROF" report --format svg tests/data/go_cpu.pb.gz
svg_check "$TMP/out"
grep -q '<title>main.hot (44 samples, 40.74%)</title>' "$TMP/out" || fail "Go profile: no main.hot frame"

# deep graphs: taller than a screen, the graph says so at its top; 65 000 levels (the readers
# allow 65 536) are cut to what an image a browser shows can hold, and it says how many were
seq -f 'f%g' 0 79 | paste -sd';' | sed 's/^/deep;/; s/$/ 7/' >"$TMP/d80.folded"
expect_status 0 "$CPUPROF" report -o "$TMP/d80.svg" "$TMP/d80.folded"
svg_check "$TMP/d80.svg"
grep -qE '<text x="600" y="44" text-anchor="middle">82 levels, 1[0-9]{3} px tall: the root is at the bottom</text>' "$TMP/d80.svg" ||
	fail "80-deep SVG does not say how tall it is: $(head -c 1200 "$TMP/d80.svg")"
python3 -c 'print(";".join(["deep"] + ["f%d" % i for i in range(65000)]), 10)' >"$TMP/d65k.folded"
expect_status 0 "$CPUPROF" report -o "$TMP/d65k.svg" "$TMP/d65k.folded"
svg_check "$TMP/d65k.svg"
height=$(sed -n 's/^<svg version="1.1" width="1200" height="\([0-9]*\)".*/\1/p' "$TMP/d65k.svg")
[ "${height:-0}" -gt 0 ] && [ "$height" -le 8192 ] || fail "65 000 levels: the SVG is ${height:-?} px tall"
grep -q 'the 64746 deepest of 65002 levels not drawn' "$TMP/d65k.svg" || fail "65 000 levels: the cut is not said"
grep -q '<title>f253 (10 samples' "$TMP/d65k.svg" && ! grep -q '<title>f254 (' "$TMP/d65k.svg" ||
	fail "65 000 levels: not the first 256 levels drawn"

require_bpf
expect_status 0 "$CPUPROF" record -q -F 499 -o "$TMP/p.svg" -o "$TMP/p.folded" -o "$TMP/p.pb.gz" -- "$FIX/fix_tree" 1
svg_check "$TMP/p.svg" "$TMP/p.folded" cp_fix_run cp_fix_heavy cp_fix_light
grep -q "<text x=\"10\" y=\"[0-9]*\">$(total "$TMP/p.folded") samples</text>" "$TMP/p.svg" || fail "no sample count"
expect_status 0 "$CPUPROF" report -o "$TMP/r.svg" "$TMP/p.pb.gz"
svg_check "$TMP/r.svg" "$TMP/p.folded" cp_fix_run cp_fix_heavy cp_fix_light
# kernel frames keep their colour mark in the name: orange, as in flamegraph.pl
if grep -q '_\[k\]' "$TMP/p.folded"; then
	grep -qE '_\[k\] \([0-9]+ samples.*fill="rgb\((19[0-9]|2[0-5][0-9]),(9[0-9]|1[0-5][0-9]),0\)"' "$TMP/p.svg" || fail "kernel frames not orange"
fi

# a differential graph: widths by NEW, the grown function red
mkdir -p "$TMP/a" "$TMP/b"
cp "$FIX/fix_diff_base" "$TMP/a/fix_diff"
cp "$FIX/fix_diff_slow" "$TMP/b/fix_diff"
expect_status 0 "$CPUPROF" record -q -F 499 -o "$TMP/base.folded" -- "$TMP/a/fix_diff" 1
expect_status 0 "$CPUPROF" record -q -F 499 -o "$TMP/new.folded" -- "$TMP/b/fix_diff" 1
expect_status 0 "$CPUPROF" diff -o "$TMP/d.svg" "$TMP/base.folded" "$TMP/new.folded"
svg_check "$TMP/d.svg" "$TMP/new.folded" cp_diff_parse cp_diff_render
grep -qE '<title>cp_diff_parse \([0-9]+ samples, [0-9.]+%; \+[0-9.]+ points\)</title><rect [^>]*fill="rgb\(255,' "$TMP/d.svg" ||
	fail "cp_diff_parse is not red: $(grep -o '<title>cp_diff_parse[^/]*' "$TMP/d.svg")"
grep -qE '<title>cp_diff_render \([0-9]+ samples, [0-9.]+%; -[0-9.]+ points\)</title><rect [^>]*fill="rgb\([0-9]+,[0-9]+,255\)' "$TMP/d.svg" ||
	fail "cp_diff_render is not blue"
exit 0
