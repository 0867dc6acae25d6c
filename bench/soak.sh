#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak: a long system-wide recording at 999 Hz while the machine builds something large over
# and over (cpuprof itself, make -j with clean rebuilds: thousands of processes, exec storms)
# and loads libraries with dlopen; cpuprof's RSS is read every 10 s. It must not crash, its
# RSS must stay flat after the first minute, and every drop must be counted in the summary.
# Usage: bench/soak.sh CPUPROF FIXTURE_DIR [SECONDS]   (root; default 600 s)
set -u
CPUPROF=$1 FIX=$2 SECS=${3:-600}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpuprof-soak.XXXXXX")
BUILD=$TMP/src
load_pids=""
cleanup() {
	for p in $load_pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# the load: a copy of this tree rebuilt again and again, an exec storm, dlopen loops
mkdir -p "$BUILD"
git ls-files -z | xargs -0 cp --parents -t "$BUILD"
(while :; do make -C "$BUILD" -s -j2 clean >/dev/null 2>&1; make -C "$BUILD" -s -j2 build/rel/cpuprof WERROR=0 >/dev/null 2>&1; done) &
load_pids="$load_pids $!"
(while :; do for _ in $(seq 200); do /bin/true; done; sleep 0.2; done) &
load_pids="$load_pids $!"
(while :; do "$FIX/fix_dlopen_nofp" 1 >/dev/null 2>&1; done) &
load_pids="$load_pids $!"

start=$(date +%s)
"$CPUPROF" record -v -F 999 -d "${SECS}s" -o "$TMP/soak.pb.gz" -o "$TMP/soak.folded" 2>"$TMP/rec.err" &
rec=$!
echo "  time   RSS (KiB)"
while kill -0 "$rec" 2>/dev/null; do
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$rec/status" 2>/dev/null)
	[ -n "$rss" ] && printf '  %4ds  %s\n' $(($(date +%s) - start)) "$rss"
	sleep 10
done
wait "$rec"
rc=$?
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
