#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench-html: size and opening time of cpuprof's HTML flame graph for big profiles. Makes
# folded profiles of N distinct stacks (synthetic: 40 processes, stacks 10 to 60 frames deep
# through a random call graph of 4000 functions), writes them with cpuprof report -o x.html, and opens each
# in headless chromium (tests/e2e/html_check.js), printing the file size and the time from
# navigation to a drawn page, as the page measures it (best of REPS).
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
	"$CPUPROF" report -o "$OUT/html_$n.html" "$f"
	best=""
	i=0
	while [ "$i" -lt "$REPS" ]; do
		ms=$(node "$HERE/../tests/e2e/html_check.js" "$OUT/html_$n.html" |
			python3 -c 'import json,sys; d=json.load(sys.stdin); assert not d["errors"], d["errors"]; print(d["readyMs"])')
		[ -z "$best" ] || [ "$ms" -lt "$best" ] && best=$ms
		i=$((i + 1))
	done
	printf 'html: %7d distinct stacks: %9d bytes, %6d nodes, opens in %5d ms (best of %d)\n' "$n" \
		"$(wc -c <"$OUT/html_$n.html")" \
		"$(grep -o '"kind":\[[^]]*\]' "$OUT/html_$n.html" | tr ',' '\n' | wc -l)" "$best" "$REPS"
done
