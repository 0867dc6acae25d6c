#!/bin/bash
# Java (HotSpot, Debian's OpenJDK 17) with no JVM flag and no agent: the known call tree
# (tests/fixtures/java, main -> run -> {heavy -> leaf 3/4, light -> leaf 1/4}) JIT-compiled,
# then interpreted only (-Xint). The JIT hook walks the CodeCache's frames (compiled code keeps
# no frame pointer) and names them java::pkg.Class.method: at least 95 % of the leaf's samples
# carry the whole Java chain, in order, under the native start of the thread, the heavy share
# within 0.05 of 3/4. A method the JIT inlined is shown as an inlined frame (the compiled
# code's debug information at the return address), lines come from the bci. With
# -XX:+PreserveFramePointer and a perf map each Java frame appears once, named by the hook (the
# map names only what ran before the JVM was attached, its first milliseconds).
. "$(dirname "$0")/lib.sh"
require_bpf

command -v java >/dev/null || skip "java is missing (Debian package openjdk-17-jdk-headless)"
[ -f "$FIX/java/cpfix/Tree.class" ] || skip "no $FIX/java/cpfix/Tree.class (make fixtures needs javac)"

T='java::cpfix\.Tree\.'
# run NAME JAVA-ARGS...: record the tree for 4 s at 999 Hz, check the chains and the split
run() {
	local name=$1 out=$TMP/$1.folded leaves heavy light pct
	shift
	expect_status 0 "$CPUPROF" record -F 999 -o "$out" -- sh -c "echo \$\$ >'$TMP/pid'; exec java $* -cp '$FIX/java' cpfix.Tree 4000"
	rm -f "/tmp/perf-$(cat "$TMP/pid").map"
	check_folded_grammar "$out"
	leaves=$(count "$out" "^java;.*;${T}leaf( |;)")
	heavy=$(count "$out" "^java;(clone3;start_thread|_start);([^;]*;)*${T}main;${T}run;${T}heavy;${T}leaf( |;)")
	light=$(count "$out" "^java;(clone3;start_thread|_start);([^;]*;)*${T}main;${T}run;${T}light;${T}leaf( |;)")
	pct=$(share "$heavy" "$light")
	note "java $name: $leaves samples in the leaf, whole chain: heavy $heavy, light $light ($((100 * (heavy + light) / (leaves + !leaves)))%), heavy share ${pct}% (expected 75%)"
	[ "$leaves" -ge 1000 ] || fail "$name: only $leaves samples in the leaf: $(grep -E 'Tree' "$out" | head -2 | cut -c1-400)"
	[ $((100 * (heavy + light))) -ge $((95 * leaves)) ] ||
		fail "$name: only $((heavy + light)) of $leaves leaf samples have the whole chain; others: $(grep -E "${T}leaf" "$out" | grep -vE "${T}main;${T}run;${T}(heavy|light);${T}leaf" | cut -c1-400 | head -3)"
	[ "$pct" -ge 70 ] && [ "$pct" -le 80 ] || fail "$name: heavy share ${pct}%, expected 75% (70..80)"
	grep -qE "${T}leaf;${T}|${T}(heavy|light);${T}run" "$out" &&
		fail "$name: callee before caller: $(grep -E "${T}leaf;${T}" "$out" | head -1 | cut -c1-400)"
	return 0
}

run jit
run interpreted -Xint
# a perf map as well: the hook's names, each frame once
run perfmap -XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit
dup=$(grep -E 'Tree\.leaf\(int\).*java::cpfix|java::cpfix.*Tree\.leaf\(int\)' "$TMP/perfmap.folded" | head -1)
[ -z "$dup" ] || fail "a perf map name beside the hook's: $(echo "$dup" | cut -c1-400)"
# the map names only what ran before the JVM was attached (its first few milliseconds)
mapped=$(count "$TMP/perfmap.folded" 'Tree\.leaf\(int\)')
leaves=$(count "$TMP/perfmap.folded" "${T}leaf( |;)")
note "java perfmap: $mapped leaf samples named from the map (before the JVM was attached)"
[ $((20 * mapped)) -le "$leaves" ] || fail "$mapped leaf samples named from the perf map, against $leaves by the hook"

# lines (--lines): the callers' at their call, the leaf's in its loop
for mode in jit interpreted; do
	out=$TMP/lines_$mode.folded
	opt=; [ $mode = interpreted ] && opt=-Xint
	expect_status 0 "$CPUPROF" record -F 999 --lines -o "$out" -- java $opt -cp "$FIX/java" cpfix.Tree 1250
	leaves=$(count "$out" "${T}leaf( \\(Tree\\.java:[0-9]+\\))?( |;)")
	ok=$(count "$out" "${T}main \\(Tree\\.java:119\\);${T}run \\(Tree\\.java:11[34]\\);${T}(heavy \\(Tree\\.java:49\\)|light \\(Tree\\.java:79\\));${T}leaf")
	leafl=$(count "$out" "${T}leaf \\(Tree\\.java:1[78]\\)( |;)")
	note "java lines ($mode): $leaves leaf samples, $ok with the callers' lines, $leafl with the leaf's"
	[ $((100 * ok)) -ge $((95 * leaves)) ] ||
		fail "lines ($mode): only $ok of $leaves with main:119;run:113/114;heavy:49|light:79: $(grep -E "${T}leaf" "$out" | sort -t' ' -k2 -nr | head -2 | sed 's/.*call_helper[^;]*;//')"
	# compiled: the line of the next safepoint in its code (HotSpot's pc_desc_near), in the
	# loop its back edge's
	[ $((100 * leafl)) -ge $((95 * leaves)) ] ||
		fail "lines ($mode): only $leafl of $leaves leaf samples on lines 17-18: $(grep -oE "${T}leaf[^;]*( |;)" "$out" | sort | uniq -c | sort -rn | head -3)"
done

# inlining: outer -> middle (inlined into outer) -> inner, outer called through a hidden class
I='java::cpfix\.Inline\.'
out=$TMP/inline.folded
expect_status 0 "$CPUPROF" record -F 999 -o "$out" -- java -cp "$FIX/java" cpfix.Inline 2000
check_folded_grammar "$out"
inner=$(count "$out" "^java;.*;${I}inner( |;)")
# the method reference's hidden class as the JVM names it (cpfix.Inline$$Lambda$1+0x...)
lambda='java::cpfix\.Inline\$\$Lambda\$[0-9]+\+0x[0-9a-f]+\.run(_\[i\])?'
inl=$(count "$out" "^java;(clone3;start_thread|_start);([^;]*;)*${I}main;${I}run;$lambda;${I}outer;${I}middle_\\[i\\];${I}inner( |;)")
note "java inlining: $inner samples in inner, $inl of them under a hidden class's run;outer;middle_[i]"
[ "$inner" -ge 333 ] || fail "only $inner samples in inner"
[ $((10 * inl)) -ge $((8 * inner)) ] ||
	fail "only $inl of $inner samples have outer;middle_[i];inner: $(grep -E "${I}inner" "$out" | sort -t' ' -k2 -nr | head -2 | sed 's/.*call_helper[^;]*;//')"
exit 0
