#!/bin/bash
# A runtime's walker is loaded when its first process is found, not at the start (issue 25):
# recording by name (--comm, like system-wide), a Ruby started after sampling began
#  - gets its walker loaded then: -v says "pid N: Ruby found, its walker loaded" after the
#    "sampling" line, for that process;
#  - has its Ruby methods in the profile (rb::hot under rb::outer) once loaded.
# With -p or a COMMAND the walkers are loaded at the start (t_ruby, t_python...): no such line.
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
hot=$(grep -E 'rb::outer;rb::hot' "$out" | awk '{s += $NF} END {print s + 0}')
note "$hot samples in rb::outer;rb::hot; $(grep 'Ruby found' "$TMP/rec.err")"
[ "$hot" -ge 100 ] || fail "$hot samples in rb::outer;rb::hot, want >= 100: $(grep -i ruby "$TMP/rec.err")"
exit 0
