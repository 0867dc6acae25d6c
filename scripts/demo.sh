#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: profile the bundled demo program for a few seconds, then show where the profile is
# and its top functions. Usage: demo.sh CPUPROF DEMO_BINARY
set -eu
cpuprof=$1
demo=$2
out=demo-profile.folded

if [ "$(id -u)" -ne 0 ]; then
	echo "make demo: recording needs root (or CAP_BPF and CAP_PERFMON): run 'sudo make demo'" >&2
	exit 77
fi
echo "Recording 5 s of $demo at 99 Hz..."
"$cpuprof" record -F 99 -o "$out" -- "$demo" 5
echo
echo "Profile: $(pwd)/$out ($(wc -l <"$out") distinct stacks, folded format:"
echo "  flamegraph.pl $out > demo.svg   or open it in https://www.speedscope.app)"
echo
echo "Top functions by samples where they were running (self) and on the stack (total):"
awk '
{
	n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); all += n
	self[f[k]] += n
	delete seen
	for (i = 2; i <= k; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; tot[f[i]] += n }
}
END {
	for (s in tot) printf "%7.1f%% %7.1f%%  %s\n", 100 * self[s] / all, 100 * tot[s] / all, s
}' "$out" | sort -k1,1nr -k2,2nr | head -10 | { printf '%8s %8s  %s\n' self total function; cat; }
