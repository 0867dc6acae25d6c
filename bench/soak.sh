#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Soak: a long system-wide recording at 999 Hz while the machine builds something large over
# and over (cpuprof itself, make -j with clean rebuilds: thousands of processes, exec storms)
# and loads libraries with dlopen; cpuprof's RSS is read every 10 s. It must not crash, its
# RSS must stay flat after the first minute, and every drop must be counted in the summary.
# Usage: [SOAK_LOAD=gcc|make] bench/soak.sh CPUPROF FIXTURE_DIR [SECONDS]   (root; 600 s)
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

# The load (SOAK_LOAD): "gcc" (default, about one core of two): small C files compiled one at
# a time, each a new cc1/as/collect2/ld process tree; "make": a copy of this tree rebuilt
# again and again with make -j2 (both cores). Both with an exec storm and dlopen loops.
case ${SOAK_LOAD:-gcc} in
make)
	mkdir -p "$BUILD"
	git ls-files -z | xargs -0 cp --parents -t "$BUILD"
	(while :; do make -C "$BUILD" -s -j2 clean >/dev/null 2>&1; make -C "$BUILD" -s -j2 build/rel/cpuprof WERROR=0 >/dev/null 2>&1; done) &
	load_pids="$load_pids $!"
	;;
*)
	mkdir -p "$BUILD"
	for i in 0 1 2 3 4 5 6 7; do
		{
			echo '#include <stdio.h>'
			echo '#include <stdlib.h>'
			echo '#include <string.h>'
			for f in $(seq 40); do
				echo "static int f${f}_$i(const char *s, int n) { int h = $f; for (int k = 0; k < n; k++) h = h * 31 + s[k % (int)strlen(s)]; return h ^ $i; }"
			done
			echo "int main(int c, char **v) { int h = 0;"
			for f in $(seq 40); do echo "h += f${f}_$i(v[0], c * $f);"; done
			echo 'printf("%d\n", h); return 0; }'
		} >"$BUILD/s$i.c"
	done
	(while :; do for i in 0 1 2 3 4 5 6 7; do gcc -O2 -g -o "$BUILD/s$i" "$BUILD/s$i.c" >/dev/null 2>&1 && "$BUILD/s$i" >/dev/null; done; done) &
	load_pids="$load_pids $!"
	;;
esac
(while :; do for _ in $(seq 200); do /bin/true; done; sleep 0.2; done) &
load_pids="$load_pids $!"
(while :; do "$FIX/fix_dlopen_nofp" 0.2 0.2 >/dev/null 2>&1; sleep 1; done) &
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
