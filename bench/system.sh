#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# System-wide recording at 999 Hz while `make -j2` builds a copy of this tree, compared with perf:
# ROUNDS rounds (default 5), each building three times in a rotated order: with no profiler
# ("none"), under `cpuprof record -F 999 -o X.pb.gz` ("cpuprof": its CPU, user + system, includes
# naming and writing the pprof) and under `perf record -B -a -g -F 999` ("perf": its CPU plus that of
# `perf script | bench/stackcollapse_perf.pl`, the step that names the frames; -B: no build-id
# pass at the end, which opens every file mapped during the recording and waited forever on a
# FIFO another program had mapped; it only makes perf cheaper). Prints one line
# per build, then medians and spreads (min-max): the build's wall time, the profiler's CPU (and
# per sample: system-wide, the other work on the machine is sampled too) and peak RSS (cpuprof's:
# the larger of the recording's and the output's, from its -v memory line and time), and the
# 1-minute load average before each build.
# CPUPROF_BASE=BINARY: a fourth build per round under that other cpuprof ("base"), for a before
# and after under the same load.
# SELF_PROFILE=FILE: one more build at the end under `cpuprof record -- cpuprof record ...` (not
# counted): the outer recording of the inner one, as folded stacks with source lines, in FILE.
# Usage: bench/system.sh CPUPROF [ROUNDS]   (root; needs perf and /usr/bin/time)
set -u
CPUPROF=$(realpath "$1") ROUNDS=${2:-5}
[ -n "${CPUPROF_BASE:-}" ] && CPUPROF_BASE=$(realpath "$CPUPROF_BASE")
cd "$(dirname "$0")/.." || exit 1
COLLAPSE=$PWD/bench/stackcollapse_perf.pl
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpuprof-system.XXXXXX")
prof=""
cleanup() {
	[ -n "$prof" ] && kill -INT "$prof" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
for t in perf /usr/bin/time; do
	command -v "$t" >/dev/null || { echo "bench/system.sh: $t is missing (make bench-system installs it)" >&2; exit 1; }
done

SRC=$TMP/src
mkdir -p "$SRC"
git ls-files -z | xargs -0 cp --parents -t "$SRC"
build() { make -C "$SRC" -s -j2 build/rel/cpuprof WERROR=0 >"$TMP/build.log" 2>&1; }
# warm the page cache and check that the copy builds
build || { tail -5 "$TMP/build.log" >&2; exit 1; }

now() { date +%s.%N; }
# the profiler under /usr/bin/time: its pid is the child of time's
start_timed() { # OUT_TIME_FILE CMD...
	local tf=$1
	shift
	/usr/bin/time -f '%U %S %M' -o "$tf" "$@" &
	local tp=$! i
	for i in $(seq 100); do
		prof=$(pgrep -P "$tp" | head -1)
		[ -n "$prof" ] && break
		sleep 0.05
	done
	timed=$tp
}
stop_timed() {
	kill -INT "$prof" 2>/dev/null
	wait "$timed"
	prof=""
}
# "user sys maxrss_kib" (the last line: time may write "Command exited with..." first) -> "cpu_s rss_mib"
cpu_rss() { tail -1 "$1" | awk '{ printf "%.2f %.1f", $1 + $2, $3 / 1024 }'; }

RES=$TMP/results
: >"$RES"
run() { # MODE ROUND
	local mode=$1 r=$2 t0 t1 load wall cpu rss extra="" n=0 per=-
	make -C "$SRC" -s clean >/dev/null 2>&1
	sync
	load=$(cut -d' ' -f1 /proc/loadavg)
	case $mode in
	none) ;;
	cpuprof | base)
		local bin=$CPUPROF
		[ "$mode" = base ] && bin=$CPUPROF_BASE
		start_timed "$TMP/c.time" "$bin" record -v -F 999 -o "$TMP/c.pb.gz"
		# wait until sampling runs (its setup is counted in its CPU all the same)
		for _ in $(seq 600); do
			grep -q sampling "$TMP/$mode.err" 2>/dev/null && break
			kill -0 "$prof" 2>/dev/null || break
			sleep 0.05
		done 2>/dev/null
		;;
	perf)
		start_timed "$TMP/p.time" perf record -q -B -a -g -F 999 -o "$TMP/p.data"
		sleep 1
		;;
	esac 2>"$TMP/$mode.err"
	t0=$(now)
	build || { echo "build failed ($mode, round $r)" >&2; tail -5 "$TMP/build.log" >&2; }
	t1=$(now)
	wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	case $mode in
	none) cpu=- rss=- ;;
	cpuprof | base)
		stop_timed
		read -r cpu rss <<<"$(cpu_rss "$TMP/c.time")"
		# -v (and only -v) resets the kernel's peak (clear_refs) before the output phase, so
		# time's figure is the output's alone: the recording's own peak is on the memory line,
		# the run's true peak the larger of both
		rec=$(grep -o 'peak [0-9.]* MiB while recording' "$TMP/$mode.err" | cut -d' ' -f2)
		rss=$(awk -v a="$rss" -v b="${rec:-0}" 'BEGIN { printf "%.1f", (a > b ? a : b) }')
		[ -s "$TMP/c.pb.gz" ] || echo "$mode wrote no profile:" "$(tail -2 "$TMP/$mode.err")" >&2
		extra=$(grep -o '[0-9]* samples from [0-9]* processes' "$TMP/$mode.err")
		n=${extra%% *}
		rm -f "$TMP/c.pb.gz"
		;;
	perf)
		stop_timed
		read -r cpu rss <<<"$(cpu_rss "$TMP/p.time")"
		/usr/bin/time -f '%U %S %M' -o "$TMP/s.time" \
			sh -c "perf script -i '$TMP/p.data' 2>/dev/null | '$COLLAPSE' >'$TMP/p.folded'"
		local scpu srss
		read -r scpu srss <<<"$(cpu_rss "$TMP/s.time")"
		extra="record $cpu s + script|collapse $scpu s (script RSS $srss MiB);" 
		n=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/p.folded")
		extra="$extra $n samples"
		cpu=$(awk -v a="$cpu" -v b="$scpu" 'BEGIN { printf "%.2f", a + b }')
		rm -f "$TMP/p.data" "$TMP/p.folded"
		;;
	esac
	# the other work on the machine is sampled too: CPU per sample compares runs of any load
	[ "${n:-0}" -gt 0 ] && per=$(awk -v c="$cpu" -v n="$n" 'BEGIN { printf "%.1f", c * 1e6 / n }')
	printf '%-7s round %d: build %6.2f s  profiler CPU %5s s (%s us/sample)  peak RSS %5s MiB  load %s  %s\n' \
		"$mode" "$r" "$wall" "$cpu" "$per" "$rss" "$load" "$extra"
	echo "$mode $wall $cpu $rss $load $per" >>"$RES"
}

