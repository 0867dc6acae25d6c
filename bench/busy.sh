#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A busy machine, until killed (kill its process group: setsid, then kill -- -PID): both cores
# used by programs that come and go, as a build does.
#   gcc (default): small C files compiled and run one after the other, each a new cc1, as,
#        collect2 and ld process tree, next to a CPython loop (short interpreters calling a
#        recursive function for 0.3 s of CPU each, two at a time);
#   make: a copy of this tree rebuilt again and again with make -j2.
# Both with an exec storm (200 /bin/true every 0.2 s) and, when FIXTURE_DIR is given, dlopen
# loops (fix_dlopen_nofp). Used by bench/soak.sh and bench/stop.sh.
# Usage: bench/busy.sh WORKDIR [FIXTURE_DIR]   (WORKDIR: an empty directory it may fill)
set -u
WORK=$1 FIX=${2:-}
cd "$(dirname "$0")/.." || exit 1
trap 'kill 0' TERM INT
case ${BUSY_LOAD:-gcc} in
make)
	mkdir -p "$WORK/src"
	git ls-files -z | xargs -0 cp --parents -t "$WORK/src"
	(while :; do
		make -C "$WORK/src" -s -j2 clean >/dev/null 2>&1
		make -C "$WORK/src" -s -j2 build/rel/cpuprof WERROR=0 >/dev/null 2>&1
	done) &
	;;
*)
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
		} >"$WORK/s$i.c"
	done
	(while :; do
		for i in 0 1 2 3 4 5 6 7; do
			gcc -O2 -g -o "$WORK/s$i" "$WORK/s$i.c" >/dev/null 2>&1 && "$WORK/s$i" >/dev/null
		done
	done) &
	py=$(command -v python3)
	(while :; do
		for _ in 1 2; do
			"$py" -c 'import time
t = time.process_time()
def f(n): return n if n < 2 else f(n - 1) + f(n - 2)
while time.process_time() - t < 0.3: f(15)' &
		done
		wait
	done) &
	;;
esac
(while :; do
	for _ in $(seq 200); do /bin/true; done
	sleep 0.2
done) &
if [ -n "$FIX" ]; then
	(while :; do
		"$FIX/fix_dlopen_nofp" 0.2 0.2 >/dev/null 2>&1
		sleep 1
	done) &
fi
wait
