#!/bin/bash
# CPython 3.12 with -X perf: each Python function runs through a trampoline copied into
# anonymous executable memory, with no CFI and no frame pointer ("sub $8, %rsp; call *%rcx;
# add $8, %rsp; ret"). Mixed mode steps it by its epilogue, so a Python leaf keeps its Python
# callers (named from the perf map) in order, and the native chain down to _start.
. "$(dirname "$0")/lib.sh"
require_bpf

py=""
for d in "$(pyenv root 2>/dev/null)" "$HOME/.pyenv"; do
	[ -n "$d" ] || continue
	for p in "$d"/versions/3.12*/bin/python3.12; do
		[ -x "$p" ] && py=$p
	done
	[ -n "$py" ] && break
done
[ -n "$py" ] || skip "no python3.12 under pyenv (pyenv install 3.12)"

cat >"$TMP/tree.py" <<'PY'
import sys
import time


def leaf_a(n):
    s = 0
    for i in range(n):
        s = (s + i * i) % 1000003
    return s


def leaf_b(n):
    s = 0
    for i in range(n):
        s = (s + i * i) % 1000033
    return s


def heavy():
    return leaf_a(30000)


def light():
    return leaf_b(10000)


def run(sec):
    end = time.monotonic() + sec
    x = 0
    while time.monotonic() < end:
        x += heavy()
        x += light()
    return x


def main():
    run(float(sys.argv[1]))


main()
PY

# --no-python: the trampolines and the native eval loop under them are what is checked here
# (with Python frames, py::NAME frames take the eval loop's place; t_python_frames.sh)
out=$TMP/py.folded
expect_status 0 "$CPUPROF" record --no-python -F 499 -o "$out" -- sh -c "echo \$\$ >'$TMP/pid'; exec '$py' \
	-X perf '$TMP/tree.py' 2.5"
rm -f "/tmp/perf-$(cat "$TMP/pid").map"
check_folded_grammar "$out"

fn() { echo "py::$1:[^;]*;_PyEval_EvalFrameDefault;"; }
leaf() { echo "py::$1:[^;]*;_PyEval_EvalFrameDefault( |;)"; }
native='^python3\.12;_start;__libc_start_main;__libc_start_call_main;Py_BytesMain;'
inleaf=$(count "$out" "py::leaf_[ab]:[^;]*;_PyEval_EvalFrameDefault")
a=$(count "$out" "$native([^;]*;)*$(fn main)([^;]*;)*$(fn run)([^;]*;)*$(fn heavy)([^;]*;)*$(leaf leaf_a)")
b=$(count "$out" "$native([^;]*;)*$(fn main)([^;]*;)*$(fn run)([^;]*;)*$(fn light)([^;]*;)*$(leaf leaf_b)")
all=$(count "$out" '^python3\.12;')
note "python3.12 -X perf: $all samples, $inleaf in leaf_a/leaf_b, whole chain from _start: leaf_a $a, leaf_b $b ($(share "$a" "$b")% heavy)"
[ "$inleaf" -ge 200 ] || fail "only $inleaf samples in leaf_a/leaf_b"
[ $((100 * (a + b))) -ge $((95 * inleaf)) ] ||
	fail "only $((a + b)) of $inleaf leaf samples have the whole chain; others: $(grep -E 'py::leaf_' "$out" | grep -vE "$native" | cut -c1-300 | head -3)"
# the frames between two Python functions are the trampoline's callers, never garbage
grep -qE 'py::[^;]*;\[|^python3\.12;\[unknown\]' "$out" &&
	fail "a pseudo-frame or unnamed root next to Python frames: $(grep -E 'py::[^;]*;\[|^python3\.12;\[unknown\]' "$out" | head -2)"

# With Python frames (the default): the walker saw each Python frame, so the perf map's
# "py::NAME:FILE" entries and py_trampoline_evaluator are left out: each frame appears once
# (issue 26: "py_trampoline_evaluator;py::dump:/.../json/__init__.py;py::dump")
out=$TMP/both.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$out" -- sh -c "echo \$\$ >'$TMP/pid'; exec '$py' \
	-X perf '$TMP/tree.py' 1"
rm -f "/tmp/perf-$(cat "$TMP/pid").map"
check_folded_grammar "$out"
walked=$(count "$out" 'py::leaf_[ab]( |;)')
glue=$(grep -E 'py::leaf_[ab]( |;)' "$out" | count /dev/stdin '(py_trampoline_evaluator|py::[^;]*:[^;]*)')
# in order (the C calls between them stay), and no Python function twice in a stack
any='([^;]*;)*'
once=$(grep -E 'py::leaf_[ab]( |;)' "$out" |
	awk '{ n = split($0, f, ";"); d = 0; delete seen
		for (i = 1; i <= n; i++) { x = f[i]; sub(/ [0-9]+$/, "", x)
			if (x ~ /^py::/ && seen[x]++) d = 1 }
		if (!d) print }' |
	count /dev/stdin "py::main;${any}py::run;${any}py::(heavy;${any}py::leaf_a|light;${any}py::leaf_b)( |;)")
note "python3.12 -X perf with Python frames: $walked samples in leaf_a/leaf_b, $glue with a trampoline or perf-map frame, $once with main;run;heavy|light;leaf once"
[ "$walked" -ge 80 ] || fail "only $walked samples in py::leaf_a/leaf_b"
[ "$glue" -eq 0 ] || fail "$glue samples keep the perf trampolines beside the walker's frames: $(grep -E 'py_trampoline_evaluator|py::leaf_[ab]:' "$out" | cut -c1-300 | head -2)"
[ $((100 * once)) -ge $((95 * walked)) ] || fail "only $once of $walked leaf samples have each Python frame once, in order"
exit 0