modes=(none cpuprof perf)
[ -n "${CPUPROF_BASE:-}" ] && modes+=(base)
nm=${#modes[@]}
for r in $(seq "$ROUNDS"); do
	for k in $(seq 0 $((nm - 1))); do
		run "${modes[$(((r - 1 + k) % nm))]}" "$r"
	done
done

[ "$ROUNDS" -gt 0 ] && echo "medians (min-max) over $ROUNDS rounds:"
for m in "${modes[@]}"; do
	[ "$ROUNDS" -gt 0 ] || break
	printf '  %-7s' "$m"
	for col in 2 3 6 4 5; do
		awk -v m="$m" -v c="$col" '$1 == m && $c != "-" { print $c }' "$RES" | sort -g |
			awk -v c="$col" '{ v[NR] = $1 } END {
				if (NR == 0) exit
				med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				split("- build CPU RSS load us/sample", name, " ")
				unit = c == 2 || c == 3 ? " s" : c == 4 ? " MiB" : ""
				printf "  %s %.2f%s (%.2f-%.2f)", name[c], med, unit, v[1], v[NR] }'
	done
	echo
done

if [ -n "${SELF_PROFILE:-}" ]; then
	make -C "$SRC" -s clean >/dev/null 2>&1
	"$CPUPROF" record -q -F 999 --lines -o "$SELF_PROFILE" -- \
		"$CPUPROF" record -v -F 999 -o "$TMP/c.pb.gz" 2>"$TMP/self.err" &
	outer=$!
	for _ in $(seq 600); do
		inner=$(pgrep -P "$outer" | head -1)
		[ -n "$inner" ] && grep -q 'sampling' "$TMP/self.err" && break
		sleep 0.05
	done
	build
	kill -INT "$inner"
	wait "$outer"
	echo "cpuprof profiled by cpuprof during one build: $SELF_PROFILE"
fi
