#!/bin/bash
# Files that any user can plant never stall or blow up cpuprof: a perf map that is a FIFO or a
# link to /dev/zero (the JIT process's own /tmp/perf-PID.map), a .gnu_debuglink naming a FIFO
# or /dev/zero, debug sections whose headers lie. Each run is bounded by timeout; before the fix the FIFO ones hung for ever.
. "$(dirname "$0")/lib.sh"
require_bpf

maps=""
trap 'rm -f $maps; cleanup' EXIT

# a JIT process whose perf map is replaced by something hostile once it has written it
hostile_map() {
	bg "$FIX/fix_jit" 30
	pid=$!
	map=/tmp/perf-$pid.map
	maps="$maps $map"
	for _ in $(seq 100); do [ -s "$map" ] && break; sleep 0.05; done
	[ -s "$map" ] || fail "fix_jit wrote no perf map"
	rm -f "$map"
	"$@" "$map"
}

hostile_map mkfifo
expect_status 0 timeout 60 "$CPUPROF" record -q -d 1s -p "$pid" -o "$TMP/fifo.folded"
fifo_n=$(count "$TMP/fifo.folded" '^fix_jit;')
[ "$fifo_n" -gt 20 ] || fail "perf map FIFO: $fifo_n fix_jit samples"
grep -q cp_jit_loop "$TMP/fifo.folded" && fail "a name was read from a FIFO"
kill "$pid"

hostile_map ln -s /dev/zero
expect_status 0 timeout 60 "$CPUPROF" record -q -d 1s -p "$pid" -o "$TMP/zero.folded"
zero_n=$(count "$TMP/zero.folded" '^fix_jit;')
[ "$zero_n" -gt 20 ] || fail "perf map -> /dev/zero: $zero_n fix_jit samples"
kill "$pid"

# a stripped object whose .gnu_debuglink file is a FIFO, then a link to /dev/zero
cp "$FIX/inl_fix.stripped" "$TMP/"
addr=$(nm "$FIX/inl_fix" | awk '/ main$/ { print "0x" $1 }')
mkfifo "$TMP/inl_fix.debug"
expect_status 0 timeout 30 "$CPUPROF" symbolize -e "$TMP/inl_fix.stripped" "$addr"
rm "$TMP/inl_fix.debug"
ln -s /dev/zero "$TMP/inl_fix.debug"
expect_status 0 timeout 30 "$CPUPROF" symbolize -e "$TMP/inl_fix.stripped" "$addr"

# a .debug_line whose header says NOBITS: the names stay, the lost lines are reported
cp "$FIX/fix_tree" "$TMP/fix_tree"
damage_debug_line "$TMP/fix_tree" || fail "could not damage the copy"
expect_status 0 timeout 60 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/damaged.folded" -- "$TMP/fix_tree" 1
grep -q 'fix_tree has damaged debug sections' "$TMP/err" ||
	fail "damaged .debug_line not reported: $(cat "$TMP/err")"
damaged_n=$(count "$TMP/damaged.folded" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf( |;)')
[ "$damaged_n" -gt 100 ] || fail "damaged .debug_line: $damaged_n named leaf samples"
note "perf map FIFO: $fifo_n samples, -> /dev/zero: $zero_n; debuglink FIFO and /dev/zero: no hang; NOBITS .debug_line: $damaged_n named, reported"
exit 0
