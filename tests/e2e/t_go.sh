#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Go programs as they are shipped, stripped of symbols and DWARF (the fixtures go_*: -s -w, or
# strip(1) as distributions do; PIE; cgo, also as PIE): named from .gopclntab and walked with rows from its
# pcsp tables, the known call tree exact from runtime.goexit (before: go_tree_s+0x... frames,
# and leafA's caller main.heavy lost to frame pointers); a collector-heavy program's system-stack
# frames linked to their goroutine (before: stacks ending at runtime.systemstack or a bad
# return address), and so a clock-reading one's vDSO calls and a cgo program's C frames (before:
# [truncated: bad return address];runtime.asmcgocall). The Go build ID and version in the pprof
# file (before: no build ID, no version). And one address convention: a stripped non-PIE
# program's unnamed frames read back the same from its pprof file and its folded file (before:
# file offsets vs vaddrs).
. "$(dirname "$0")/lib.sh"
require_bpf
for f in go_tree_s go_tree_pie go_cgo_s go_cgo_pie go_gc_s go_clock_s go_cgospin_s; do
	[ -x "$FIX/$f" ] || skip "no $FIX/$f (go missing when the fixtures were built)"
done
GO_TREE='runtime.goexit;runtime.main;main.main;main.run;main.(heavy;main.leafA|light;main.leafB)( |;)'

for g in go_tree_s go_tree_pie go_cgo_s go_cgo_pie; do
	cp "$FIX/$g" "$TMP/$g"
	expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/$g.folded" -- "$TMP/$g" 2
	check_folded_grammar "$TMP/$g.folded"
	leaf=$(count "$TMP/$g.folded" "^$g;.*;main.leaf[AB]( |;)")
	exact=$(count "$TMP/$g.folded" "^$g;$GO_TREE")
	heavy=$(count "$TMP/$g.folded" "^$g;.*;main.heavy;main.leafA( |;)")
	note "$g: $exact of $leaf leaf samples exact from runtime.goexit ($(share "$exact" $((leaf - exact)))%), $heavy through main.heavy"
	[ "$leaf" -ge 100 ] || fail "$g: only $leaf samples in the leaves: $(cat "$TMP/err")"
	[ $((100 * exact)) -ge $((99 * leaf)) ] ||
		fail "$g: only $exact of $leaf leaf samples exact; others: $(grep -E "^$g;.*;main.leaf" "$TMP/$g.folded" | grep -vE "^$g;$GO_TREE" | cut -c1-240 | head -3)"
	# leafA under main.heavy is in GO_TREE: frame pointers alone lost main.heavy (leafA keeps none)
	[ "$heavy" -ge 1 ] || fail "$g: no main.heavy;main.leafA stack"
	grep -q "^$g;[^ ]*$g+0x" "$TMP/$g.folded" &&
		fail "$g: unnamed frames: $(grep "^$g;[^ ]*$g+0x" "$TMP/$g.folded" | head -2)"
done

# the Go build ID (the fixture has no GNU one) as the pprof mapping's build_id, hex-encoded; the
# Go version as a comment
expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/id.pb.gz" -- "$TMP/go_tree_s" 1
gid=$(go tool buildid "$TMP/go_tree_s" | tr -d '\n' | od -An -tx1 | tr -d ' \n')
gver=$(go version "$TMP/go_tree_s" | sed 's/.*: //')
go tool pprof -raw "$TMP/id.pb.gz" >"$TMP/id.raw" 2>&1 || fail "go tool pprof -raw: $(head -3 "$TMP/id.raw")"
grep -q "go_tree_s $gid " "$TMP/id.raw" ||
	fail "go_tree_s: mapping without its Go build ID $gid: $(grep go_tree_s "$TMP/id.raw" | head -2)"
go tool pprof -comments "$TMP/id.pb.gz" 2>&1 | grep -qx "$gver: $TMP/go_tree_s" ||
	fail "no comment '$gver: $TMP/go_tree_s': $(go tool pprof -comments "$TMP/id.pb.gz" 2>&1 | head -5)"
note "go_tree_s: pprof mapping build_id = hex of its Go build ID, comment '$gver: ...'"

