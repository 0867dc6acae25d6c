#!/bin/bash
# node (V8) with no node flag: the JS functions of a known call tree
# (tests/fixtures/fix_tree.js: main -> run -> {heavy -> leafA 3/4, light -> leafB 1/4}) are
# walked from V8's own metadata and named js::NAME, in order, down to node::Start, an
# interpreted frame at the line it runs; with --perf-basic-prof too (V8 then names its code in a
# perf map) each JS frame appears once; a function TurboFan inlined into its caller is its own
# frame (caller;callee_[i]), at the line running in each.
. "$(dirname "$0")/lib.sh"
require_bpf

node=/usr/bin/node
[ -x "$node" ] || skip "$node is missing (Debian package nodejs)"
script=$(cd "$(dirname "$0")/../fixtures" && pwd)/fix_tree.js
cp "$script" "$(dirname "$script")/fix_worker.js" "$(dirname "$script")/fix_inline.js" "$TMP/"

# a frame, with --lines its file and line
l='( \([^;]*\))?'
native="^node;_start$l;__libc_start_main$l;__libc_start_call_main$l;node::Start\\(int, char\\*\\*\\)$l;([^;]*;)*"
# a JS frame, with --lines where its function is defined
js() { echo "js::$1$l"; }
chain_a="${native}$(js main);$(js run);$(js heavy);$(js leafA) [0-9]+$"
chain_b="${native}$(js main);$(js run);$(js light);$(js leafB) [0-9]+$"

# check OUT LABEL: the leaves' chains whole, the hot share. The tree runs 1.5 s of CPU at 999 Hz
# (the samples of 3 s at 499 Hz in half the time): about 1,400 in the leaves, where the share's
# binomial standard deviation, sqrt(0.75 * 0.25 / 1400), is 1.2 points, 5 % over 4 of them.
check() {
	local out=$1 label=$2 leaves a b all
	leaves=$(count "$out" "^node;.*;$(js 'leaf[AB]') [0-9]+$")
	a=$(count "$out" "$chain_a")
	b=$(count "$out" "$chain_b")
	all=$(count "$out" '^node;')
	note "$label: $all samples, $leaves in leafA/leafB, whole chain: leafA $a, leafB $b ($(share "$a" "$b")% heavy)"
	[ "$leaves" -ge 300 ] || fail "$label: only $leaves samples in the leaves: $(grep -E 'leaf[AB]' "$out" | head -2)"
	[ $((100 * (a + b))) -ge $((97 * leaves)) ] ||
		fail "$label: only $((a + b)) of $leaves leaf samples have the whole chain; others: $(grep -E "$(js 'leaf[AB]') [0-9]+$" "$out" | grep -vE "$chain_a|$chain_b" | cut -c1-400 | head -3)"
	# 3/4 of the work is heavy's: within 0.05
	[ $((100 * a)) -ge $((70 * (a + b))) ] && [ $((100 * a)) -le $((80 * (a + b))) ] ||
		fail "$label: heavy's share is $(share "$a" "$b")%, not 75 +- 5"
}

out=$TMP/node.folded
expect_status 0 "$CPUPROF" record -v --lines -F 999 -o "$out" -- sh -c "cd '$TMP' && exec '$node' fix_tree.js 1.5"
check_folded_grammar "$out"
check "$out" "node (no flag)"
grep -q 'V8 naming: 0 of' "$TMP/err" || fail "JS frames unnamed: $(grep 'V8 naming' "$TMP/err")"
! grep -F 'JIT code no perf map names' "$TMP/err" || fail "walked, yet said to be unnamed"
# an interpreted or optimized frame: the line and column running (main, called once, at its
# write of "up" or its call of run; run at its calls of cpu, heavy and light...); a baseline one:
# where its function is defined (its "("), as V8 gives it, read in the script. Each function's
# frames are at lines of its own body only.
for f in 'main (29:[0-9]+|30:6)' 'run (22:13|2[3-6]:[0-9]+)' 'heavy (16:[0-9]+)' 'light (17:[0-9]+)' \
	'leafA (6:15|[7-9]:[0-9]+)' 'leafB (11:15|1[2-4]:[0-9]+)'; do
	name=${f%% *} want="^js::$name \\(fix_tree.js:${f#* }\\)\$"
	got=$(grep -oE "js::$name \\([^)]*\\)" "$out" | sort -u)
	[ -n "$got" ] || fail "no frame js::$name"
	bad=$(echo "$got" | grep -vE "$want") && fail "js::$name at lines it does not run: $bad"
done
grep -qF ';js::main (fix_tree.js:30:6);' "$out" ||
	fail "main (interpreted) not at the line running: $(grep -oE 'js::main [^;]*' "$out" | head -1)"

