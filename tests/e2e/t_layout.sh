#!/bin/bash
# Any ELF layout, the native toolchains: the known call tree (main -> run -> {heavy -> leaf,
# light -> leaf}) built by each linker and language as its users build it, without frame
# pointers where the toolchain allows, walked with the unwind tables (--unwind auto) from the
# entry point to the leaf. lld, mold and rustc's default linking put the executable segment at
# another vaddr - offset than the read-only one before it; before that was handled, none of
# these stacks got past the leaf ([unwind-failed: no unwind info]). A stripped build has only
# .eh_frame: its frames are module+0x..., checked against the unstripped build's symbols.
# A toolchain that is absent is skipped outside CI; in CI each must be there.
. "$(dirname "$0")/lib.sh"
require_bpf

SRC=$(cd "$(dirname "$0")/../fixtures" && pwd)
start='_start;__libc_start_main;__libc_start_call_main;main'
C_TREE="$start;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf( |;)"
# std's start-up frames between C's main and the crate's main vary with the Rust release
RS_TREE="$start;(((std|core)::|<)[^;]*;)*CRATE::main;CRATE::run;CRATE::(heavy;CRATE::leaf_a|light;CRATE::leaf_b)( |;)"
GO_TREE='runtime.goexit(.abi0)?;runtime.main;main.main;main.run;main.(heavy;main.leafA|light;main.leafB)( |;)'
CFLAGS_NOFP="-O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls"
missing=""
ran=0

absent() {
	[ -n "${CI:-}" ] && fail "CI is set, so this may not skip: $*"
	note "skipped: $*"
	missing="$missing; $*"
}

# record NAME: the program $TMP/NAME for 3 s as a -- COMMAND into $TMP/NAME.folded
record() {
	expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 499 -o "$TMP/$1.folded" -- "$TMP/$1" 3
	check_folded_grammar "$TMP/$1.folded"
}

# check NAME LEAF_RE CHAIN_RE HEAVY: >= 95 % of the samples in the leaves have the exact chain,
# and about 3/4 of those go through the heavy branch (the frame named HEAVY)
check() {
	local leaf exact heavy pct
	leaf=$(count "$TMP/$1.folded" "^$1;.*$2")
	exact=$(count "$TMP/$1.folded" "^$1;$3")
	heavy=$(grep -E "^$1;$3" "$TMP/$1.folded" | grep -E ";$4;" | awk '{ s += $NF } END { print s + 0 }')
	pct=$(share "$heavy" $((exact - heavy)))
	note "$1: $exact of $leaf leaf samples exact from the entry point ($(share "$exact" $((leaf - exact)))%), ${pct}% through $4"
	[ "$leaf" -ge 100 ] || fail "$1: only $leaf samples in the leaves: $(cat "$TMP/err")"
	[ $((100 * exact)) -ge $((95 * leaf)) ] ||
		fail "$1: only $exact of $leaf leaf samples exact; others: $(grep -E "^$1;.*$2" "$TMP/$1.folded" | grep -vE "^$1;$3" | cut -c1-240 | head -3)"
	[ "$pct" -ge 68 ] && [ "$pct" -le 82 ] || fail "$1: the heavy branch has ${pct}%, expected 75% (68..82)"
	ran=$((ran + 1))
}

# c NAME LINKER_FLAGS...: fix_tree.c without frame pointers, linked so
c() {
	local name=$1
	shift
	gcc $CFLAGS_NOFP "$@" -o "$TMP/$name" "$SRC/fix_tree.c" 2>"$TMP/cc.err" ||
		fail "building $name: $(cat "$TMP/cc.err")"
	record "$name"
	check "$name" ';cp_fix_leaf( |;)' "$C_TREE" cp_fix_heavy
}

# -- C, each linker ---------------------------------------------------------------------------
if command -v ld.lld >/dev/null; then
	c lld -fuse-ld=lld
	c lld_nopie -fuse-ld=lld -no-pie -fno-pie
	c lld_noseparate -fuse-ld=lld -Wl,-z,noseparate-code
	c lld_separate -fuse-ld=lld -Wl,-z,separate-code
else
	absent "ld.lld (Debian package lld)"
fi
if command -v ld.gold >/dev/null; then
	c gold -fuse-ld=gold
else
	absent "ld.gold (Debian package binutils)"
fi
if command -v mold >/dev/null; then
	c mold -fuse-ld=mold
else
	absent "mold (Debian package mold)"
fi
# GNU ld: the code moved far from the headers (two executable segments, .init and .text), and
# the headers, code and read-only data in one segment
c ttext -no-pie -fno-pie -Wl,-Ttext=0x10000000
c noseparate -Wl,-z,noseparate-code

