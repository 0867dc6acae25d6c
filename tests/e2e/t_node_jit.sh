#!/bin/bash
# node 18 (Debian 12's) or 20 with --perf-basic-prof and cpuprof's --no-node (the V8 walker off:
# t_node.sh tests it): V8's JIT code (anonymous executable memory mapped
# read-write-execute, after the first snapshot) and its embedded builtins (no CFI) are walked
# in mixed mode, so a JS leaf keeps both its JS callers, named from the perf map, and the
# native chain down to _start ... node::Start. Exact chains of a known call tree.
. "$(dirname "$0")/lib.sh"
require_bpf

node=/usr/bin/node
[ -x "$node" ] || skip "$node is missing (Debian package nodejs)"

cat >"$TMP/tree.js" <<'JS'
function leafA(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
function leafB(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000033; return s; }
function heavy() { return leafA(300000); }
function light() { return leafB(100000); }
function run(ms) {
	const end = Date.now() + ms;
	let x = 0;
	while (Date.now() < end) { x += heavy(); x += light(); }
	return x;
}
function main() { if (run(Number(process.argv[2])) < 0) console.log("never"); }
main();
JS

out=$TMP/node.folded
# interpreted frames get native frames of their own (named in the perf map); no inlining keeps
# every function a frame; node runs in $TMP, where V8 may write its log. Exec'd by the command:
# its mappings read again as it exits (when open() of its files fails) once cost every native
# name (node+0x..., libc.so.6+0x...) in about 1 run in 10
expect_status 0 "$CPUPROF" record -v --no-node -F 499 -o "$out" -- sh -c "echo \$\$ >'$TMP/pid'; cd '$TMP' && exec '$node' \
	--perf-basic-prof --interpreted-frames-native-stack --max-inlined-bytecode-size=0 \
	'$TMP/tree.js' 2500"
rm -f "/tmp/perf-$(cat "$TMP/pid").map"
# V8 maps and mprotects its code as it compiles: BPF must see those calls (tracefs need not be
# mounted), or walks through code made since the last read of the mappings end at a JS frame
! grep -F 'cannot follow executable mmaps' "$TMP/err" || fail "BPF does not see the mmaps"
check_folded_grammar "$out"

# V8's entry into JS: Builtins_JSEntry, or an unnamed address of Debian's node 18, whose
# libnode.so.108 exports no builtins; V8 11 (node 18) names JS code "LazyCompile:*f" or
# "Function:~f" in the perf map, V8 11.3+ (node 20) "JS:*f"
native='^node;_start;__libc_start_main;__libc_start_call_main;node::Start\(int, char\*\*\);([^;]*;)*(Builtins_JSEntry|libnode\.so\.[0-9]+\+0x[0-9a-f]+);'
js() { echo "(JS|LazyCompile|Function):[~*^+]?$1 [^;]*"; }
leaves=$(count "$out" "^node;.*;$(js 'leaf[AB]') [0-9]+$")
a=$(count "$out" "$native([^;]*;)*$(js main);$(js run);$(js heavy);$(js leafA) [0-9]+$")
b=$(count "$out" "$native([^;]*;)*$(js main);$(js run);$(js light);$(js leafB) [0-9]+$")
all=$(count "$out" '^node;')
injs=$(count "$out" '^node;\[[^]]*\];(JS|LazyCompile|Function):')
note "node: $all samples, $leaves in leafA/leafB, whole chain from _start: leafA $a, leafB $b ($(share "$a" "$b")% heavy); $injs walks ended at a JS frame"
[ "$leaves" -ge 200 ] || fail "only $leaves samples in leafA/leafB: $(grep -E 'leaf[AB]' "$out" | head -2)"
[ $((100 * (a + b))) -ge $((95 * leaves)) ] ||
	fail "only $((a + b)) of $leaves leaf samples have the whole chain; others: $(grep -E 'leaf[AB] [^;]* [0-9]+$' "$out" | grep -vE "$native" | cut -c1-300 | head -3)"
# the JIT code is in anonymous memory: walks must not end at a JS frame (0 in 6 runs of the
# sanitizer build; 28 to 43 when BPF did not see V8's mmaps)
[ $((200 * injs)) -le "$all" ] || fail "$injs walks ended at a JS frame: $(grep -E '^node;\[[^]]*\];(JS|LazyCompile|Function):' "$out" | head -2)"
bad=$(grep -E '^node;\[unknown\]' "$out" | head -1)
[ -z "$bad" ] || fail "a stack starts with an unnamed address: $bad"
exit 0
