#!/bin/bash
# DWARF names in a recording of an -O2 -g fixture: the inlined function is its own frame under
# its caller (folded _[i], pprof inline Lines with file:line, JSON inline flag); --lines; the
# same with zlib-compressed debug sections; a warning for zstd-compressed ones, which this libdw
# cannot read.
. "$(dirname "$0")/lib.sh"
require_bpf
export HOME=$TMP GOCACHE=$TMP/gocache GOFLAGS=
src=$(cd "$(dirname "$0")/../fixtures" && pwd)/fix_inline.c
hot=$(grep -n '/\* HOT \*/' "$src" | cut -d: -f1)
call=$(grep -n 'unsigned long x = cp_inl_hot' "$src" | cut -d: -f1)

expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/i.folded" -o "$TMP/i.pb.gz" -o "$TMP/i.json" -- "$FIX/fix_inline" 2
check_folded_grammar "$TMP/i.folded"
all=$(count "$TMP/i.folded" '^fix_inline;')
inl=$(count "$TMP/i.folded" '^fix_inline;([^;]*;)*main;cp_inl_run;cp_inl_work;cp_inl_hot_\[i\]( |;)')
note "fix_inline: $inl of $all samples main;cp_inl_run;cp_inl_work;cp_inl_hot_[i]"
[ "$all" -gt 300 ] && [ $((100 * inl)) -ge $((95 * all)) ] || fail "inlined chain in $inl of $all samples"

# pprof: one location, two Lines: cp_inl_hot (inline) at the HOT line, then cp_inl_work at the call
go tool pprof -symbolize=none -traces -lines "$TMP/i.pb.gz" >"$TMP/traces" 2>"$TMP/perr" || fail "pprof: $(cat "$TMP/perr")"
grep -A1 -E "cp_inl_hot .*fix_inline\.c:$hot \(inline\)$" "$TMP/traces" | grep -qE "^ +cp_inl_work .*fix_inline\.c:$call$" ||
	fail "pprof inline frame: $(grep -A2 cp_inl_hot "$TMP/traces" | head -4)"
go tool pprof -symbolize=none -raw "$TMP/i.pb.gz" >"$TMP/raw" 2>"$TMP/perr" || fail "pprof -raw: $(cat "$TMP/perr")"
# [FL][LN][IN] only when every location of it has a line: a start-up sample in _start (no
# DWARF in crt1.o) rightly clears them
grep -qE '/fix_inline [0-9a-f]{40} \[FN\](\[FL\]\[LN\]\[IN\])?$' "$TMP/raw" ||
	fail "fix_inline mapping flags: $(grep fix_inline "$TMP/raw" | tail -1)"

# JSON: the same frame, marked inlined, with its line
node -e '
const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const s = JSON.stringify(d.cpuprof);
process.exit(/cp_inl_hot/.test(JSON.stringify(d.shared.frames)) && /"inlined":true/.test(s) ? 0 : 1);' "$TMP/i.json" ||
	fail "JSON has no inlined cp_inl_hot frame"

# --lines: "function (file:line)", still valid folded
expect_status 0 "$CPUPROF" record -q --lines -o "$TMP/l.folded" -- "$FIX/fix_inline" 1
check_folded_grammar "$TMP/l.folded"
grep -qE ";cp_inl_work \(fix_inline\.c:$call\);cp_inl_hot \(fix_inline\.c:$hot\)_\[i\] [0-9]+$" "$TMP/l.folded" ||
	fail "--lines: $(sort -t' ' -k2 -n "$TMP/l.folded" | tail -1)"

# zlib-compressed debug sections, inflated to a file of TMPDIR rather than into memory: the
# same inlined frames and lines
objcopy --compress-debug-sections=zlib "$FIX/fix_inline" "$TMP/fix_inline_zlib" ||
	fail "objcopy cannot compress with zlib"
mkdir -p "$TMP/unpack"
expect_status 0 env TMPDIR="$TMP/unpack" "$CPUPROF" record -q --lines -o "$TMP/zl.folded" -- "$TMP/fix_inline_zlib" 1
grep -qE ";cp_inl_work \(fix_inline\.c:$call\);cp_inl_hot \(fix_inline\.c:$hot\)_\[i\] [0-9]+$" "$TMP/zl.folded" ||
	fail "zlib, --lines: $(sort -t' ' -k2 -n "$TMP/zl.folded" | tail -1)"
[ -z "$(ls -A "$TMP/unpack")" ] || fail "files left in TMPDIR: $(ls -A "$TMP/unpack")"

# zstd-compressed debug sections: said once, not silently wrong
objcopy --compress-debug-sections=zstd "$FIX/fix_inline" "$TMP/fix_inline_zstd" 2>/dev/null ||
	fail "objcopy cannot compress with zstd"
expect_status 0 "$CPUPROF" record -o "$TMP/z.folded" -- "$TMP/fix_inline_zstd" 0.5
[ "$(grep -c 'zstd-compressed debug sections' "$TMP/err")" -eq 1 ] ||
	fail "no single zstd warning: $(cat "$TMP/err")"
exit 0
