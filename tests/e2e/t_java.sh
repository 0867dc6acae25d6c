#!/bin/bash
# Java 17 with -XX:+PreserveFramePointer and the perf map it writes at exit: compiled methods
# (in the JVM's code cache, no unwind tables) are walked by frame pointers in mixed mode and
# named from the perf map; the stack goes on with tables in libjvm down to the thread's start.
. "$(dirname "$0")/lib.sh"
require_bpf

for t in java javac; do
	command -v "$t" >/dev/null || skip "$t is missing (Debian package openjdk-17-jdk-headless)"
done
cat >"$TMP/Tree.java" <<'JAVA'
public class Tree {
    static volatile long sink;
    static long leafA(int n) { long s = 0; for (int i = 0; i < n; i++) s = (s + (long) i * i) % 1000003; return s; }
    static long leafB(int n) { long s = 0; for (int i = 0; i < n; i++) s = (s + (long) i * i) % 1000033; return s; }
    static void heavy() { sink += leafA(300000); }
    static void light() { sink += leafB(100000); }
    static void run(long ms) {
        long end = System.currentTimeMillis() + ms;
        while (System.currentTimeMillis() < end) { heavy(); light(); }
    }
    public static void main(String[] a) { run(Long.parseLong(a[0])); }
}
JAVA
javac -d "$TMP" "$TMP/Tree.java" || fail "javac failed"

out=$TMP/java.folded
# no inlining: every method keeps its frame
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- sh -c "echo \$\$ >'$TMP/pid'; exec java \
	-XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit \
	-XX:-Inline -cp '$TMP' Tree 2500"
rm -f "/tmp/perf-$(cat "$TMP/pid").map"
check_folded_grammar "$out"

native='^java;clone3;start_thread;ThreadJavaMain;JavaMain;([^;]*;)*JavaCalls::call_helper[^;]*;'
leaves=$(count "$out" '^java;.*;long Tree\.leaf[AB]\(int\) [0-9]+$')
a=$(count "$out" "$native([^;]*;)*(Interpreter|void Tree\.heavy\(\));long Tree\.leafA\(int\) [0-9]+$")
b=$(count "$out" "$native([^;]*;)*(Interpreter|void Tree\.light\(\));long Tree\.leafB\(int\) [0-9]+$")
note "java: $leaves samples in leafA/leafB (named from the perf map), whole chain from start_thread: leafA $a, leafB $b ($(share "$a" "$b")% heavy)"
[ "$leaves" -ge 150 ] || fail "only $leaves samples in leafA/leafB: $(grep -E 'Tree\.' "$out" | head -2)"
[ $((100 * (a + b))) -ge $((95 * leaves)) ] ||
	fail "only $((a + b)) of $leaves leaf samples have the whole chain; others: $(grep -E 'Tree\.leaf' "$out" | grep -vE "$native" | cut -c1-300 | head -3)"
bad=$(grep -E '^java;\[unknown\]' "$out" | head -1)
[ -z "$bad" ] || fail "a stack starts with an unnamed address: $bad"
exit 0
