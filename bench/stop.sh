#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# How promptly a system-wide recording ends, and its peak RSS:
#   ctrlc: record for SECONDS on a busy machine (bench/busy.sh), then SIGINT; time from the
#          signal to the file written and to the exit (issue 15: <= 0.5 s, peak RSS <= 96 MB);
#   deadline: record with -d SECONDS, cpuprof at nice 10 behind two CPU-bound loops (about a
#          tenth of a CPU: a starved machine without a load of 20 on a shared one); the
#          recorded length (the summary's "in N s") against -d, and the wall time to the exit.
# Usage: bench/stop.sh CPUPROF ctrlc|deadline [SECONDS]   (root; default 30 s)
set -u
CPUPROF=$1 MODE=$2 SECS=${3:-30}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpuprof-stop.XXXXXX")
spin_pids=""
cleanup() {
	for p in $spin_pids; do kill "$p" 2>/dev/null; done
	[ -n "${busy:-}" ] && kill -- "-$busy" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
now() { date +%s.%N; }

echo "  load before: $(cut -d' ' -f1-3 /proc/loadavg)"
case $MODE in
ctrlc)
	mkdir -p "$TMP/busy"
	setsid "$(dirname "$0")/busy.sh" "$TMP/busy" &
	busy=$!
	sleep 2
	"$CPUPROF" record ${STOP_V:--v} -F 999 -o "$TMP/p.pb.gz" 2>"$TMP/err" &
	rec=$!
	sleep "$SECS"
	echo "  load at the signal: $(cut -d' ' -f1-3 /proc/loadavg)"
	# the signal is sent and the file watched from one process started beforehand: a poll
	# loop in the shell forks a sleep each time, tens of ms on a loaded machine
	python3 - "$rec" "$TMP/p.pb.gz" <<'PY'
import os, signal, sys, time
pid, path = int(sys.argv[1]), sys.argv[2]
def gone():
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return True
t0 = time.monotonic()
os.kill(pid, signal.SIGINT)
while not os.path.exists(path) and not gone():
    time.sleep(0.001)
t1 = time.monotonic()
while not gone():
    time.sleep(0.001)
t2 = time.monotonic()
print(f"  SIGINT to file written {t1 - t0:.3f} s, to exit {t2 - t0:.3f} s")
PY
	wait "$rec"
	rc=$?
	echo "  exit $rc"
	;;
deadline)
	for _ in 1 2; do (while :; do :; done) & spin_pids="$spin_pids $!"; done
	t0=$(now)
	nice -n 10 "$CPUPROF" record -v -F 999 -d "${SECS}s" -o "$TMP/p.pb.gz" 2>"$TMP/err"
	rc=$?
	t2=$(now)
	echo "  load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "  exit $rc; -d ${SECS}s: wall time to exit $(echo "$t2 - $t0" | bc) s"
	;;
*)
	echo "usage: $0 CPUPROF ctrlc|deadline [SECONDS]" >&2
	exit 64
	;;
esac
grep -E 'peak RSS|samples from|sets drained|after sampling stopped|the last drain|stop was seen|read back from disk' "$TMP/err" | cut -c1-200
