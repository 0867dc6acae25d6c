#!/bin/bash
# HTML flame graphs in headless chromium (offline, through the DevTools protocol): a 30 s
# system-wide recording opens with no console error and no network request; clicking a frame
# zooms to it with the samples the folded output of the same recording gives its path; a
# search prints the share of samples the folded output gives the regex; report -o and a diff
# open as well.
. "$(dirname "$0")/lib.sh"
command -v chromium >/dev/null || fail "chromium is missing (scripts/install-deps.sh installs it)"
command -v node >/dev/null || fail "node is missing (make node-deps)"
HERE=$(cd "$(dirname "$0")" && pwd)

browse() {
	node "$HERE/html_check.js" "$@" >"$TMP/page.json" 2>"$TMP/page.err" ||
		fail "html_check $*: $(tail -5 "$TMP/page.err")"
	python3 - "$TMP/page.json" <<'PY' || fail "$1: $(cat "$TMP/page.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["errors"] == [], d["errors"]
assert d["requests"] == [], d["requests"]
assert d["rows"] > 0
PY
}
field() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$TMP/page.json" "$1"
}

# a Go profile through report: the top table and a zoom on main.hot (44 samples)
expect_status 0 "$CPUPROF" report -o "$TMP/go.html" tests/data/go_cpu.pb.gz
browse "$TMP/go.html" --click main.hot --search '^main\.(hot|cold)$'
[ "$(field zoomed)" = "Zoomed: main.hot (44 samples, 40.74%)" ] || fail "Go zoom: $(field zoomed)"
[ "$(field matched)" = "Matched: 64.81% (70 of 108 samples)" ] || fail "Go search: $(field matched)"

require_bpf
bg "$FIX/fix_tree" 40
expect_status 0 "$CPUPROF" record -q -d 30s -o "$TMP/sys.html" -o "$TMP/sys.folded"
kill "$!" 2>/dev/null
check_folded_grammar "$TMP/sys.folded"
browse "$TMP/sys.html" --click cp_fix_heavy --search '^cp_fix_leaf$'
path=$(field clickedPath)
# the node's path without "all": the folded lines under it hold its samples
want=$(awk -v p="$path" '{ n = $NF; s = substr($0, 1, length($0) - length(n) - 1)
	if (s == p || index(s, p ";") == 1) t += n } END { print t + 0 }' "$TMP/sys.folded")
samples=$(field clickedSamples)
[ "$samples" -eq "$want" ] && [ "$want" -gt 0 ] || fail "clicked $path: page says $samples samples, folded $want"
share=$(awk -v a="$want" -v t="$(total "$TMP/sys.folded")" 'BEGIN { printf "%.2f", 100 * a / t }')
[ "$(field zoomed)" = "Zoomed: cp_fix_heavy ($want samples, $share%)" ] || fail "zoom: $(field zoomed), want $want samples, $share%"
m=$(awk '{ n = $NF; k = split(substr($0, 1, length($0) - length(n) - 1), f, ";")
	for (i = 2; i <= k; i++) if (f[i] == "cp_fix_leaf") { t += n; break } } END { print t + 0 }' "$TMP/sys.folded")
all=$(total "$TMP/sys.folded")
mshare=$(awk -v a="$m" -v t="$all" 'BEGIN { printf "%.2f", 100 * a / t }')
[ "$(field matched)" = "Matched: $mshare% ($m of $all samples)" ] || fail "search: $(field matched), want $m of $all"
echo "  html: 30 s system-wide, $(wc -c <"$TMP/sys.html") bytes, $(wc -l <"$TMP/sys.folded") stacks, ready in $(field readyMs) ms"

# a differential graph opens too
expect_status 0 "$CPUPROF" record -q -F 499 -o "$TMP/base.folded" -- "$FIX/fix_tree" 1
expect_status 0 "$CPUPROF" diff -o "$TMP/d.html" "$TMP/base.folded" "$TMP/sys.folded"
browse "$TMP/d.html"
case $(field title) in *" -> "*) ;; *) fail "diff title: $(field title)" ;; esac
exit 0
