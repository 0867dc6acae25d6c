#!/bin/bash
# A user truncates a library of its own process (or the library's separate debug file) while
# root records that process: cpuprof keeps the file mapped to read its DWARF, and the reads past
# the new end must not kill it with SIGBUS (before the fix: exit 135, no profile). The library
# has two functions in two compilation units: the first drain indexes the first one's, then the
# files are truncated and the process moves to the second, whose DWARF is read from the
# shrunken mapping. cpuprof must exit 0, write the profile and count the object.
. "$(dirname "$0")/lib.sh"
require_bpf
command -v setpriv >/dev/null || skip "no setpriv"
command -v cc >/dev/null || skip "no C compiler"

U=$TMP/user
mkdir "$U"
{
	echo 'struct cp_tv_big {'
	for i in $(seq 3000); do echo "	int member_$i;"; done
	echo '};'
	echo 'struct cp_tv_big *cp_tv_big_ptr;'
} >"$TMP/big.h"
cat >"$TMP/a.c" <<'C'
#include "big.h"
#include <stdio.h>
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) void cp_tv_phase_a(volatile unsigned long *x)
{
	for (int i = 0; i < 100000; i++)
		*x += (unsigned long)i * 7;
}
/* phase a until the file go appears, then phase b for seconds */
void cp_tv_phase_b(volatile unsigned long *x);
void cp_tv_run(const char *go, double seconds)
{
	volatile unsigned long x = 0;
	struct timespec t0, t;

	while (access(go, F_OK))
		cp_tv_phase_a(&x);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		cp_tv_phase_b(&x);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}
C
cat >"$TMP/b.c" <<'C'
__attribute__((noinline)) void cp_tv_phase_b(volatile unsigned long *x)
{
	for (int i = 0; i < 100000; i++)
		*x ^= (unsigned long)i * 13;
}
C
cat >"$TMP/main.c" <<'C'
#include <stdlib.h>
void cp_tv_run(const char *go, double seconds);
int main(int argc, char **argv)
{
	cp_tv_run(argv[1], atof(argv[2]));
	return 0;
}
C
cc -O0 -g -fno-omit-frame-pointer -fPIC -shared -o "$TMP/libtv.so" "$TMP/a.c" "$TMP/b.c" ||
	fail "cannot build the library"
# shellcheck disable=SC2016 # $ORIGIN is the loader's, not the shell's
cc -O0 -g -fno-omit-frame-pointer -o "$TMP/tv" "$TMP/main.c" -L"$TMP" -ltv \
	-Wl,-rpath,'$ORIGIN' || fail "cannot build the program"
# The cut keeps every loaded page (the process runs from them) and loses the DWARF of phase b:
# phase a's unit comes first and is made large (a struct of many members), so that phase b's
# lies well past the end of the loaded part.
load_end=0
while read -r off filesz; do
	((off + filesz > load_end)) && load_end=$((off + filesz))
done < <(readelf -lW "$TMP/libtv.so" | awk '$1 == "LOAD" { print $2, $5 }')
cut=$(((load_end + 4095) / 4096 * 4096))
info_at=$(readelf -SW "$TMP/libtv.so" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".debug_info" { print $4 }')
unit_b=$(readelf --debug-dump=info "$TMP/libtv.so" | sed -n 's/.*Compilation Unit @ offset \([0-9a-fx]*\):.*/\1/p' | sed -n 2p)
if [ -z "$info_at" ] || [ -z "$unit_b" ]; then fail "libtv.so: no second unit in .debug_info"; fi
((0x$info_at + unit_b >= cut + 4096)) ||
	fail "libtv.so: phase b's DWARF at $((0x$info_at + unit_b)) is not past the cut at $cut"

# nobody, without capabilities (an array, not a function: $! must be the process itself)
as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)

