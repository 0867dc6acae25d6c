#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: profile the bundled demo program for a few seconds into an HTML flame graph and a
# folded file, then say where they are, show the top functions and how to open the graph.
# Usage: demo.sh CPUPROF DEMO_BINARY
set -eu
cpuprof=$1
demo=$2
html=demo-profile.html
folded=demo-profile.folded

if [ "$(id -u)" -ne 0 ]; then
	echo "make demo: recording needs root (or CAP_BPF and CAP_PERFMON): run 'sudo make demo'" >&2
	exit 77
fi
echo "Recording 5 s of $demo at 99 Hz..."
"$cpuprof" record -F 99 -o "$html" -o "$folded" -- "$demo" 5
echo
"$cpuprof" report -n 10 "$folded"
echo
echo "Flame graph: $(pwd)/$html"
echo "  open it with: xdg-open $html   (or copy the file to any machine with a browser:"
echo "  it is self-contained, no network needed); click a frame to zoom, type to search."
echo "Folded stacks: $(pwd)/$folded (for flamegraph.pl, speedscope, cpuprof report)"
