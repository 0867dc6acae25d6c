#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-unwind: what walking user stacks costs. Prints figures, asserts nothing; exits
# non-zero only when something cannot run. Needs root.
#
#  1. BPF time per sample of cpuprof's perf_event program with --unwind fp and dwarf, on a
#     -O2 -fomit-frame-pointer program sampled ~12 frames deep (kernel.bpf_stats_enabled).
#  2. Slowdown of a fixed amount of work, timed by the program itself (start-up and attaching
#     left out), under cpuprof and perf record; configurations interleaved round-robin.
#  3. Unwind table build time of the largest object (bench/unwind_table.sh).
#
# usage: unwind.sh CPUPROF OUT
# env: BENCH_BPF_ROUNDS (3) rounds of part 1; BENCH_ROUNDS (7) rounds of part 2,
#      BENCH_WORK_S (2.5) seconds of work per run, BENCH_FREQS ("99 999") its frequencies;
#      BENCH_BPF_PROG (cp_sample) the entry program; BENCH_TOP, BENCH_REPS for unwind_table.sh
set -euo pipefail

OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
BPF_ROUNDS=${BENCH_BPF_ROUNDS:-3}
ROUNDS=${BENCH_ROUNDS:-7}
WORK_S=${BENCH_WORK_S:-2.5}
FREQS=${BENCH_FREQS:-99 999}
ENTRY=${BENCH_BPF_PROG:-cp_sample}
NCPU=$(nproc)
WORK=$OUT/unwind_work
LOG=$OUT/unwind.log

die() { echo "bench-unwind: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "needs root (BPF, perf events, sysctl)"
for t in gcc perf bpftool jq sysctl; do
	command -v "$t" >/dev/null || die "$t not found: run scripts/install-bench-deps.sh"
done
mkdir -p "$OUT"
: >"$LOG"
# A copy, as the build may be redone meanwhile (one taken while the linker writes does not
# run: try again); its own name tells it from other cpuprofs.
CPUPROF=$(realpath "$OUT")/cpuprof.bench
for i in 1 2 3 4 5; do
	install -m 0755 "$1" "$CPUPROF" && "$CPUPROF" --version >/dev/null 2>&1 && break
	[ "$i" -lt 5 ] || die "cannot run a copy of $1"
	sleep 2
done
if [ ! -x "$WORK" ] || [ "$HERE/unwind_work.c" -nt "$WORK" ]; then
	gcc -O2 -fomit-frame-pointer -g -o "$WORK" "$HERE/unwind_work.c"
fi

# Wait up to 10 s for other profilers (someone's tests) to end: their BPF programs run on
# every sample of every CPU. Count the runs started with one still there.
DISTURBED=0 RUNS=0
quiet() {
	local i
	RUNS=$((RUNS + 1))
	for ((i = 0; i < 20; i++)); do
		pgrep -x 'cpuprof|perf' >/dev/null || return 0
		sleep 0.5
	done
	DISTURBED=$((DISTURBED + 1))
}

# Statistics cost every BPF program two clock reads: on for part 1 only, always put back.
OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
BG=""
cleanup() {
	if [ -n "$BG" ]; then kill "$BG" 2>/dev/null || true; fi
	sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS" || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# median, min, max of the numbers in file $1
stat3() {
	sort -g "$1" | awk '{ v[NR] = $1 } END {
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1], v[NR] }'
}

echo "cpuprof unwind benchmark: $NCPU CPUs, kernel $(uname -r), $(perf --version)," \
	"$(gcc --version | head -n 1); load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "workload: $WORK (gcc -O2 -fomit-frame-pointer -g; main -> uw_1 ... uw_8, the leaf)"

# ---- 1. BPF time per sample ----------------------------------------------------------------

