# SPDX-License-Identifier: GPL-2.0
# Shared by the end-to-end tests: sourced, never run. Each test runs the real binary as root
# against the fixture programs and checks exact stacks, names and counts.
set -u

CPUPROF=${CPUPROF:-./cpuprof}
FIX=${CPUPROF_FIXTURES:-build/rel/fixtures}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpuprof-e2e.XXXXXX")
BG_PIDS=""
cleanup() {
	# every background job too, not only the fixtures: a reader left blocked in open() on a
	# FIFO would otherwise hold the wait below, and the whole run, for ever
	for p in $BG_PIDS $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "${KEEP:-}" ] && echo "kept $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# Outside CI a test without privileges is skipped (77); in CI a skip is a failure, because a
# skipped end-to-end test would hide a broken profiler.
skip() {
	if [ -n "${CI:-}" ]; then
		echo "FAIL (CI is set, so this may not skip): $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

require_bpf() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
	[ -r /sys/kernel/btf/vmlinux ] || skip "the kernel has no BTF"
	"$CPUPROF" record -q -d 100ms -o "$TMP/probe.folded" >/dev/null 2>"$TMP/probe.err" ||
		skip "cpuprof cannot record here: $(cat "$TMP/probe.err")"
}

# Start a fixture in the background and remember it for cleanup; its pid in $!.
bg() {
	"$@" &
	BG_PIDS="$BG_PIDS $!"
}

# Sum of the counts of the lines of FILE whose stack matches the extended regex RE.
count() {
	grep -E -- "$2" "$1" | awk '{ s += $NF } END { print s + 0 }'
}

total() {
	awk '{ s += $NF } END { print s + 0 }' "$1"
}

# Every line is "frame;frame;... COUNT" with no empty frame and no control character.
check_folded_grammar() {
	[ -s "$1" ] || fail "$1 is empty"
	[ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || fail "$1 does not end in a newline"
	bad=$(LC_ALL=C grep -vcE '^[^;[:cntrl:]]+(;[^;[:cntrl:]]+)* [0-9]+$' "$1")
	[ "$bad" -eq 0 ] || fail "$1 has $bad lines that are not valid folded stacks: $(LC_ALL=C grep -vE '^[^;[:cntrl:]]+(;[^;[:cntrl:]]+)* [0-9]+$' "$1" | head -3)"
	sorted=$(LC_ALL=C sort -c "$1" 2>&1) || fail "$1 is not sorted: $sorted"
	dups=$(sed 's/ [0-9]*$//' "$1" | sort | uniq -d | head -1)
	[ -z "$dups" ] || fail "$1 repeats a stack: $dups"
}

# Share of A in A+B as a percentage (integer).
share() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + b == 0) print 0; else printf "%d", 100 * a / (a + b) }'
}

expect_status() {
	want=$1
	shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	got=$?
	[ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want; stderr: $(cat "$TMP/err")"
}

# Start a recording in the background (its pid in REC) and wait until it samples: with -v it
# says "sampling N CPUs" on stderr (file $TMP/rec.err).
start_recording() {
	# a new file: the shell truncates it only once the child runs, and the loop below must
	# not find the previous recording's "sampling" line
	rm -f "$TMP/rec.err"
	"$CPUPROF" record -v "$@" 2>"$TMP/rec.err" &
	REC=$!
	for _ in $(seq 200); do
		grep -qs 'sampling [0-9]* CPUs' "$TMP/rec.err" && return 0
		kill -0 "$REC" 2>/dev/null || fail "record $* exited early: $(cat "$TMP/rec.err")"
		sleep 0.05
	done
	fail "record $* did not start sampling in 10 s: $(cat "$TMP/rec.err")"
}

note() {
	echo "  $*"
}

# Sample counts follow the CPU time a workload got, never the wall clock: on a loaded machine
# a fixture that spins for 2 s may get a fraction of a CPU second. The fixtures print
# "NAME: cpu X s" on stderr when they exit; a running process's CPU time is in /proc.

# fixture_cpu FILE NAME [SUFFIX]: X from the line "NAME: cpu X s[SUFFIX]" of FILE.
fixture_cpu() {
	local c
	c=$(sed -n "s/^$2: cpu \([0-9.]*\) s${3:-}\$/\1/p" "$1" | tail -1)
	[ -n "$c" ] || fail "$2 did not report its CPU time: $(cat "$1")"
	echo "$c"
}

# cpu_now PID: the CPU seconds PID has used so far (utime + stime of /proc/PID/stat).
# cpu_since A B: B - A (seconds).
cpu_now() {
	local s
	s=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null) || fail "process $1 is gone"
	awk -v t="$(getconf CLK_TCK)" '{ printf "%.3f", ($12 + $13) / t }' <<<"$s"
}

cpu_since() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print "?"; else printf "%.3f", b - a }'
}

# record_window PID SECONDS ARGS...: record ARGS (which name PID, e.g. -p PID) for SECONDS of
# wall time once sampling runs, then stop it with SIGINT. WINDOW_CPU is the CPU time PID got
# inside that window, all of which was sampled. The profile goes where ARGS or stdout say.
record_window() {
	local pid=$1 secs=$2 a b
	shift 2
	start_recording "$@"
	a=$(cpu_now "$pid")
	sleep "$secs"
	b=$(cpu_now "$pid")
	kill -INT "$REC"
	wait "$REC" || fail "record $* failed: $(cat "$TMP/rec.err")"
	WINDOW_CPU=$(cpu_since "$a" "$b")
}

