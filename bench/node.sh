#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Under the machine's node: the BPF time per recorded sample of cpuprof's sampling program (tail
# calls included: the native walk with V8's step of the JIT hook, and V8's program storing and
# naming the frames) with --node and without (--no-node), and the share of the samples in the
# leaves of tests/fixtures/fix_tree.js whose JS frames are the whole chain
# main;run;heavy|light;leafA|leafB under node::Start.
# Usage: bench/node.sh CPUPROF OUTDIR (root; kernel.bpf_stats_enabled is set for the runs and
# put back; RUNS=N pairs of runs, default 3). A timing figure, not a test: the machine's load
# moves it.
set -eu
CPUPROF=$(realpath "$1")
OUT=$2
mkdir -p "$OUT"
NODE=${NODE:-$(command -v node)}
cp "$(dirname "$0")/../tests/fixtures/fix_tree.js" "$OUT/"
. "$(dirname "$0")/bpf_cost.sh"

# run FLAG: ns per recorded sample, samples recorded, samples in the leaves, whole-chain share
run() {
	local out=$OUT/run.folded ab
	# the script's "up" not in the figures
	ab=$(record_cost "$CPUPROF" record -F 999 "$1" -o "$out" -- sh -c 'exec "$0" "$1" 9 >/dev/null' \
		"$NODE" "$OUT/fix_tree.js" 2>"$OUT/run.err")
	awk '/js::leaf[AB] [0-9]+$/ { tot += $NF
		if ($0 ~ /;node::Start\(int, char\*\*\);.*;js::main;js::run;js::(heavy;js::leafA|light;js::leafB) [0-9]+$/) ok += $NF
	} END { printf "%s %s\n", tot + 0, tot ? 100 * ok / tot : 0 }' "$out" >"$OUT/share"
	echo "$ab $(cat "$OUT/share")" | awk '{
		rec = $6 - $3; printf "%6.0f %6d %5d %6.1f%%", rec ? ($4 - $1) / rec : 0, rec, $7, $8 }'
}

echo "cpuprof node benchmark: $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ns/sample: $ENTRY run time (tail calls included) over samples recorded, 4 s at 999 Hz"
printf '%-14s %32s   %s\n' runtime "walker on: ns/sample n leaf whole" "off: ns/sample n"
sysctl -q -w kernel.bpf_stats_enabled=1
for _ in $(seq "${RUNS:-3}"); do
	on=$(run --node)
	off=$(run --no-node)
	printf '%-14s %s   %s\n' "node $("$NODE" --version)" "$on" "$(echo "$off" | awk '{ print $1, $2 }')"
done
