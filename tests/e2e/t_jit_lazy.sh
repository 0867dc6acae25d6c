#!/bin/bash
# The walk's JIT hook (HotSpot's and V8's steps, most of the verifier's work for the walk) is
# loaded with the first JVM or node, not at the start (issue 25). Recording by name (--comm,
# like system-wide) with no node running:
#  - -v says at the start that the hook is not loaded ("comes with the first such process"),
#    not "the walk's JIT hook with them";
#  - a node started after sampling began gets V8's walker and the hook loaded then, once: -v
#    says "pid N: V8 found, its walker and the JIT hook loaded" for that process, after the
#    "sampling" line;
#  - its JS frames come out named as with the hook loaded at the start (t_node.sh): the known
#    call tree of tests/fixtures/fix_tree.js, js::main;js::run;js::heavy;js::leafA...
. "$(dirname "$0")/lib.sh"
require_bpf

node=/usr/bin/node
[ -x "$node" ] || skip "$node is missing (Debian package nodejs)"
cp "$(cd "$(dirname "$0")/../fixtures" && pwd)/fix_tree.js" "$TMP/"
# a name of its own (comm is the name exec'd): no other node on the machine is recorded
name=cpjl$$
ln -s "$node" "$TMP/$name"

out=$TMP/lazy.folded
start_recording -F 499 --comm "^$name\$" --no-python --no-ruby --no-php --no-perl --no-java -o "$out"
start=$(sed -n '/sampling [0-9]* CPUs/q;p' "$TMP/rec.err")
grep -q "BPF programs loaded in [0-9]* ms; the walk's JIT hook (Java, node) comes with the first such process" <<<"$start" ||
	fail "the start does not say the JIT hook is left for later: $start"
! grep -q 'JIT hook with them' <<<"$start" || fail "the JIT hook was loaded at the start: $start"

(cd "$TMP" && exec "./$name" fix_tree.js 3 >/dev/null) &
npid=$!
wait "$npid" || fail "node failed"
kill -INT "$REC"
wait "$REC" || fail "record failed: $(cat "$TMP/rec.err")"

loaded=$(grep -c 'V8 found, its walker and the JIT hook loaded' "$TMP/rec.err")
[ "$loaded" -eq 1 ] || fail "$loaded 'V8 found, its walker and the JIT hook loaded' lines, want 1: $(cat "$TMP/rec.err")"
sed -n '/sampling [0-9]* CPUs/,$p' "$TMP/rec.err" | grep -q "pid $npid: V8 found, its walker and the JIT hook loaded" ||
	fail "the hook was not loaded for node (pid $npid) after sampling began: $(grep -E 'V8|JIT' "$TMP/rec.err")"

check_folded_grammar "$out"
leaves=$(count "$out" "^$name;.*;js::leaf[AB] [0-9]+\$")
whole=$(count "$out" "^$name;.*;js::main;js::run;(js::heavy;js::leafA|js::light;js::leafB) [0-9]+\$")
note "node started mid-recording: $leaves samples in js::leafA/leafB, $whole with the whole JS chain; $(grep 'V8 found' "$TMP/rec.err")"
[ "$leaves" -ge 300 ] || fail "only $leaves samples in js::leafA/leafB: $(grep -E 'leaf[AB]' "$out" | head -2)"
[ $((100 * whole)) -ge $((95 * leaves)) ] ||
	fail "only $whole of $leaves leaf samples have the JS chain: $(grep -E 'leaf[AB] [0-9]+$' "$out" | grep -vE 'js::main;js::run;' | cut -c1-300 | head -3)"
exit 0
