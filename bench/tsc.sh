#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tsc (TypeScript 5, its JavaScript compiler under the machine's node, no node flag for
# cpuprof) on a generated project (bench/gen_ts.py, LINES lines, 2500 by default), recorded by
# cpuprof with node's own --cpu-prof in the same run: the share of the samples in JS code (V8's
# builtins apart) whose innermost JS frame has a file and line, and node's top 10 JS functions by self time beside
# cpuprof's shares (bench/node_compare.py).
# Usage: bench/tsc.sh CPUPROF OUTDIR (root; npm installs typescript@5 into OUTDIR once).
# A figure, not a test.
set -eu
CPUPROF=$(realpath "$1")
OUT=$(mkdir -p "$2" && realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$OUT"
[ -f node_modules/typescript/lib/tsc.js ] || npm install --no-audit --no-fund typescript@5 >/dev/null
rm -rf proj cpu
python3 "$HERE/gen_ts.py" proj "${LINES:-2500}"
echo "tsc $(node node_modules/typescript/lib/tsc.js -v), node $(node --version), $(cat proj/src/*.ts | wc -l) lines"
"$CPUPROF" record -F 499 --lines -o tsc.folded -- node --cpu-prof --cpu-prof-dir=cpu \
	node_modules/typescript/lib/tsc.js -p proj 2>tsc.err
tail -n 3 tsc.err
python3 "$HERE/node_compare.py" tsc.folded cpu/*.cpuprofile
