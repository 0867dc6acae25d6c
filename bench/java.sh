#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Under the machine's java (Debian's OpenJDK 17, no JVM flag): the BPF time per recorded sample
# of cpuprof's sampling program (tail calls included: the DWARF walker with HotSpot's step of
# the JIT hook, and the cp_java program, run within its run) with --java and without
# (--no-java), and the share of the Java tree's leaf samples (tests/fixtures/java, built by
# make fixtures) whose Java frames are the whole chain main;run;heavy|light;leaf under
# start_thread; then javac compiling generated sources (bench/gen_java.py): the share of its
# samples in Java code (innermost frame java::, or an unnamed one in the CodeCache) named.
# Usage: bench/java.sh CPUPROF OUTDIR [FIXTURES] (root; kernel.bpf_stats_enabled is set for
# the runs and put back; RUNS=N pairs of runs, default 3). A timing figure, not a test: the
# machine's load moves it.
set -eu
CPUPROF=$(realpath "$1")
OUT=$2
FIX=$(realpath "${3:-build/rel/fixtures}")
mkdir -p "$OUT"
[ -f "$FIX/java/cpfix/Tree.class" ] || { echo "$0: no $FIX/java/cpfix/Tree.class (make fixtures)" >&2; exit 1; }
. "$(dirname "$0")/bpf_cost.sh"

# run FLAG: ns per recorded sample, samples recorded, samples in the leaf, whole-chain share
run() {
	local out=$OUT/run.folded ab
	# the tree's "ready" is not a figure
	ab=$(record_cost "$CPUPROF" record -F 999 "$1" -o "$out" -- sh -c 'exec java -cp "$0" cpfix.Tree 9000 >/dev/null' "$FIX/java" 2>"$OUT/run.err")
	awk '/java::cpfix\.Tree\.leaf( |;)/ { tot += $NF
		if ($0 ~ /^java;clone3;start_thread;.*java::cpfix\.Tree\.main;java::cpfix\.Tree\.run;java::cpfix\.Tree\.(heavy|light);java::cpfix\.Tree\.leaf( |;)/) ok += $NF }
		END { printf "%s %s\n", tot + 0, tot ? 100 * ok / tot : 0 }' "$out" >"$OUT/share"
	echo "$ab $(cat "$OUT/share")" | awk '{
		rec = $6 - $3; printf "%6.0f %6d %5d %6.1f%%", rec ? ($4 - $1) / rec : 0, rec, $7, $8 }'
}

echo "cpuprof Java benchmark: $(nproc) CPUs, kernel $(uname -r), $(java -version 2>&1 | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "ns/sample: $ENTRY run time (tail calls included) over samples recorded, 4 s at 999 Hz"
printf '%-10s %32s   %s\n' java "hook on: ns/sample n leaf whole" "off: ns/sample n"
sysctl -q -w kernel.bpf_stats_enabled=1
for _ in $(seq "${RUNS:-3}"); do
	on=$(run --java)
	off=$(run --no-java)
	printf '%-10s %s   %s\n' tree "$on" "$(echo "$off" | awk '{ print $1, $2 }')"
done

# javac, a real Java program: 40 generated classes of 60 methods each
mkdir -p "$OUT/src" "$OUT/classes"
python3 "$(dirname "$0")/gen_java.py" "$OUT/src" 40 60
"$CPUPROF" record -F 999 -o "$OUT/javac.folded" -- javac -d "$OUT/classes" "$OUT"/src/*.java 2>"$OUT/javac.err"
# the innermost user frame: a named Java frame, an unnamed one, a frame in anonymous memory
awk '{ c = $NF; n = split($0, f, ";"); sub(/ [0-9]+$/, "", f[n]); leaf = ""
	for (i = n; i > 1; i--) if (f[i] !~ /_\[k\]$/) { leaf = f[i]; break }
	tot += c
	if (leaf ~ /^java::\[unknown\]/ || leaf ~ /^\[anon\]/) bad += c
	else if (leaf ~ /^java::/) ok += c }
	END { printf "javac: %d samples, %d with the innermost user frame in Java code: %d named (%.1f%%), %d not\n",
		tot, ok + bad, ok, ok + bad ? 100 * ok / (ok + bad) : 0, bad }' "$OUT/javac.folded"
grep -E "user stacks complete" "$OUT/javac.err" | sed 's/^cpuprof: /javac: /'