# -- stripped: only .eh_frame; each frame of the program must fall in the right function ------
if command -v ld.lld >/dev/null; then
	cp "$TMP/lld" "$TMP/lld_stripped"
	strip --strip-all "$TMP/lld_stripped"
	readelf -SW "$TMP/lld_stripped" | grep -q ' \.symtab ' && fail "strip left a .symtab"
	record lld_stripped
	nm -S "$TMP/lld" | awk '$4 ~ /^(main|cp_fix_(run|heavy|light|leaf))$/ { print $1, $2, $4 }' \
		>"$TMP/syms"
	[ "$(wc -l <"$TMP/syms")" -eq 5 ] || fail "nm: $(cat "$TMP/syms")"
	# lld_stripped;_start;...;main-frame;run-frame;heavy/light-frame;leaf-frame N: name each
	# module+0x... frame from the symbols, then the chain is checked as the named builds'
	awk -v syms="$TMP/syms" '
		function hex(s, v, i) {
			for (i = 1; i <= length(s); i++)
				v = 16 * v + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		BEGIN {
			while ((getline l < syms) > 0) {
				split(l, f, " ")
				n++; lo[n] = hex(f[1]); hi[n] = lo[n] + hex(f[2]); nm[n] = f[3]
			}
		}
		{
			k = split($1, fr, ";"); out = fr[1]
			for (i = 2; i <= k; i++) {
				name = fr[i]
				if (name ~ /^lld_stripped\+0x[0-9a-f]+$/) {
					a = hex(substr(name, 16)); name = "?"
					# a return address may be one past its function (a call at its end)
					for (j = 1; j <= n; j++)
						if (a >= lo[j] && a <= hi[j]) name = nm[j]
				}
				out = out ";" name
			}
			print out, $2
		}' "$TMP/lld_stripped.folded" >"$TMP/lld_stripped.named"
	mv "$TMP/lld_stripped.named" "$TMP/lld_stripped.folded"
	check lld_stripped ';cp_fix_leaf( |;)' "$C_TREE" cp_fix_heavy
fi

# -- Rust: plain rustc (lld by default since 1.90), and a cargo crate --------------------------
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
rustc=$(command -v rustc || echo "$home/.cargo/bin/rustc")
cargo=$(command -v cargo || echo "$home/.cargo/bin/cargo")
if [ -x "$rustc" ]; then
	"$rustc" -O -g -o "$TMP/tree_rs" "$SRC/fix_tree.rs" 2>"$TMP/cc.err" ||
		fail "rustc: $(cat "$TMP/cc.err")"
	record tree_rs
	check tree_rs ';fix_tree::leaf_[ab]( |;)' "${RS_TREE//CRATE/fix_tree}" fix_tree::heavy
else
	absent "rustc (rustup, in PATH or ~/.cargo/bin)"
fi
if [ -x "$cargo" ]; then
	mkdir -p "$TMP/crate"
	cp -r "$SRC/cargo_tree" "$SRC/fix_tree.rs" "$TMP/crate/"
	# no dependencies: nothing to fetch; PATH so that cargo finds the rustc beside it
	(cd "$TMP/crate/cargo_tree" && PATH="$(dirname "$cargo"):$PATH" CARGO_TARGET_DIR="$TMP/crate/target" \
		"$cargo" build --release --offline -q) >"$TMP/cc.err" 2>&1 ||
		fail "cargo build: $(cat "$TMP/cc.err")"
	cp "$TMP/crate/target/release/cargo_tree" "$TMP/cargo_tree"
	record cargo_tree
	check cargo_tree ';cargo_tree::leaf_[ab]( |;)' "${RS_TREE//CRATE/cargo_tree}" cargo_tree::heavy
else
	absent "cargo (rustup, in PATH or ~/.cargo/bin)"
fi

# -- Go: frame pointers, its own entry points -------------------------------------------------
if command -v go >/dev/null; then
	mkdir -p "$TMP/go"
	cp "$SRC/fix_tree.go" "$TMP/go/"
	(cd "$TMP/go" && GO111MODULE=off GOFLAGS= GOCACHE="$TMP/go/cache" GOPATH="$TMP/go/path" \
		go build -o "$TMP/tree_go" fix_tree.go) >"$TMP/cc.err" 2>&1 ||
		fail "go build: $(cat "$TMP/cc.err")"
	record tree_go
	check tree_go ';main.leaf[AB]( |;)' "$GO_TREE" main.heavy
	# where the Go stacks begin: the main goroutine's and the runtime's threads' roots
	note "tree_go roots (samples): $(awk '{ n = $NF; sub(/ [0-9]+$/, ""); split($0, f, ";")
		r[f[2]] += n } END { for (k in r) print r[k], k }' "$TMP/tree_go.folded" | sort -nr |
		head -5 | awk '{ n = $1; sub(/^[0-9]+ /, ""); printf "%s%s %d", s, $0, n; s = ", " }')"
else
	absent "go (Debian package golang-go)"
fi

[ "$ran" -gt 0 ] || skip "no toolchain$missing"
exit 0