# The BPF programs process $1 holds (PROGS, ",ID,...,") and its "stats" map (STATS).
bpf_ids() {
	local fdinfo
	fdinfo=$(cat /proc/"$1"/fdinfo/* 2>/dev/null) || true
	PROGS=,$(awk '$1 == "prog_id:" { print $2 }' <<<"$fdinfo" | sort -u | paste -sd,),
	STATS=$(bpftool map show --json | jq -r --arg ids ",$(awk '$1 == "map_id:" { print $2 }' \
		<<<"$fdinfo" | paste -sd,)," '.[] | select(.name == "stats") |
		select(",\(.id)," as $k | $ids | contains($k)) | .id')
}

# "prog NAME RUN_TIME_NS RUN_CNT" of those programs; "stat I N", cpuprof's counters summed
# over the CPUs (bpf/shared.h: 0 program runs, 1 samples recorded)
bpf_snapshot() {
	bpftool prog show --json | jq -r --arg ids "$PROGS" '.[] |
		select(",\(.id)," as $k | $ids | contains($k)) |
		"prog \(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"'
	bpftool map dump id "$STATS" --json |
		jq -r '.[].formatted | select(.key <= 1) |
			"stat \(.key) \(.values | map(.value) | add)"'
}

# Mean user depth and share of samples whose stack reaches main in folded file $1: kernel
# (_[k]) and inlined (_[i]) frames and the process name do not count.
stack_depth() {
	awk '{
		k = split(substr($0, 1, length($0) - length($NF) - 1), f, ";")
		for (i = 2; i <= k; i++)
			if (f[i] !~ /_\[[ki]\]$/)
				sum += $NF
		tot += $NF
		full += ($0 ~ /;main;/) ? $NF : 0
	} END { printf "%.1f %.1f\n", tot ? sum / tot : 0, tot ? 100 * full / tot : 0 }' "$1"
}

# One recording at 999 Hz of NCPU processes spinning for 10 s; the statistics are read at 2 s
# (unwind tables loaded by then) and 5 s later (before cpuprof exits and unloads them). Mode
# "filtered": the spinning processes are not the target (a sleep is), so every run drops its
# sample: what a run that records nothing costs (FNS). Prints a row, adds "MODE NS" to $OUT/bpf.
bpf_cost() {
	local mode=$1 out=$OUT/unwind-$1.folded a b target=(-- "$WORK" spin 10 "$NCPU")
	if [ "$mode" = filtered ]; then
		"$WORK" spin 10 "$NCPU" &
		sleep 10 &
		target=(-p $!)
	fi
	"$CPUPROF" record -F 999 --unwind "${mode/filtered/dwarf}" -o "$out" "${target[@]}" \
		2>"$OUT/unwind-$1.err" &
	BG=$!
	sleep 2
	bpf_ids "$BG"
	[ -n "$STATS" ] || die "no stats map in cpuprof (pid $BG)"
	a=$(bpf_snapshot)
	sleep 5
	b=$(bpf_snapshot)
	wait "$BG" || die "cpuprof record --unwind $mode failed: $(cat "$OUT/unwind-$1.err")"
	BG=""
	wait
	[ -n "$b" ] || die "cpuprof ended before its statistics were read"
	printf '%s\n--\n%s\n' "$a" "$b" | awk -v e="$ENTRY" -v mode="$mode" -v fns="$FNS" \
		-v st="$(stack_depth "$out")" -v res="$OUT/bpf" -v sum="$(<"$OUT/unwind-$1.err")" '
		BEGIN { w = 0 }
		$1 == "--" { w = 1 }
		$1 == "prog" && $2 == e { t[w] = $3; c[w] = $4 }
		$1 == "prog" && $2 != e && w { other = other " " $2 "=" $4 }
		$1 == "stat" { n[w, $2] = $3 }
		END {
			runs = c[1] - c[0]
			if (!runs)
				exit 1
			rec = n[1, 1] - n[0, 1]
			ns = mode == "filtered" ? (t[1] - t[0]) / runs : \
				rec ? (t[1] - t[0] - (runs - rec) * fns) / rec : 0
			split(mode == "filtered" ? "- -" : st "%", s, " ")
			sub(/ written to [^;]*;/, ";", sum)
			printf "  %-15s %7.0f %7d %7d %7.1f%% %9.0f %6s %7s   %s\n  %17s%s\n",
				mode == "filtered" ? mode : "--unwind " mode, (t[1] - t[0]) / runs,
				runs, n[1, 0] - n[0, 0], 100 * rec / runs, ns, s[1], s[2],
				other == "" ? "-" : substr(other, 2), "", sum
			print mode, ns >> res
		}' || die "no run_cnt of $ENTRY (is its name still $ENTRY?)"
}

echo
echo "1. BPF time per sample of $ENTRY (SEC(\"perf_event\")): cpuprof record -F 999 of $NCPU" \
	"spinning processes, 5 s windows, $BPF_ROUNDS rounds"
echo "   ns/run: run_time_ns/run_cnt (tail calls run within the entry program's run: the dwarf"
echo "   walker's time is in it); counted: cpuprof's own count; recorded: runs adding a sample;"
echo "   ns/sample: per recorded sample, the other runs charged at filtered ns/run"
printf '  %-15s %7s %7s %7s %8s %9s %6s %7s   %s\n' mode ns/run runs counted recorded \
	ns/sample depth 'to main' 'run_cnt of the others'
rm -f "$OUT/bpf"
sysctl -q -w kernel.bpf_stats_enabled=1
for ((r = 1; r <= BPF_ROUNDS; r++)); do
	FNS=0
	for m in filtered fp dwarf; do
		quiet
		bpf_cost "$m"
		[ "$m" != filtered ] || FNS=$(awk 'END { print $2 }' "$OUT/bpf")
	done
done
sysctl -q -w kernel.bpf_stats_enabled="$OLD_STATS"
for m in fp dwarf; do
	awk -v m="$m" '$1 == m { print $2 }' "$OUT/bpf" >"$OUT/bpf.$m"
	stat3 "$OUT/bpf.$m" | awk -v m="$m" '{
		printf "  --unwind %-6s median %5.0f ns/sample [%.0f, %.0f]\n", m, $1, $2, $3 }'
done
echo "  aim: --unwind dwarf <= 2000 ns per sample on a ~10-frame stack"

# ---- 2. slowdown ---------------------------------------------------------------------------

# Run the fixed work under configuration $1 at $2 Hz; print the work's own seconds.
run_one() {
	local p=() o=$OUT/run
	case $1 in
	cpuprof-*) p=("$CPUPROF" record -q -F "$2" --unwind "${1#cpuprof-}" -o "$o.folded" --) ;;
	perf-fp) p=(perf record -q -F "$2" -e cpu-clock -g -o "$o.data" --) ;;
	perf-dwarf) p=(perf record -q -F "$2" -e cpu-clock --call-graph dwarf -o "$o.data" --) ;;
	esac
	"${p[@]}" "$WORK" fixed "$ITERS" 2>>"$LOG" | awk '$1 == "work_s" { print $2 }' ||
		die "$1 at $2 Hz failed (see $LOG)"
	rm -f "$OUT/run.folded" "$OUT/run.data"
}

CONFIGS="cpuprof-dwarf cpuprof-fp perf-fp perf-dwarf"
declare -A LABEL=([cpuprof-dwarf]="cpuprof record --unwind dwarf"
	[cpuprof-fp]="cpuprof record --unwind fp" [perf-fp]="perf record -e cpu-clock -g"
	[perf-dwarf]="perf record --call-graph dwarf")

# calibrate, twice: the number of chain calls that takes about WORK_S seconds
ITERS=100000
for i in 1 2; do
	ITERS=$(awk -v t="$(run_one none 0)" -v w="$WORK_S" -v n="$ITERS" \
		'BEGIN { printf "%d", n * w / t }' </dev/null)
done

rm -f "$OUT"/slow.*
for ((r = 1; r <= ROUNDS; r++)); do
	[ -t 2 ] && printf '\r2. round %d/%d ' "$r" "$ROUNDS" >&2
	quiet
	run_one none 0 >>"$OUT/slow.none"
	for f in $FREQS; do
		for c in $CONFIGS; do
			quiet
			run_one "$c" "$f" >>"$OUT/slow.$c.$f"
		done
	done
done
[ -t 2 ] && printf '\r%20s\r' '' >&2

echo
echo "2. Slowdown of fixed work ($ITERS chain calls, 1 process, no frame pointers), $ROUNDS" \
	"rounds interleaved;"
echo "   work time measured by the program; median ratio to the unprofiled median [min, max]"
# "MEDIAN× [MIN, MAX]" of the times in file $1 divided by $2
cell() {
	stat3 "$1" | awk -v u="$2" '{ printf "%-28s", sprintf("%.4f× [%.4f, %.4f]", $1 / u,
		$2 / u, $3 / u) }'
}
printf '  %-32s' configuration
for f in $FREQS; do printf ' %-28s' "$f Hz"; done | sed 's/ *$//'
base=$(stat3 "$OUT/slow.none" | cut -d' ' -f1)
printf '\n  %-32s %s\n' "$(printf 'unprofiled (median %.3f s)' "$base")" \
	"$(cell "$OUT/slow.none" "$base")"
for c in $CONFIGS; do
	printf '  %-32s' "${LABEL[$c]}"
	for f in $FREQS; do printf ' %s' "$(cell "$OUT/slow.$c.$f" "$base")"; done
	echo
done
echo "  $NCPU CPUs, nothing pinned: the workload keeps one busy; the profilers' user-space work"
echo "  (cpuprof's map reads and symbolization, perf's writing of samples) runs on another."

# ---- 3. unwind tables ----------------------------------------------------------------------

echo
echo "3. Unwind table build (bench/unwind_table.sh: the builder's own clock, without printing)"
BENCH_TOP=${BENCH_TOP:-1} BENCH_REPS=${BENCH_REPS:-3} sh "$HERE/unwind_table.sh" "$CPUPROF" |
	tee "$OUT/unwind-table.txt" | sed 's/^/  /'
big=$(awk 'NR == 2 { print $1 }' "$OUT/unwind-table.txt")
[ -n "$big" ] || die "unwind_table.sh found no object"
rm -f "$OUT/utab"
for i in 1 2 3; do
	t0=$(date +%s%N)
	rc=0
	"$CPUPROF" unwind-table "$big" >/dev/null || rc=$?
	echo $((($(date +%s%N) - t0) / 1000)) >>"$OUT/utab"
done
stat3 "$OUT/utab" | awk -v f="$big" -v rc="$rc" '{
	printf "  cpuprof unwind-table %s >/dev/null: %.1f ms wall (median of 3; %.1f-%.1f)%s\n",
		f, $1 / 1000, $2 / 1000, $3 / 1000, rc ? "; exit status " rc : "" }'

echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$DISTURBED" -gt 0 ]; then
	echo "warning: $DISTURBED of $RUNS runs started while another cpuprof or perf was running"
fi
