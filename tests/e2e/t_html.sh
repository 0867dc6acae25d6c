#!/bin/bash
# HTML flame graphs in headless chromium (offline, through the DevTools protocol): a 30 s
# system-wide recording opens with no console error and no network request; clicking a frame
# zooms to it with the samples the folded output of the same recording gives its path; a
# search prints the share of samples the folded output gives the regex; report -o and a diff
# open as well; the first screen of an 80-deep profile shows its root and widest frames, and a
# 65 000-deep one draws.
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

# The first screen of a deep profile (80 levels, node-like names, at 1400x900): the root and
# the three widest frames are on it with their whole names, no name of the table is cut.
python3 - >"$TMP/deep.folded" <<'PY'
chain = ["node", "_start", "__libc_start_main", "node::Start(int, char**)",
         "node::NodeMainInstance::Run()", "node::LoadEnvironment(node::Environment*)"]
v8 = ["v8::internal::Execution::Call", "v8::internal::Builtins_JSEntry",
      "v8::internal::compiler::PipelineImpl::OptimizeGraph", "v8::internal::Runtime_CompileLazy"]
while len(chain) < 70:
    chain.append("%s_%02d" % (v8[len(chain) % 4], len(chain)))
print(";".join(chain + ["JS:heavyFunction", "JS:leafA"]), 600)
print(";".join(chain + ["JS:lightFunction"] + ["JS:inner_%02d" % k for k in range(9)]), 300)
print(";".join(chain[:40] + ["v8::internal::Heap::CollectGarbage", "v8::internal::MarkCompactCollector::MarkLiveObjects"]), 100)
PY
# the three widest frames but the root, the shallowest first among equals
widest=$(python3 - "$TMP/deep.folded" <<'PY'
import sys
tot = {}
for line in open(sys.argv[1]):
    stack, n = line.rsplit(" ", 1)
    for d, f in enumerate(stack.split(";")):
        k = (d, f)
        tot[k] = tot.get(k, 0) + int(n)
print(",".join(f for (d, f), n in sorted(tot.items(), key=lambda kv: (-kv[1], kv[0][0]))[:3]))
PY
)
expect_status 0 "$CPUPROF" report -o "$TMP/deep.html" "$TMP/deep.folded"
browse "$TMP/deep.html" --window 1400x900 --visible "all,$widest" --screenshot "$TMP/deep.png"
python3 - "$TMP/page.json" "all,$widest" <<'PY' || fail "deep profile's first screen: $(cat "$TMP/page.json")"
import json, sys
d = json.load(open(sys.argv[1]))
for name in sys.argv[2].split(","):
    assert d["visible"][name] == "shown", (name, d["visible"][name])
assert d["view"]["maxDepth"] == 80, d["view"]
assert d["namesCut"] == [], d["namesCut"]
PY
[ -s "$TMP/deep.png" ] || fail "no screenshot of the deep profile"
# 65 000 levels (the readers allow 65 536): drawn in a canvas a browser can show, the root on
# the first screen, the levels not drawn said
python3 -c 'print(";".join(["deep"] + ["f%d" % i for i in range(65000)]), 10); print("shallow;main;work 5")' >"$TMP/d65k.folded"
expect_status 0 "$CPUPROF" report -o "$TMP/d65k.html" "$TMP/d65k.folded"
browse "$TMP/d65k.html" --window 1400x900 --visible all,deep,f0 --click f250
python3 - "$TMP/page.json" <<'PY' || fail "65 000 levels: $(cut -c1-600 "$TMP/page.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(v == "shown" for v in d["visible"].values()), d["visible"]
v = d["view"]
assert v["maxDepth"] == 65001 and v["height"] <= 8192, v
assert "64746 deeper not drawn" in v["note"], v["note"]
assert d["zoomed"] == "Zoomed: f250 (10 samples, 66.67%)", d["zoomed"]
PY

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
