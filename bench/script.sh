#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Under Debian's php8.2 and perl: the BPF time per recorded sample of cpuprof's sampling program
# (tail calls included: the PHP or Perl walker and the DWARF walker run within its run) with
# --php / --perl and without (--no-php / --no-perl), and the share of the samples in Work::leaf
# of the tree scripts (tests/data/php/tree.php, tests/data/perl/tree.pl) whose script frames are
# the whole chain main;run;Work::heavy|light;Work::leaf.
# Usage: bench/script.sh CPUPROF OUTDIR (root; kernel.bpf_stats_enabled is set for the runs and
# put back; RUNS=N pairs of runs, default 3). A timing figure, not a test: the machine's load
# moves it.
set -eu
CPUPROF=$(realpath "$1")
OUT=$2
mkdir -p "$OUT"
PHP=${PHP:-$(command -v php8.2)}
PERL=${PERL:-$(command -v perl)}
cp "$(dirname "$0")/../tests/data/php/tree.php" "$(dirname "$0")/../tests/data/perl/tree.pl" "$OUT/"
. "$(dirname "$0")/bpf_cost.sh"

# run FLAG PREFIX INTERPRETER SCRIPT: ns per recorded sample, samples recorded, samples in the
# leaf, whole-chain share
run() {
	local flag=$1 p=$2 out=$OUT/run.folded ab
	ab=$(record_cost "$CPUPROF" record -F 999 "$flag" -o "$out" -- "$3" "$OUT/$4" 9 2>"$OUT/run.err")
	awk -v p="$p::" '{ n = split($0, f, ";"); c = $NF; ch = ""
		for (i = 1; i <= n; i++) if (index(f[i], p) == 1) {
			x = substr(f[i], length(p) + 1); sub(/ [0-9]+$/, "", x); ch = ch ";" x }
		if (ch !~ /;Work::leaf$/) next
		tot += c
		if (ch ~ /^;(\{main\}|<main>);(main::)?main;(main::)?run;Work::(heavy|light);Work::leaf$/ && $0 ~ /;_start;/) ok += c
	} END { printf "%s %s\n", tot + 0, tot ? 100 * ok / tot : 0 }' "$out" >"$OUT/share"
	echo "$ab $(cat "$OUT/share")" | awk '{
		rec = $6 - $3; printf "%6.0f %6d %5d %6.1f%%", rec ? ($4 - $1) / rec : 0, rec, $7, $8 }'
}

echo "cpuprof PHP and Perl benchmark: $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ns/sample: $ENTRY run time (tail calls included) over samples recorded, 4 s at 999 Hz"
printf '%-14s %32s   %s\n' interpreter "walker on: ns/sample n leaf whole" "off: ns/sample n"
sysctl -q -w kernel.bpf_stats_enabled=1
# on and off alternate, RUNS times (default 3): the load of a shared machine moves each figure
for _ in $(seq "${RUNS:-3}"); do
	on=$(run --php php "$PHP" tree.php)
	off=$(run --no-php php "$PHP" tree.php)
	printf '%-14s %s   %s\n' "php $("$PHP" -r 'echo PHP_VERSION;')" "$on" "$(echo "$off" | awk '{ print $1, $2 }')"
	on=$(run --perl pl "$PERL" tree.pl)
	off=$(run --no-perl pl "$PERL" tree.pl)
	printf '%-14s %s   %s\n' "perl $("$PERL" -e 'printf "%vd", $^V')" "$on" "$(echo "$off" | awk '{ print $1, $2 }')"
done
