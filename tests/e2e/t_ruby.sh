#!/bin/bash
# Ruby (MRI) frames merged with native frames (--ruby, the default), under Debian's ruby 3.1
# (scripts/install-deps.sh installs it). A script with a known call tree,
# main_loop -> outer -> {hot 3/4, cold 1/4} (tests/data/ruby/tree.rb), run as `-- ruby`:
#  - >= 95 % of the samples in the script's code (a frame of tree.rb) show their Ruby frames
#    as a prefix of <main>;main_loop;outer;{hot|cold} in order (a C method last allowed:
#    Process.clock_gettime under main_loop) AND reach _start through ruby's own native frames
#    (ruby_run_node below rb::<main>);
#  - hot / (hot + cold) within 0.1 of 0.75;
#  - hot's frames carry the lines of its loop (4-6) in >= 90 % of its samples;
#  - two Ruby threads, one in pure Ruby, one in Zlib::Deflate.deflate without the GVL: every
#    sample in zlib is under rb::squash, never under rb::spin (the GVL holder's stack would put
#    them there), and rb::spin's samples hold no zlib frame;
#  - processes started while recording: a forked child and a spawned ruby get Ruby frames;
#  - a ruby running before the recording (-p) gets them too;
#  - --no-ruby: no Ruby frames.
# The scripts run for CPU seconds (CLOCK_PROCESS_CPUTIME_ID), so a loaded machine stretches
# their wall time, not their samples; shares are judged, and floors far below the samples due.
. "$(dirname "$0")/lib.sh"
require_bpf

RUBY=$(command -v ruby3.1 || command -v ruby) || skip "ruby is missing (scripts/install-deps.sh installs it)"
"$RUBY" -e 'exit(RUBY_VERSION.start_with?("3.1") ? 0 : 1)' ||
	skip "$RUBY is not Ruby 3.1 (Debian's, from scripts/install-deps.sh)"

cp "$(dirname "$0")/../../tests/data/ruby/tree.rb" "$TMP/tree.rb"

cat >"$TMP/threads.rb" <<'RB'
require "zlib"

FINISH = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) + Float(ARGV[0])
DATA = Random.new(1).bytes(1 << 20)

def now
  Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
end

def spin
  s = 0
  while now < FINISH
    i = 0
    while i < 10000
      s += i
      i += 1
    end
  end
end

def squash
  Zlib::Deflate.deflate(DATA, 9) while now < FINISH
end

t = Thread.new { squash }
spin
t.join
RB

cat >"$TMP/workers.rb" <<'RB'
def spin(secs)
  finish = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) + secs
  s = 0
  while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) < finish
    i = 0
    while i < 10000
      s += i
      i += 1
    end
  end
end

def forked(secs)
  spin(secs)
end

secs = Float(ARGV[0])
a = fork { forked(secs) }
b = Process.spawn(RbConfig.ruby, "-e", "def spawned(s) = (f = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) + s; nil while Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) < f); spawned(#{secs})")
Process.wait(a)
Process.wait(b)
RB

# The Ruby frames of each line, in order: "<main>;main_loop;outer;hot COUNT"; a frame without
# a file (a C method) as "c:NAME"
rb_chains() {
	awk '{ n = split($0, f, ";"); c = f[n]; sub(/.* /, "", c); sub(/ [0-9]+$/, "", f[n])
		out = ""
		for (i = 1; i <= n; i++) if (f[i] ~ /^rb::/) {
			x = f[i]; sub(/^rb::/, "", x)
			if (x !~ / \(.*:[0-9]+\)$/) x = "c:" x
			sub(/ \(.*$/, "", x)
			out = out (out == "" ? "" : ";") x
		}
		if (out != "") print out, c }' "$1"
}

out=$TMP/tree.folded
expect_status 0 "$CPUPROF" record -v -F 999 --lines -o "$out" -o "$TMP/tree.json" -- "$RUBY" "$TMP/tree.rb" 1.5
check_folded_grammar "$out"
# JSON: valid (speedscope's schema and cpuprof's), Ruby frames of kind ruby with their file
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
"$ROOT/scripts/install-node-deps.sh" || fail "cannot install the node packages (scripts/install-node-deps.sh)"
node "$ROOT/scripts/validate-json.js" "$TMP/tree.json" >"$TMP/valid" 2>&1 || fail "invalid JSON output: $(cat "$TMP/valid")"
node - "$TMP/tree.json" >"$TMP/json.txt" 2>&1 <<'JS' || fail "JSON Ruby frames: $(cat "$TMP/json.txt")"
const c = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8')).cpuprof;
const hot = c.frames.filter((f) => f.name === 'rb::hot');
if (!hot.length || hot.some((f) => f.kind !== 'ruby' || !/\/tree\.rb$/.test(f.file || '')))
	throw new Error(`rb::hot frames: ${JSON.stringify(hot)}`);
if (c.frames.some((f) => f.kind === 'ruby' && !f.name.startsWith('rb::')))
	throw new Error('a ruby frame not named rb::');
