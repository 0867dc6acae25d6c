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
# With CPUPROF_GO_EXTRA=/path/to/bin/go (lib.sh's go_toolchains) the Go checks run again on the
# fixtures that toolchain builds; C frames of a stripped cgo program (x_cgo_sigaction) have no name
# anywhere, so an unnamed frame fails only when the unstripped build names it as Go (pkg.func).
. "$(dirname "$0")/lib.sh"
require_bpf
GO_TREE='runtime.goexit;runtime.main;main.main;main.run;main.(heavy;main.leafA|light;main.leafB)( |;)'

# go_checks GO FIXTURES: every check of one toolchain's fixtures, its go command for its tools
go_checks() {
	local gocmd=$1 fx=$2 ver g f twin leaf exact heavy gid gver sys linked vdso inc n same
	for f in go_tree_s go_tree_pie go_tree_pie_g go_cgo_s go_cgo_g go_cgo_pie go_cgo_pie_g \
		go_gc_s go_clock_s go_cgospin_s; do
		[ -x "$fx/$f" ] || skip "no $fx/$f (go missing when the fixtures were built)"
	done
	ver=$("$gocmd" version "$fx/go_tree_s" | sed 's/.*: //')
	for g in go_tree_s go_tree_pie go_cgo_s go_cgo_pie; do
		cp "$fx/$g" "$TMP/$g"
		expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 999 -o "$TMP/$g.folded" -- "$TMP/$g" 1
		check_folded_grammar "$TMP/$g.folded"
		leaf=$(count "$TMP/$g.folded" "^$g;.*;main.leaf[AB]( |;)")
		exact=$(count "$TMP/$g.folded" "^$g;$GO_TREE")
		heavy=$(count "$TMP/$g.folded" "^$g;.*;main.heavy;main.leafA( |;)")
		note "$ver $g: $exact of $leaf leaf samples exact from runtime.goexit ($(share "$exact" $((leaf - exact)))%), $heavy through main.heavy"
		[ "$leaf" -ge 100 ] || fail "$ver $g: only $leaf samples in the leaves: $(cat "$TMP/err")"
		[ $((100 * exact)) -ge $((99 * leaf)) ] ||
			fail "$ver $g: only $exact of $leaf leaf samples exact; others: $(grep -E "^$g;.*;main.leaf" "$TMP/$g.folded" | grep -vE "^$g;$GO_TREE" | cut -c1-240 | head -3)"
		# leafA under main.heavy is in GO_TREE: frame pointers alone lost main.heavy (leafA keeps none)
		[ "$heavy" -ge 1 ] || fail "$ver $g: no main.heavy;main.leafA stack"
		# an unnamed frame: Go code .gopclntab should have named (go_tree_s has no C code;
		# the others' C functions, named by their unstripped builds, have no name left)
		case $g in
		go_tree_s) twin="" ;;
		go_cgo_s) twin=$fx/go_cgo_g ;;
		*) twin=$fx/${g}_g ;;
		esac
		for f in $(grep -o "[;]$g+0x[0-9a-f]*" "$TMP/$g.folded" | sed 's/.*+//' | sort -u); do
			[ -n "$twin" ] || fail "$ver $g: unnamed frame $g+$f: $(grep "$g+$f" "$TMP/$g.folded" | head -1)"
			addr2line -f -e "$twin" "$f" | head -1 | grep -q '\.' &&
				fail "$ver $g: Go function $(addr2line -f -e "$twin" "$f" | head -1) unnamed: $(grep "$g+$f" "$TMP/$g.folded" | head -1)"
		done
	done

	# the Go build ID (the fixture has no GNU one) as the pprof mapping's build_id, hex-encoded; the
	# Go version as a comment
	expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/id.pb.gz" -- "$TMP/go_tree_s" 1
	gid=$("$gocmd" tool buildid "$TMP/go_tree_s" | tr -d '\n' | od -An -tx1 | tr -d ' \n')
	gver=$("$gocmd" version "$TMP/go_tree_s" | sed 's/.*: //')
	"$gocmd" tool pprof -raw "$TMP/id.pb.gz" >"$TMP/id.raw" 2>&1 || fail "go tool pprof -raw: $(head -3 "$TMP/id.raw")"
	grep -q "go_tree_s $gid " "$TMP/id.raw" ||
		fail "$ver go_tree_s: mapping without its Go build ID $gid: $(grep go_tree_s "$TMP/id.raw" | head -2)"
	"$gocmd" tool pprof -comments "$TMP/id.pb.gz" 2>&1 | grep -qx "$gver: $TMP/go_tree_s" ||
		fail "no comment '$gver: $TMP/go_tree_s': $("$gocmd" tool pprof -comments "$TMP/id.pb.gz" 2>&1 | head -5)"
	note "$ver go_tree_s: pprof mapping build_id = hex of its Go build ID, comment '$gver: ...'"
	# every address of the program in the samples named as that Go's addr2line names it (the
	# function holding it: a location's last, outermost line)
	awk '/^Locations/ { f = 1; next } /^Mappings/ { f = 0 } !f { next }
		$3 == "M=1" { if (a) print a, fn; a = $2; fn = $4; next }
		$3 ~ /^M=/ { if (a) print a, fn; a = ""; next }
		a && $1 !~ /:$/ { fn = $1 } END { if (a) print a, fn }' "$TMP/id.raw" >"$TMP/id.want"
	cut -d' ' -f1 "$TMP/id.want" | "$gocmd" tool addr2line "$TMP/go_tree_s" | awk 'NR % 2' >"$TMP/id.got"
	n=$(wc -l <"$TMP/id.want")
	same=$(paste -d' ' "$TMP/id.want" "$TMP/id.got" | awk '$2 == $3' | wc -l)
	note "$ver go_tree_s: $same of $n sampled addresses named as $gocmd tool addr2line names them"
	[ "$n" -ge 10 ] || fail "$ver go_tree_s: only $n addresses in the pprof file"
	[ "$same" -eq "$n" ] || fail "$ver go_tree_s: names differ from go tool addr2line: $(paste -d' ' "$TMP/id.want" "$TMP/id.got" | awk '$2 != $3' | head -3)"

	# the collector's mark workers run on the system stack: linked to their goroutine
	expect_status 0 "$CPUPROF" record -F 499 -o "$TMP/gc.folded" -- "$fx/go_gc_s" 2
	check_folded_grammar "$TMP/gc.folded"
	sys=$(count "$TMP/gc.folded" ';runtime.systemstack;')
	linked=$(count "$TMP/gc.folded" '^go_gc_s;runtime.goexit;([^;]*;)*runtime.systemstack;')
	note "$ver go_gc_s: $linked of $sys samples on the system stack linked to their goroutine"
	[ "$sys" -ge 10 ] || fail "$ver go_gc_s: only $sys samples on the system stack: $(cat "$TMP/err")"
	[ $((100 * linked)) -ge $((95 * sys)) ] ||
		fail "$ver go_gc_s: $linked of $sys system-stack samples reach runtime.goexit; others: $(grep ';runtime.systemstack;' "$TMP/gc.folded" | grep -v '^go_gc_s;runtime.goexit;' | cut -c1-200 | head -3)"

	# clock reads: the vDSO runs on g0, the caller's frame in m.vdsoSP/vdsoPC
	expect_status 0 "$CPUPROF" record -F 499 -o "$TMP/clock.folded" -- "$fx/go_clock_s" 2
	check_folded_grammar "$TMP/clock.folded"
	vdso=$(count "$TMP/clock.folded" ';__vdso_clock_gettime( |;)')
	linked=$(count "$TMP/clock.folded" '^go_clock_s;runtime.goexit;runtime.main;main.main;main.clocks;time.Now;time.now;__vdso_clock_gettime( |;)')
	note "$ver go_clock_s: $linked of $vdso samples in the vDSO linked to main.clocks"
	[ "$vdso" -ge 50 ] || fail "$ver go_clock_s: only $vdso samples in the vDSO: $(cat "$TMP/err")"
	[ $((100 * linked)) -ge $((95 * vdso)) ] ||
		fail "$ver go_clock_s: $linked of $vdso vDSO samples linked; others: $(grep '__vdso_clock_gettime' "$TMP/clock.folded" | grep -v '^go_clock_s;runtime.goexit;' | cut -c1-200 | head -3)"

	# C code called through cgo runs on g0 (runtime.asmcgocall): its frames go on into the goroutine
	# (before: [truncated: bad return address];runtime.asmcgocall;...;cspin)
	expect_status 0 "$CPUPROF" record -F 499 -o "$TMP/cgo.folded" -- "$fx/go_cgospin_s" 2
	check_folded_grammar "$TMP/cgo.folded"
	inc=$(count "$TMP/cgo.folded" ';cleaf( |;)')
	linked=$(count "$TMP/cgo.folded" '^go_cgospin_s;runtime.goexit;runtime.main;main.main;main.callC;main._Cfunc_cspin;runtime.cgocall;runtime.asmcgocall;[^;]*_Cfunc_cspin;cspin;cleaf( |;)')
	note "$ver go_cgospin_s: $linked of $inc samples in C linked to main.callC"
	[ "$inc" -ge 100 ] || fail "$ver go_cgospin_s: only $inc samples in cleaf: $(cat "$TMP/err")"
	[ $((100 * linked)) -ge $((95 * inc)) ] ||
		fail "$ver go_cgospin_s: $linked of $inc C samples linked; others: $(grep ';cleaf' "$TMP/cgo.folded" | grep -v '^go_cgospin_s;runtime.goexit;' | cut -c1-200 | head -3)"
}

go_toolchains >"$TMP/toolchains"
while read -r -u 3 gocmd fx; do
	go_checks "$gocmd" "$fx"
done 3<"$TMP/toolchains"

# one address convention: the stripped non-PIE tree's unnamed frames, from pprof and folded
strip -o "$TMP/nopie_s" "$FIX/fix_nopie"
expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/n.pb.gz" -o "$TMP/n.folded" -- "$TMP/nopie_s" 1
"$CPUPROF" report -n 0 "$TMP/n.pb.gz" | tail -n +2 >"$TMP/n.pb.top" || fail "report of the pprof file"
"$CPUPROF" report -n 0 "$TMP/n.folded" | tail -n +2 >"$TMP/n.folded.top" || fail "report of the folded file"
grep -q 'nopie_s+0x4' "$TMP/n.folded.top" || fail "no nopie_s+0x4... frame (vaddr): $(head -5 "$TMP/n.folded.top")"
diff "$TMP/n.pb.top" "$TMP/n.folded.top" >"$TMP/diff" ||
	fail "report differs between pprof and folded: $(head -6 "$TMP/diff")"
exit 0
