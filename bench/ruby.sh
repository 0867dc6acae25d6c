#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Under Debian's ruby (3.1): the BPF time per recorded sample of cpuprof's sampling program
# (tail calls included: the Ruby and DWARF walkers run within its run) with --ruby and
# --no-ruby, and the share of samples in the script's code (tests/data/ruby/tree.rb) whose Ruby
# frames are an exact chain <main>;main_loop;outer;{hot|cold} (a C method last allowed).
# Usage: bench/ruby.sh CPUPROF OUTDIR (root; kernel.bpf_stats_enabled is set for the runs and
# put back; RUNS=N pairs of runs, default 3). A timing figure, not a test: the machine's load
# moves it.
set -eu
CPUPROF=$(realpath "$1")
OUT=$2
mkdir -p "$OUT"
RUBY=${RUBY:-$(command -v ruby)}
cp "$(dirname "$0")/../tests/data/ruby/tree.rb" "$OUT/tree.rb"
. "$(dirname "$0")/bpf_cost.sh"

# ns per recorded sample (all runs' time over the samples recorded), samples in the script,
# exact-chain share
run() {
	local flag=$1 out=$OUT/run.folded ab
	ab=$(record_cost "$CPUPROF" record -F 999 --lines "$flag" -o "$out" -- "$RUBY" "$OUT/tree.rb" 9 \
		2>"$OUT/run.err")
	grep 'tree\.rb:' "$out" | awk '{ n = split($0, f, ";"); c = $NF; ch = ""
		for (i = 1; i <= n; i++) if (f[i] ~ /^rb::/) {
			x = f[i]; sub(/^rb::/, "", x)
			if (x !~ / \(.*:[0-9]+\)/) x = "c:" x
			sub(/ \(.*$/, "", x); ch = ch ";" x }
		tot += c
		if (ch ~ /^;<main>(;main_loop(;outer(;(hot|cold))?)?)?(;c:[^;]+)?$/ && $0 ~ /;_start;/) ok += c
	} END { printf "%s %s\n", tot, tot ? 100 * ok / tot : 0 }' >"$OUT/share"
	echo "$ab $(cat "$OUT/share")" | awk '{
		rec = $6 - $3; printf "%6.0f %6d %5d %6.1f%%", rec ? ($4 - $1) / rec : 0, rec, $7, $8 }'
}

echo "cpuprof Ruby benchmark: $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ns/sample: $ENTRY run time (tail calls included) over samples recorded, 4 s at 999 Hz"
printf '%-22s %26s   %s\n' interpreter "--ruby: ns/sample n script exact" "--no-ruby: ns/sample n"
sysctl -q -w kernel.bpf_stats_enabled=1
# the two alternate, RUNS times (default 3): the load of a shared machine moves each figure
for _ in $(seq "${RUNS:-3}"); do
	on=$(run --ruby)
	off=$(run --no-ruby)
	printf '%-22s %s   %s\n' "ruby $("$RUBY" -e 'print RUBY_VERSION')" "$on" "$(echo "$off" | awk '{ print $1, $2 }')"
done
