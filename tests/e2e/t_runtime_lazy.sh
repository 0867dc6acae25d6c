#!/bin/bash
# A runtime's walker is loaded when its first process is found, not at the start (issue 25):
# recording by name (--comm, like system-wide), a Ruby started after sampling began
#  - gets its walker loaded then: -v says "pid N: Ruby found, its walker loaded" after the
#    "sampling" line, for that process;
#  - has its Ruby methods in the profile (rb::hot under rb::outer) once loaded.
# A COMMAND gets the walkers its file points to before it runs (src/interp/rt_hint.h):
#  - a native program: none (-v: "walkers loaded before the command runs: none");
#  - ruby itself: Ruby's, so no "found" line later, and its methods from the first samples;
#  - a native program that starts a Ruby (find -exec): Ruby's when that process is found.
# -p: the targets' walkers are loaded before the "sampling" line.
. "$(dirname "$0")/lib.sh"
require_bpf
RUBY=$(command -v ruby3.1 || command -v ruby) || skip "ruby is missing (scripts/install-deps.sh installs it)"

cat >"$TMP/lazy.rb" <<'RB'
FINISH = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) + Float(ARGV[0])
def now = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
def hot
  s = 0
  i = 0
  while i < 10000
    s += i
    i += 1
  end
  s
end
def outer
  hot while now < FINISH
end
outer
RB

out=$TMP/lazy.folded
comm=$(basename "$(readlink -f "$RUBY")")
start_recording -F 499 --comm "^${comm:0:15}\$" --no-python --no-php --no-perl --no-node --no-java -o "$out"
"$RUBY" "$TMP/lazy.rb" 4 || fail "ruby failed"
kill -INT "$REC"
wait "$REC" || fail "record failed: $(cat "$TMP/rec.err")"
loaded=$(grep -c 'Ruby found, its walker loaded' "$TMP/rec.err")
[ "$loaded" -eq 1 ] || fail "$loaded 'Ruby found, its walker loaded' lines, want 1: $(cat "$TMP/rec.err")"
sed -n '/sampling [0-9]* CPUs/,$p' "$TMP/rec.err" | grep -q "Ruby found, its walker loaded" ||
	fail "the Ruby walker loaded before sampling: $(cat "$TMP/rec.err")"
hot=$(count "$out" 'rb::outer;rb::hot')
note "$hot samples in rb::outer;rb::hot; $(grep 'Ruby found' "$TMP/rec.err")"
[ "$hot" -ge 100 ] || fail "$hot samples in rb::outer;rb::hot, want >= 100: $(grep -i ruby "$TMP/rec.err")"

# a native command: no walker before it runs
expect_status 0 "$CPUPROF" record -v -F 99 -o "$TMP/native.folded" -- "$FIX/fix_tree" 0.2
grep -q 'walkers loaded before the command runs: none' "$TMP/err" ||
	fail "native command: $(grep -i 'walker' "$TMP/err")"

# ruby as the command: its walker first, its frames from the start
expect_status 0 "$CPUPROF" record -v -F 499 --no-python -o "$TMP/cmd.folded" -- "$RUBY" "$TMP/lazy.rb" 1
grep -q 'walkers loaded before the command runs: Ruby$' "$TMP/err" ||
	fail "ruby command: $(grep -i 'walker' "$TMP/err")"
grep -q 'Ruby found' "$TMP/err" && fail "ruby command: its walker loaded again: $(grep 'Ruby found' "$TMP/err")"
all=$(count "$TMP/cmd.folded" 'rb::hot')
[ "$all" -ge 100 ] || fail "ruby command: $all samples in rb::hot"

# a native command starting a Ruby: the walker when that Ruby is found
expect_status 0 "$CPUPROF" record -v -F 499 -o "$TMP/find.folded" -- \
	find "$TMP" -maxdepth 0 -exec "$RUBY" "$TMP/lazy.rb" 2 \;
grep -q 'walkers loaded before the command runs: none' "$TMP/err" ||
	fail "find: $(grep -i 'walker' "$TMP/err")"
grep -q 'Ruby found, its walker loaded' "$TMP/err" || fail "find: no Ruby found: $(cat "$TMP/err")"
hot=$(count "$TMP/find.folded" 'rb::outer;rb::hot')
note "find -exec ruby: $hot samples in rb::outer;rb::hot"
[ "$hot" -ge 100 ] || fail "find -exec ruby: $hot samples in rb::outer;rb::hot"

# -p: the target's walker before sampling starts
bg "$RUBY" "$TMP/lazy.rb" 20
rpid=$!
sleep 0.5
record_window "$rpid" 2 -v -F 499 -p "$rpid" -o "$TMP/pid.folded"
kill "$rpid" 2>/dev/null
sed -n '/sampling [0-9]* CPUs/q;p' "$TMP/rec.err" | grep -q "pid $rpid: Ruby found, its walker loaded" ||
	fail "-p: the walker not loaded before sampling: $(cat "$TMP/rec.err")"
all=$(total "$TMP/pid.folded")
hot=$(count "$TMP/pid.folded" 'rb::outer;rb::hot')
note "-p: $hot of $all samples in rb::outer;rb::hot"
[ $((100 * hot)) -ge $((95 * all)) ] && [ "$all" -ge 100 ] || fail "-p: $hot of $all samples in rb::outer;rb::hot"
exit 0