# a hot function TurboFan inlined into its caller's optimized code (tests/fixtures/fix_inline.js:
# node --trace-turbo-inlining says "Inlining ... callee ... into ... caller"): its own frame,
# flagged inlined, under its caller, each at the line running (callee's loop, caller's call)
out=$TMP/inline.folded
expect_status 0 "$CPUPROF" record --lines -F 499 -o "$out" -- sh -c "cd '$TMP' && exec '$node' fix_inline.js 1.5"
calls=$(count "$out" ";$(js main);$(js caller);js::callee$l(_\\[i\\])? [0-9]+$")
inl=$(count "$out" ";js::main \\(fix_inline.js:[0-9:]+\\);js::caller \\(fix_inline.js:13:[0-9]+\\);js::callee \\(fix_inline.js:8:[0-9]+\\)_\\[i\\] [0-9]+$")
note "node, TurboFan inlining: $inl of $calls samples in callee inlined into caller at their lines"
[ "$calls" -ge 300 ] || fail "only $calls samples in main;caller;callee: $(grep -oE 'js::(caller|callee)[^;]*' "$out" | sort | uniq -c | sort -rn | head -3)"
[ $((100 * inl)) -ge $((80 * calls)) ] ||
	fail "only $inl of $calls samples show callee inlined into caller at their lines: $(grep -E 'js::caller' "$out" | grep -oE ';js::main.*' | sort | uniq -c | sort -rn | head -3 | cut -c1-300)"

# only the interpreter (the flags make every frame an interpreted one): the leaves at the line
# of their loop, not the one their function starts at
out=$TMP/interp.folded
expect_status 0 "$CPUPROF" record --lines -F 999 -o "$out" -- sh -c "cd '$TMP' && exec '$node' --no-opt --no-sparkplug --no-maglev fix_tree.js 1.5"
# (a leaf's frame, then the bytecode handler running, in node's builtins)
leaf_end='(;Builtins_[A-Za-z0-9_]+)? [0-9]+$'
leaves=$(count "$out" ";$(js 'leaf[AB]')$leaf_end")
loop=$(count "$out" ";js::(leafA \\(fix_tree.js:8|leafB \\(fix_tree.js:13):[0-9]+\\)$leaf_end")
note "node, interpreter only: $loop of $leaves leaf samples at their loop's line"
[ "$leaves" -ge 300 ] || fail "only $leaves samples in the leaves: $(grep -E 'leaf[AB]' "$out" | head -2)"
[ $((100 * loop)) -ge $((95 * leaves)) ] ||
	fail "only $loop of $leaves leaf samples at their loop's line: $(grep -oE 'js::leaf[AB] \([^)]*\)' "$out" | sort | uniq -c | sort -rn | head -3)"

# V8's perf map names its code too: the walker's frames stand for it, no frame twice
out=$TMP/perf.folded
expect_status 0 "$CPUPROF" record -v -F 999 -o "$out" -- sh -c "echo \$\$ >'$TMP/pid'; cd '$TMP' && exec '$node' --perf-basic-prof fix_tree.js 1.5"
rm -f "/tmp/perf-$(cat "$TMP/pid").map"
check "$out" "node --perf-basic-prof"
twice=$(grep -E 'js::leaf[AB] [0-9]+$' "$out" | grep -E '(JS|LazyCompile|Function):[~*^+]?(main|run|heavy|light|leaf[AB]) ' | head -1)
[ -z "$twice" ] || fail "a JS frame named by the perf map beside the walker's: $(echo "$twice" | cut -c1-400)"

# worker threads: each its own JS stack, under its own thread (--per-thread)
out=$TMP/worker.folded
expect_status 0 "$CPUPROF" record --per-thread -F 499 -o "$out" -- sh -c "cd '$TMP' && exec '$node' fix_worker.js 3 >/dev/null"
w=$(count "$out" ';js::workerMain;js::spin;js::leafW [0-9]+$')
m=$(count "$out" ';js::mainLoop;js::spin;js::leafM [0-9]+$')
tw=$(grep -E ';js::workerMain;' "$out" | cut -d';' -f2 | sort -u)
tm=$(grep -E ';js::mainLoop;' "$out" | cut -d';' -f2 | sort -u)
note "workers: worker chain $w samples (thread $tw), main chain $m (thread $tm)"
# (a loaded machine finds the process late: the seconds are wall-clock ones)
[ "$w" -ge 50 ] && [ "$m" -ge 50 ] || fail "worker $w, main $m samples with their whole chain"
[ "$(echo "$tw" | wc -l)" -eq 1 ] && [ "$(echo "$tm" | wc -l)" -eq 1 ] && [ "$tw" != "$tm" ] ||
	fail "the two JS stacks are not each on their own thread: worker '$tw', main '$tm'"
! grep -E 'js::workerMain;.*js::mainLoop|js::mainLoop;.*js::workerMain|js::mainLoop;.*leafW|js::workerMain;.*leafM' "$out" ||
	fail "a stack mixes the two threads' JS frames"

# a V8 the walker does not know (pointer compression): refused, and the summary says why
cp "$FIX/fake_v8_compressed" "$TMP/node"
expect_status 0 "$CPUPROF" record -F 499 -o "$TMP/fake.folded" -- "$TMP/node" 0.5
grep -qE 'V8 frames missing in 1 process: V8 11\.3\.244, whose version or metadata the walker does not know' "$TMP/err" ||
	fail "no line says why the fake V8 was refused: $(cat "$TMP/err")"

# the walker off: the summary names the process whose JIT code nothing names, and what helps
expect_status 0 "$CPUPROF" record --no-node -F 499 -o "$TMP/off.folded" -- sh -c "cd '$TMP' && exec '$node' fix_tree.js 1"
line=$(grep -F 'JIT code no perf map names' "$TMP/err") || fail "no summary line of JIT code unnamed: $(cat "$TMP/err")"
echo "$line" | grep -qE 'of them in node \(pid [0-9]+\): cpuprof names node.s JS frames without --no-node' ||
	fail "the line does not name node and the way out: $line"
exit 0
