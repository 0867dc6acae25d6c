#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-html: size and opening time of cpuprof's HTML flame graph for big profiles. Makes
# folded profiles of N distinct stacks (synthetic: 40 processes, stacks 10 to 60 frames deep
# through a random call graph of 4000 functions), writes them with cpuprof report -o x.html, and opens each
# in headless chromium (tests/e2e/html_check.js) REPS times, printing the file size (raw and
# gzipped), the node count, and min/median of the time from navigation to a drawn page (as the
# page measures it), of JSON.parse and of the page's whole script, with the 1-minute load
# average at each run, and the medians of the script's phases (the machine may be shared: compare figures taken at similar loads).
# usage: html.sh CPUPROF OUT
set -eu
CPUPROF=$(realpath "$1")
OUT=$2
REPS=${BENCH_REPS:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
for n in ${BENCH_HTML_STACKS:-5000 50000 200000}; do
	f=$OUT/html_$n.folded
	python3 - "$n" "$f" <<'PY'
import random, sys
n, path = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(14)
# a call graph: each function calls 2 to 6 others of the next level (4000 names), so that
# stacks share prefixes as real ones do
names = ["ns%d::fn_%d" % (i % 37, i) for i in range(4000)]
callees = {}
def calls(f, level):
    if (f, level) not in callees:
        callees[(f, level)] = [names[rnd.randint(0, 3999)] for _ in range(rnd.randint(2, 6))]
    return callees[(f, level)]
stacks, order = set(), []
while len(stacks) < n:
    if order and rnd.random() < 0.95:
        # most stacks differ from an earlier one in their last few frames only
        base = rnd.choice(order).split(";")
        s = base[:max(3, len(base) - rnd.randint(1, 8))]
    else:
        s = ["proc_%d" % rnd.randint(0, 39), "_start", "main"]
    while len(s) < 13 or (len(s) < 63 and rnd.random() < 0.9):
        s.append(rnd.choice(calls(s[-1], len(s))))
    t = ";".join(s)
    if t not in stacks:
        stacks.add(t)
        order.append(t)
with open(path, "w") as out:
    for s in sorted(stacks):
        out.write("%s %d\n" % (s, rnd.randint(1, 50)))
PY
	h=$OUT/html_$n.html
	"$CPUPROF" report -o "$h" "$f"
	size=$(wc -c <"$h")
	gz=$(gzip -c "$h" | wc -c)
	i=0
	: >"$OUT/html_$n.runs"
	while [ "$i" -lt "$REPS" ]; do
		load=$(cut -d' ' -f1 /proc/loadavg)
		node "$HERE/../tests/e2e/html_check.js" "$h" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert not d["errors"], d["errors"]
s = d["scriptMs"]
print(d["readyMs"], round(s["parse"]), round(s["total"]), d.get("nodes", -1), sys.argv[1],
      *(round(s.get(k, -1)) for k in ("start", "tree", "table", "draw")))' "$load" >>"$OUT/html_$n.runs"
		i=$((i + 1))
	done
	python3 - "$n" "$size" "$gz" "$OUT/html_$n.runs" <<'PY'
import statistics, sys
n, size, gz, runs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rows = [line.split() for line in open(runs)]
col = lambda k: [float(r[k]) for r in rows]
fmt = lambda v: "%d/%d" % (min(v), statistics.median(v))
print("html: %7d distinct stacks, %s nodes: %9d bytes (%d gzipped); ms min/median of %d: "
      "ready %s, JSON.parse %s, page script %s; load1 %s" % (
      n, rows[0][3], size, gz, len(rows), fmt(col(0)), fmt(col(1)), fmt(col(2)),
      ",".join(r[4] for r in rows)))
if len(rows[0]) > 5 and float(rows[0][5]) >= 0:
    print("      medians: page read %d ms, then JSON.parse %d, tree %d, table %d, draw %d" % tuple(
          statistics.median(col(k)) for k in (5, 1, 6, 7, 8)))
PY
done
