#!/bin/bash
# Demangler bombs (issue 23): a user's binary whose hot functions carry a C++ name of 24
# doubling substitutions (1.1 GB once demangled) and a name whose demangling is a day of work
# that prints nothing (an empty pack expansion over a 40-step doubling pattern). Recorded to
# every format, the outputs stay small, the names keep their mangled form, and report reads
# its own pprof. Before the bound the first took 60 s, 5 GB and wrote a 1.14 GB JSON.
. "$(dirname "$0")/lib.sh"
require_bpf
command -v gcc >/dev/null || fail "gcc is missing"

# the n-th substitution: S_, S0_ ... S9_, SA_ ... (base 36)
sub() {
	local k=$1 d=0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ out=""
	[ "$k" -eq 0 ] && { printf 'S_'; return; }
	k=$((k - 1))
	while :; do
		out=${d:k%36:1}$out
		k=$((k / 36))
		[ "$k" -eq 0 ] && break
	done
	printf 'S%s_' "$out"
}
# f(A<int, int>, A<A<int, int>, A<int, int> >, ...): each step the one before, twice
text_bomb() {
	local s=_Z1f1AIiiE i
	for ((i = 1; i < $1; i++)); do s+="S_I$(sub $i)$(sub $i)E"; done
	printf '%s' "$s"
}
# void f<>() over B<A<int, int>, ..., T_> with T_ an empty pack: 2^steps nodes searched
work_bomb() {
	local s=_Z1fIJEEvDp1BI1AIiiE i
	for ((i = 0; i < $1; i++)); do s+="$(sub 2)I$(sub $((3 + i)))$(sub $((3 + i)))E"; done
	printf '%sT_E' "$s"
}
text=$(text_bomb 24)
work=$(work_bomb 40)
cat >"$TMP/bomb.c" <<C
#include <stdlib.h>
#include <time.h>
void text_hot(volatile unsigned long *x) __asm__("$text");
void work_hot(volatile unsigned long *x) __asm__("$work");
void text_hot(volatile unsigned long *x) { for (int i = 0; i < 100000; i++) (*x)++; }
void work_hot(volatile unsigned long *x) { for (int i = 0; i < 100000; i++) (*x)++; }
int main(int argc, char **argv)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;
	double secs = argc > 1 ? atof(argv[1]) : 2;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		text_hot(&x);
		work_hot(&x);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
C
gcc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$TMP/bomb24" "$TMP/bomb.c" || fail "could not build the bomb"
nm "$TMP/bomb24" | grep -qF "$text" || fail "the bomb has no symbol $text"

# bounded by timeout: without the work bound the second name alone is a day
expect_status 0 timeout 120 "$CPUPROF" record -o "$TMP/b.folded" -o "$TMP/b.pb.gz" -o "$TMP/b.json" \
	-o "$TMP/b.html" -o "$TMP/b.svg" -- "$TMP/bomb24" 2
check_folded_grammar "$TMP/b.folded"
# the end summary says that names were left mangled, and for which bound
line=$(grep -F "left mangled (over the demangler's bounds)" "$TMP/err") || fail "no summary line: $(cat "$TMP/err")"
note "$line"
echo "$line" | grep -qE ': [1-9][0-9]* too long, [1-9][0-9]* too slow, 0 not tried' || fail "summary: $line"
for f in b.folded b.pb.gz b.json b.html b.svg; do
	size=$(stat -c %s "$TMP/$f")
	note "$f: $size bytes"
	[ "$size" -lt 2000000 ] || fail "$f is $size bytes"
done
# the names kept their mangled form
text_n=$(count "$TMP/b.folded" ";$text( |;)")
work_n=$(count "$TMP/b.folded" ";$work( |;)")
[ "$text_n" -gt 10 ] || fail "text bomb: $text_n samples under its mangled name"
[ "$work_n" -gt 10 ] || fail "work bomb: $work_n samples under its mangled name"
grep -qF "$text" "$TMP/b.json" || fail "the JSON lacks the mangled name"
# report reads cpuprof's own pprof, and symbolize answers with the mangled name at once
expect_status 0 timeout 60 "$CPUPROF" report "$TMP/b.pb.gz"
grep -qF "$text" "$TMP/out" || fail "report: no mangled name: $(head -5 "$TMP/out")"
addr=$(nm "$TMP/bomb24" | awk -v n="$work" '$3 == n { print "0x" $1 }')
expect_status 0 timeout 60 "$CPUPROF" symbolize -e "$TMP/bomb24" "$addr"
grep -qxF "$work" "$TMP/out" || fail "symbolize: $(head -3 "$TMP/out")"
note "text bomb: $text_n samples, work bomb: $work_n, names kept mangled; report and symbolize answer"

# Many distinct work bombs (400 functions f000<>() ... f399<>(), each sampled at -F 999): each
# would cost the per-name cap (20 ms), 16 s in all; the total budget refuses the names past
# it, and the summary counts them. Before the budget: 300 such names took 14.6 s to name.
many=$TMP/many.c
pat=""
for ((i = 0; i < 40; i++)); do pat+="$(sub 2)I$(sub $((3 + i)))$(sub $((3 + i)))E"; done
{
	printf '#include <stdlib.h>\n#include <time.h>\n'
	for ((j = 0; j < 400; j++)); do
		printf 'void w%d(volatile unsigned long *x) __asm__("_Z4f%03dIJEEvDp1BI1AIiiE%sT_E");\n' $j $j "$pat"
		printf 'void w%d(volatile unsigned long *x) { for (int i = 0; i < 20000; i++) (*x)++; }\n' $j
	done
	printf 'int main(int argc, char **argv)\n{\n\tstruct timespec t0, t;\n\tvolatile unsigned long x = 0;\n'
	printf '\tdouble secs = argc > 1 ? atof(argv[1]) : 2;\n\n\tclock_gettime(CLOCK_MONOTONIC, &t0);\n\tdo {\n'
	for ((j = 0; j < 400; j++)); do printf '\t\tw%d(&x);\n' $j; done
	printf '\t\tclock_gettime(CLOCK_MONOTONIC, &t);\n'
	printf '\t} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);\n\treturn 0;\n}\n'
} >"$many"
gcc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$TMP/many" "$many" || fail "could not build the 400 bombs"
expect_status 0 timeout 120 "$CPUPROF" record -F 999 -o "$TMP/m.folded" -- "$TMP/many" 3
check_folded_grammar "$TMP/m.folded"
line=$(grep -F "left mangled (over the demangler's bounds)" "$TMP/err") || fail "no summary line: $(cat "$TMP/err")"
note "$line"
echo "$line" | grep -qE ': 0 too long, [1-9][0-9]* too slow, [1-9][0-9]* not tried' || fail "summary: $line"
funcs=$(grep -oE ';_Z4f[0-9]{3}IJEEvDp' "$TMP/m.folded" | sort -u | wc -l)
note "$funcs distinct bombs sampled, each under its mangled name"
[ "$funcs" -gt 150 ] || fail "only $funcs distinct bombs sampled"
exit 0