JS
grep -q 'Ruby walks: whole [0-9]' "$TMP/err" || fail "no 'Ruby walks' counters in -v's summary: $(grep -i ruby "$TMP/err")"
grep 'tree\.rb:' "$out" >"$TMP/script"
rb_chains "$TMP/script" >"$TMP/chains"
with=$(total "$TMP/chains")
chain='^<main>(;main_loop(;outer(;(hot|cold))?)?)?(;c:[^;]+)? [0-9]+$'
# the chain in order, and ruby's native frames from _start to it
grep -E ';_start;(.*;)?ruby_run_node;(.*;)?rb::<main> ' "$TMP/script" >"$TMP/rooted"
rb_chains "$TMP/rooted" >"$TMP/rooted.chains"
exact=$(count "$TMP/rooted.chains" "$chain")
hot=$(count "$TMP/chains" '^<main>;main_loop;outer;hot ')
cold=$(count "$TMP/chains" '^<main>;main_loop;outer;cold ')
hotline=$(count "$out" 'rb::hot \([^)]*tree\.rb:[4-6]\)')
[ "$with" -ge 100 ] || fail "$with samples in the script's Ruby methods, want >= 100: $(grep -i ruby "$TMP/err")"
pct=$(share "$exact" $((with - exact)))
note "$with samples in the script's methods, $pct% exact chains rooted at _start, hot $hot cold $cold, hot at lines 4-6: $hotline"
[ "$pct" -ge 95 ] || fail "$pct% of the Ruby stacks are exact chains from _start, want >= 95: $(grep -vE "$chain" "$TMP/chains" | sort -k2 -nr | head -3); $(grep -v ';_start;' "$TMP/script" | head -2)"
split=$(share "$hot" "$cold")
[ "$split" -ge 65 ] && [ "$split" -le 85 ] || fail "hot share $split%, want 75 +- 10"
[ "$(share "$hotline" $((hot - hotline)))" -ge 90 ] ||
	fail "only $hotline of $hot hot samples at tree.rb:4-6: $(grep -o 'rb::hot ([^)]*)' "$out" | sort | uniq -c | head -3)"
# the script's own line of each caller: outer calls hot at line 22, main_loop outer at 28
[ "$(count "$out" 'rb::main_loop \([^)]*tree\.rb:28\);rb::outer \([^)]*tree\.rb:22\);rb::hot ')" -ge $((hot * 9 / 10)) ] ||
	fail "the callers' lines are not main_loop:28, outer:22: $(grep -o 'rb::main_loop ([^)]*);rb::outer ([^)]*)' "$out" | sort | uniq -c | head -3)"

out=$TMP/threads.folded
expect_status 0 "$CPUPROF" record -F 999 -o "$out" -- "$RUBY" "$TMP/threads.rb" 1.5
check_folded_grammar "$out"
zlib='(libz\.so|deflate)'
z=$(count "$out" "$zlib")
zsq=$(count "$out" "rb::squash;.*$zlib")
zspin=$(count "$out" "rb::spin;.*$zlib")
spin=$(count "$out" 'rb::spin( |;)')
spinsq=$(count "$out" 'rb::spin;.*rb::squash|rb::squash;.*rb::spin')
note "threads: $z samples in zlib ($zsq under squash, $zspin under spin), $spin in spin"
[ "$z" -ge 30 ] || fail "$z samples in zlib, want >= 30"
[ "$spin" -ge 30 ] || fail "$spin samples in spin, want >= 30"
[ "$zspin" -eq 0 ] || fail "$zspin zlib samples under the other thread's rb::spin"
[ "$spinsq" -eq 0 ] || fail "$spinsq samples mix both threads' methods"
[ "$(share "$zsq" $((z - zsq)))" -ge 90 ] || fail "$zsq of $z zlib samples under rb::squash"

out=$TMP/workers.folded
expect_status 0 "$CPUPROF" record -F 999 -o "$out" -- "$RUBY" "$TMP/workers.rb" 1
check_folded_grammar "$out"
nf=$(count "$out" 'rb::forked;(.*;)?rb::spin( |;)')
ns=$(count "$out" 'rb::spawned( |;)')
note "workers: forked $nf samples in rb::spin, spawned $ns in rb::spawned"
[ "$nf" -ge 20 ] || fail "the forked child has $nf samples under rb::forked, rb::spin"
[ "$ns" -ge 20 ] || fail "the spawned ruby has $ns samples under rb::spawned"

# a ruby running before the recording (-p): found among the processes read at the start
bg "$RUBY" "$TMP/tree.rb" 30
rpid=$!
sleep 0.5
record_window "$rpid" 1 -F 999 -p "$rpid" -o "$TMP/pid.folded"
kill "$rpid" 2>/dev/null
all=$(total "$TMP/pid.folded")
n=$(count "$TMP/pid.folded" ';rb::<main>;rb::main_loop;')
note "-p: $n of $all samples with the script's Ruby frames"
expect_samples "$all" "$WINDOW_CPU" 999 "-p $rpid"
[ $((100 * n)) -ge $((90 * all)) ] || fail "-p: $n of $all samples with the script's Ruby frames: $(grep -i ruby "$TMP/rec.err")"

out=$TMP/noruby.folded
expect_status 0 "$CPUPROF" record -F 499 --no-ruby -o "$out" -- "$RUBY" "$TMP/tree.rb" 1
n=$(count "$out" 'rb::')
[ "$n" -eq 0 ] || fail "--no-ruby: $n samples with Ruby frames"
[ "$(total "$out")" -ge 50 ] || fail "--no-ruby: $(total "$out") samples"
echo "ok: Ruby frames under $("$RUBY" -e 'print RUBY_VERSION')"