# the collector's mark workers run on the system stack: linked to their goroutine
expect_status 0 "$CPUPROF" record -F 499 -o "$TMP/gc.folded" -- "$FIX/go_gc_s" 2
check_folded_grammar "$TMP/gc.folded"
sys=$(count "$TMP/gc.folded" ';runtime.systemstack;')
linked=$(count "$TMP/gc.folded" '^go_gc_s;runtime.goexit;([^;]*;)*runtime.systemstack;')
note "go_gc_s: $linked of $sys samples on the system stack linked to their goroutine"
[ "$sys" -ge 10 ] || fail "go_gc_s: only $sys samples on the system stack: $(cat "$TMP/err")"
[ $((100 * linked)) -ge $((95 * sys)) ] ||
	fail "go_gc_s: $linked of $sys system-stack samples reach runtime.goexit; others: $(grep ';runtime.systemstack;' "$TMP/gc.folded" | grep -v '^go_gc_s;runtime.goexit;' | cut -c1-200 | head -3)"

# clock reads: the vDSO runs on g0, the caller's frame in m.vdsoSP/vdsoPC
expect_status 0 "$CPUPROF" record -F 499 -o "$TMP/clock.folded" -- "$FIX/go_clock_s" 2
check_folded_grammar "$TMP/clock.folded"
vdso=$(count "$TMP/clock.folded" ';__vdso_clock_gettime( |;)')
linked=$(count "$TMP/clock.folded" '^go_clock_s;runtime.goexit;runtime.main;main.main;main.clocks;time.Now;time.now;__vdso_clock_gettime( |;)')
note "go_clock_s: $linked of $vdso samples in the vDSO linked to main.clocks"
[ "$vdso" -ge 50 ] || fail "go_clock_s: only $vdso samples in the vDSO: $(cat "$TMP/err")"
[ $((100 * linked)) -ge $((95 * vdso)) ] ||
	fail "go_clock_s: $linked of $vdso vDSO samples linked; others: $(grep '__vdso_clock_gettime' "$TMP/clock.folded" | grep -v '^go_clock_s;runtime.goexit;' | cut -c1-200 | head -3)"

# C code called through cgo runs on g0 (runtime.asmcgocall): its frames go on into the goroutine
# (before: [truncated: bad return address];runtime.asmcgocall;...;cspin)
expect_status 0 "$CPUPROF" record -F 499 -o "$TMP/cgo.folded" -- "$FIX/go_cgospin_s" 2
check_folded_grammar "$TMP/cgo.folded"
inc=$(count "$TMP/cgo.folded" ';cleaf( |;)')
linked=$(count "$TMP/cgo.folded" '^go_cgospin_s;runtime.goexit;runtime.main;main.main;main.callC;main._Cfunc_cspin;runtime.cgocall;runtime.asmcgocall;[^;]*_Cfunc_cspin;cspin;cleaf( |;)')
note "go_cgospin_s: $linked of $inc samples in C linked to main.callC"
[ "$inc" -ge 100 ] || fail "go_cgospin_s: only $inc samples in cleaf: $(cat "$TMP/err")"
[ $((100 * linked)) -ge $((95 * inc)) ] ||
	fail "go_cgospin_s: $linked of $inc C samples linked; others: $(grep ';cleaf' "$TMP/cgo.folded" | grep -v '^go_cgospin_s;runtime.goexit;' | cut -c1-200 | head -3)"

# one address convention: the stripped non-PIE tree's unnamed frames, from pprof and folded
strip -o "$TMP/nopie_s" "$FIX/fix_nopie"
expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/n.pb.gz" -o "$TMP/n.folded" -- "$TMP/nopie_s" 1
"$CPUPROF" report -n 0 "$TMP/n.pb.gz" | tail -n +2 >"$TMP/n.pb.top" || fail "report of the pprof file"
"$CPUPROF" report -n 0 "$TMP/n.folded" | tail -n +2 >"$TMP/n.folded.top" || fail "report of the folded file"
grep -q 'nopie_s+0x4' "$TMP/n.folded.top" || fail "no nopie_s+0x4... frame (vaddr): $(head -5 "$TMP/n.folded.top")"
diff "$TMP/n.pb.top" "$TMP/n.folded.top" >"$TMP/diff" ||
	fail "report differs between pprof and folded: $(head -6 "$TMP/diff")"
exit 0
