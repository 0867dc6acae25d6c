# SPDX-License-Identifier: GPL-2.0
# Shared by the end-to-end tests: sourced, never run. Each test runs the real binary as root
# against the fixture programs and checks exact stacks, names and counts.
set -u

CPUPROF=${CPUPROF:-./cpuprof}
FIX=${CPUPROF_FIXTURES:-build/rel/fixtures}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpuprof-e2e.XXXXXX")
BG_PIDS=""
cleanup() {
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
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
