#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak: a long system-wide recording at 999 Hz on a busy machine (bench/busy.sh: compilers,
# CPython, exec storms, dlopen loops; thousands of processes); cpuprof's RSS is read every 10 s. It must not crash, its
# RSS must stay flat after the first minute, and every drop must be counted in the summary.
# Usage: [SOAK_LOAD=gcc|make] [SOAK_V=-vv] [SOAK_LOG=FILE] bench/soak.sh CPUPROF FIXTURE_DIR [SECONDS]
#   (root; 600 s). SOAK_V: the verbosity (-v by default; -vv logs memory after each drain);
#   SOAK_LOG: where to keep the recording's stderr.
set -u
CPUPROF=$1 FIX=$2 SECS=${3:-600}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpuprof-soak.XXXXXX")
BUILD=$TMP/src
load_pids=""
cleanup() {
	for p in $load_pids; do kill -- "-$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# The load: bench/busy.sh (SOAK_LOAD=gcc, the default, or make)
mkdir -p "$BUILD"
BUSY_LOAD=${SOAK_LOAD:-gcc} setsid bench/busy.sh "$BUILD" "$FIX" &
load_pids="$!"

start=$(date +%s)
"$CPUPROF" record "${SOAK_V:--v}" -F 999 -d "${SECS}s" -o "$TMP/soak.pb.gz" -o "$TMP/soak.folded" 2>"$TMP/rec.err" &
rec=$!
echo "  time   RSS (KiB)"
while kill -0 "$rec" 2>/dev/null; do
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$rec/status" 2>/dev/null)
	[ -n "$rss" ] && printf '  %4ds  %s\n' $(($(date +%s) - start)) "$rss"
	sleep 10
done
wait "$rec"
rc=$?
[ -n "${SOAK_LOG:-}" ] && cp "$TMP/rec.err" "$SOAK_LOG"
echo "  exit $rc after $(($(date +%s) - start)) s"
grep -v '^cpuprof: sampling' "$TMP/rec.err" | tail -10
folded=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/soak.folded")
echo "  folded: $(wc -l <"$TMP/soak.folded") stacks, $folded samples;" \
	"pprof: $(gzip -dc "$TMP/soak.pb.gz" | wc -c) bytes"
# exact accounting: the profile holds every sample the kernel counted (no --comm here)
counted=$(sed -n 's/.*: \([0-9]*\) samples counted in the kernel.*/\1/p' "$TMP/rec.err")
summary=$(sed -n 's/^cpuprof: \([0-9]*\) samples\{0,1\} from .*/\1/p' "$TMP/rec.err")
echo "  accounting: kernel counted ${counted:-?}, summary ${summary:-?}, folded $folded"
[ "$rc" -eq 0 ] && [ "${counted:-x}" = "$folded" ] && [ "${summary:-x}" = "$folded" ]
