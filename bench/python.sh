#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Per CPython on the machine (pyenv's versions, Debian's /usr/bin/python3.11): the BPF time per
# recorded sample of cpuprof's sampling program (tail calls included: the Python and DWARF
# walkers run within its run) with --python and --no-python, and the share of samples in the
# script's code whose Python frames are an exact chain <module>;main;outer;{hot|cold}.
# Usage: bench/python.sh CPUPROF OUTDIR (root; kernel.bpf_stats_enabled is set for the runs
# and put back). A timing figure, not a test: the machine's load moves it.
set -eu
CPUPROF=$(realpath "$1")
OUT=$2
mkdir -p "$OUT"
PYENV_VERSIONS=${PYENV_ROOT:-${HOME:-/root}/.pyenv}/versions
cp "$(dirname "$0")/../tests/data/python/tree.py" "$OUT/tree.py"

. "$(dirname "$0")/bpf_cost.sh"

# ns per recorded sample (all runs' time over the samples recorded: runs of other processes,
# filtered out early, are charged to them), exact-chain share
run() {
	local py=$1 flag=$2 out=$OUT/run.folded ab
	ab=$(record_cost "$CPUPROF" record -F 999 --lines "$flag" -o "$out" -- "$py" "$OUT/tree.py" 9 \
		2>"$OUT/run.err")
	grep 'tree\.py:' "$out" | awk '{ n = split($0, f, ";"); c = $NF; ch = ""
		for (i = 1; i <= n; i++) if (f[i] ~ /^py::/) {
			x = f[i]; sub(/^py::/, "", x); sub(/ \(.*$/, "", x); ch = ch ";" x }
		tot += c; if (ch ~ /^;<module>(;main(;outer(;(hot|cold))?)?)?$/) ok += c
	} END { printf "%s %s\n", tot, tot ? 100 * ok / tot : 0 }' >"$OUT/share"
	echo "$ab $(cat "$OUT/share")" | awk '{
		rec = $6 - $3; printf "%6.0f %6d %5d %6.1f%%", rec ? ($4 - $1) / rec : 0, rec, $7, $8 }'
}

echo "cpuprof Python benchmark: $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ns/sample: $ENTRY run time (tail calls included) over samples recorded, 4 s at 999 Hz"
printf '%-22s %26s   %s\n' interpreter "--python: ns/sample n script exact" "--no-python: ns/sample n"
sysctl -q -w kernel.bpf_stats_enabled=1
pys=()
for d in "$PYENV_VERSIONS"/*; do
	v=$(basename "$d")
	v=${v%.*}
	[ -x "$d/bin/python$v" ] && pys+=("$d/bin/python$v")
done
[ -x /usr/bin/python3.11 ] && pys+=(/usr/bin/python3.11)
for py in "${pys[@]}"; do
	on=$(run "$py" --python)
	off=$(run "$py" --no-python)
	printf '%-22s %s   %s\n' "$("$py" -c 'import sys; print(sys.version.split()[0])' 2>&1) ${py#/usr/bin/}" \
		"$on" "$(echo "$off" | awk '{ print $1, $2 }')"
done