# round WHAT FILE SIZE: the user runs tv, root records it; after the first drains FILE (the
# library, or its debug file) is cut to SIZE bytes and the process moves on to phase b, for 2 s:
# the recording (5 s) drains it at least twice before its end.
round() {
	local what=$1 file=$2 size=$3 pid rc
	rm -f "$U/go" "$TMP/r.folded"
	"${as_user[@]}" "$U/tv" "$U/go" 2 2>"$TMP/tv.err" &
	pid=$!
	BG_PIDS="$BG_PIDS $pid"
	for _ in $(seq 100); do grep -qs libtv.so "/proc/$pid/maps" && break; sleep 0.05; done
	grep -qs libtv.so "/proc/$pid/maps" || fail "$what: tv did not map libtv.so: $(cat "$TMP/tv.err")"
	start_recording -p "$pid" --drain-interval 1s -d 5s -o "$TMP/r.folded"
	# two drains name phase a: its CU indexed, the files mapped
	sleep 2.5
	"${as_user[@]}" truncate -s "$size" "$U/$file" || fail "$what: the user cannot truncate $file"
	"${as_user[@]}" touch "$U/go"
	wait "$REC"
	rc=$?
	[ "$rc" -eq 0 ] || fail "$what: record exited $rc: $(cat "$TMP/rec.err")"
	check_folded_grammar "$TMP/r.folded"
	grep -q 'cp_tv_phase_a' "$TMP/r.folded" || fail "$what: phase a not named before the cut"
	[ "$(count "$TMP/r.folded" 'libtv.so\+0x')" -gt 0 ] ||
		fail "$what: no unnamed frame of libtv.so after the cut: $(grep -c . "$TMP/r.folded") stacks"
	grep -q '1 object shrank while being read.*libtv.so' "$TMP/rec.err" ||
		fail "$what: the summary does not count libtv.so: $(cat "$TMP/rec.err")"
	wait "$pid" 2>/dev/null
	note "$what: exit 0, $(total "$TMP/r.folded") samples, libtv.so counted"
}

setup() {
	rm -rf "${U:?}"/*
	cp "$TMP/tv" "$TMP/libtv.so" "$U/"
	chmod 755 "$TMP"
	chown -R 65534:65534 "$U"
}

# shared: the whole system is recorded (only tv* kept); the user's copy of the library is
# indexed first, truncated, and then root starts its own copy of the same build-id
# (tvroot): the index read from the user's file must not cost root's process its names and
# lines (--lines).
shared_round() {
	local pid rpid rc
	rm -f "$U/go" "$TMP/r.folded"
	"${as_user[@]}" "$U/tv" "$U/go" 2 2>"$TMP/tv.err" &
	pid=$!
	BG_PIDS="$BG_PIDS $pid"
	for _ in $(seq 100); do grep -qs libtv.so "/proc/$pid/maps" && break; sleep 0.05; done
	start_recording --comm '^tv' --lines --drain-interval 1s -d 5s -o "$TMP/r.folded"
	sleep 2.5
	"${as_user[@]}" truncate -s "$cut" "$U/libtv.so" || fail "shared: cannot truncate"
	"$R/tvroot" "$U/go" 2 &
	rpid=$!
	BG_PIDS="$BG_PIDS $rpid"
	for _ in $(seq 100); do grep -qs libtv.so "/proc/$rpid/maps" && break; sleep 0.05; done
	"${as_user[@]}" touch "$U/go"
	wait "$REC"
	rc=$?
	[ "$rc" -eq 0 ] || fail "shared: record exited $rc: $(cat "$TMP/rec.err")"
	check_folded_grammar "$TMP/r.folded"
	# with its line: named from DWARF, its own, not only from its symbol table
	grep -qE '^tvroot;.*;cp_tv_phase_b \(b\.c:[0-9]+\)' "$TMP/r.folded" ||
		fail "shared: root's tvroot lost the DWARF of phase b: $(grep '^tvroot' "$TMP/r.folded" | head -3)"
	grep -q '^tv;.*libtv.so+0x' "$TMP/r.folded" || fail "shared: the user's tv is still named after the cut"
	grep -q '1 object shrank while being read.*libtv.so' "$TMP/rec.err" ||
		fail "shared: the summary does not count libtv.so: $(cat "$TMP/rec.err")"
	wait "$pid" "$rpid" 2>/dev/null
	note "shared build-id: exit 0, root's copy named, the user's counted"
}

R=$TMP/root
mkdir "$R"
cp "$TMP/libtv.so" "$R/"
cp "$TMP/tv" "$R/tvroot"
setup
shared_round

# the library itself, twice
for i in 1 2; do
	setup
	round "library, round $i" libtv.so "$cut"
done

# a separate debug file found through .gnu_debuglink, truncated to nothing
for i in 1 2; do
	setup
	objcopy --only-keep-debug "$U/libtv.so" "$U/libtv.so.debug"
	objcopy --strip-debug --add-gnu-debuglink="$U/libtv.so.debug" "$U/libtv.so"
	chown 65534:65534 "$U"/*
	round "debug file, round $i" libtv.so.debug 0
done