# expect_samples GOT CPU HZ WHAT: a process sampled at HZ for CPU seconds of CPU time has
# (about) CPU * HZ samples; fail below 80 % of that, less 3 for /proc's 10 ms ticks.
expect_samples() {
	local want
	[[ "$2" =~ ^[0-9]+(\.[0-9]*)?$ ]] || fail "$4: no CPU time to judge $1 samples by ('$2')"
	want=$(awk -v c="$2" -v f="$3" 'BEGIN { w = int(0.8 * c * f) - 3; print (w > 0 ? w : 0) }')
	note "$4: $1 samples for $2 s of CPU at $3 Hz (at least $want)"
	[ "$1" -ge "$want" ] || fail "$4: only $1 samples for $2 s of CPU at $3 Hz (expected >= $want)"
}

# check_tree FILE HZ WHAT: FILE profiles fix_tree (the known call tree) at HZ, and $TMP/err
# holds the fixture's "cpu X s": every 1/HZ s of CPU it got is one sample (+-10 %), at least
# 95 % of them carry the whole chain, the heavy branch has 75 %, callers come before callees
# and the fixture's own frames are named.
check_tree() {
	local out=$1 hz=$2 heavy light fixture pct cpu want
	check_folded_grammar "$out"
	heavy=$(count "$out" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_heavy;cp_fix_leaf( |;)')
	light=$(count "$out" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_light;cp_fix_leaf( |;)')
	fixture=$(count "$out" '^fix_tree;')
	pct=$(share "$heavy" "$light")
	cpu=$(fixture_cpu "$TMP/err" fix_tree) || exit 1
	want=$(awk -v c="$cpu" -v f="$hz" 'BEGIN { printf "%d", c * f }')
	note "$3: samples $(total "$out"), fix_tree $fixture for ${cpu} s of CPU ($want expected at $hz Hz), heavy $heavy, light $light, heavy share ${pct}% (expected 75%)"
	[ $((100 * fixture)) -ge $((90 * want)) ] && [ $((100 * fixture)) -le $((110 * want)) ] ||
		fail "$3: $fixture fix_tree samples for $cpu s of CPU at $hz Hz (expected $want +-10%)"
	[ $((100 * (heavy + light))) -ge $((95 * fixture)) ] ||
		fail "$3: only $((heavy + light)) of $fixture samples have main;cp_fix_run;cp_fix_*;cp_fix_leaf"
	[ "$pct" -ge 68 ] && [ "$pct" -le 82 ] || fail "$3: heavy branch has ${pct}%, expected 75% (68..82)"
	# the wrong order must never appear
	grep -qE 'cp_fix_leaf;cp_fix_(heavy|light)|cp_fix_heavy;cp_fix_run' "$out" &&
		fail "$3: callee before caller: $(grep -E 'cp_fix_leaf;cp_fix_' "$out" | head -1)"
	# the fixture's own code is always named (the dynamic loader's start-up may not be)
	grep -qE '^fix_tree;.*(fix_tree\+0x|\[unknown\].*;cp_fix_)' "$out" &&
		fail "$3: unnamed fixture frame: $(grep -E 'fix_tree\+0x|\[unknown\].*;cp_fix_' "$out" | head -1)"
	return 0
}

# Mark FILE's .debug_line section SHT_NOBITS: the header no longer matches the data, as in a
# damaged object; its names stay, its lines are lost (and reported).
damage_debug_line() {
	python3 - "$1" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b")
d = f.read()
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
stroff, = struct.unpack_from("<Q", d, shoff + shstrndx * shentsize + 0x18)
for i in range(shnum):
    h = shoff + i * shentsize
    name, = struct.unpack_from("<I", d, h)
    if d[stroff + name:].split(b"\0")[0] == b".debug_line":
        f.seek(h + 4)
        f.write(struct.pack("<I", 8))  # SHT_NOBITS
        sys.exit(0)
sys.exit(1)
PY
}

# The Go toolchains the Go tests run against, one "GO_COMMAND FIXTURE_DIR" line each: the go in
# PATH with $FIX (the Makefile's fixtures), and, when CPUPROF_GO_EXTRA names another toolchain's
# go command (e.g. Debian's /usr/lib/go-1.23/bin/go), the same fixtures built by it (make
# go-fixtures, into go-extra/VERSION beside $FIX, kept for the next run). Unset, the tests run
# for the one toolchain: nothing was asked, so that is not a skip and CI passes without it;
# set but unusable, the test fails.
go_toolchains() {
	local ver dir root
	echo "go $FIX"
	[ -n "${CPUPROF_GO_EXTRA:-}" ] || return 0
	ver=$("$CPUPROF_GO_EXTRA" env GOVERSION 2>"$TMP/goextra.err") && [ -n "$ver" ] ||
		fail "CPUPROF_GO_EXTRA=$CPUPROF_GO_EXTRA is not a go command: $(cat "$TMP/goextra.err")"
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	dir=$(mkdir -p "$(dirname "$FIX")" && cd "$(dirname "$FIX")" && pwd)/go-extra/$ver
	make -C "$root" --no-print-directory -s go-fixtures GO="$CPUPROF_GO_EXTRA" GO_FIXDIR="$dir" \
		>"$TMP/goextra.err" 2>&1 || fail "make go-fixtures with $ver: $(tail -5 "$TMP/goextra.err")"
	echo "$CPUPROF_GO_EXTRA $dir"
}
