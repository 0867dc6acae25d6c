# SPDX-License-Identifier: GPL-2.0
# Helpers of the script-runtime tests (t_php.sh, t_perl.sh): the known call tree
# main -> run -> {Work::heavy -> Work::leaf 3/4, Work::light -> Work::leaf 1/4}
# (tests/data/php/tree.php, tests/data/perl/tree.pl). Source after lib.sh.

# script_chains FILE PREFIX: each line's PREFIX:: frames in order, the prefix and the
# " (file:line)" cut, then the line's count.
script_chains() {
	awk -v p="$2::" '{ n = split($0, f, ";"); c = f[n]; sub(/.* /, "", c); sub(/ [0-9]+$/, "", f[n])
		out = ""
		for (i = 1; i <= n; i++) if (index(f[i], p) == 1) {
			x = substr(f[i], length(p) + 1); sub(/ \(.*$/, "", x)
			out = out (out == "" ? "" : ";") x
		}
		if (out != "") print out, c }' "$1"
}

# check_script_tree OUT PREFIX ROOT MAIN FILE: OUT (folded, --lines) profiles the tree script
# FILE (its base name) of runtime PREFIX; ROOT is the native frame the script's frames must
# sit under (a regex), MAIN the file-level frame's name ("{main}", "<main>") and FUNC_MAIN the
# name of the script's main function. Checks, over the samples whose innermost script frame is
# Work::leaf: >= 95 % show MAIN;FUNC_MAIN;RUN;Work::heavy|light;Work::leaf in order, rooted at
# _start through ROOT; heavy / (heavy + light) within 0.05 of 0.75; leaf's frame at lines 5-6.
check_script_tree() {
	local out=$1 p=$2 root=$3 top=$4 fmain=$5 frun=$6 file=$7 leaves exact heavy light pct lines
	check_folded_grammar "$out"
	script_chains "$out" "$p" | grep -E 'Work::leaf [0-9]+$' >"$TMP/leaves"
	leaves=$(total "$TMP/leaves")
	grep -E ";_start;(.*;)?$root;(.*;)?$p::$top" "$out" >"$TMP/rooted"
	script_chains "$TMP/rooted" "$p" >"$TMP/rooted.chains"
	heavy=$(count "$TMP/rooted.chains" "^$top;$fmain;$frun;Work::heavy;Work::leaf [0-9]+\$")
	light=$(count "$TMP/rooted.chains" "^$top;$fmain;$frun;Work::light;Work::leaf [0-9]+\$")
	exact=$((heavy + light))
	lines=$(count "$out" "$p::Work::leaf \\([^)]*$file:[56]\\)( |;)")
	pct=$(share "$exact" $((leaves - exact)))
	note "$p: $leaves samples in Work::leaf, $exact ($pct%) whole chains from _start, heavy $heavy light $light ($(share "$heavy" "$light")%), leaf at lines 5-6: $lines"
	[ "$leaves" -ge 100 ] || fail "$leaves samples in $p::Work::leaf, want >= 100: $(head -3 "$out")"
	[ "$pct" -ge 95 ] || fail "$pct% whole chains, want >= 95: $(grep -vE "^$top;$fmain;$frun;Work::(heavy|light);Work::leaf " "$TMP/leaves" | sort -k2 -nr | head -3); $(grep -v ";_start;" "$out" | grep "$p::" | head -2)"
	pct=$(share "$heavy" "$light")
	[ "$pct" -ge 70 ] && [ "$pct" -le 80 ] || fail "heavy share $pct%, want 75 +- 5"
	[ "$(share "$lines" $((leaves - lines)))" -ge 90 ] ||
		fail "only $lines of $leaves leaf samples at $file:5-6: $(grep -o "$p::Work::leaf ([^)]*)" "$out" | sort | uniq -c | head -3)"
}

# check_short OUT PREFIX: a profile of many short runs of the tree script: every script frame
# named (no PREFIX::[unknown]), and the leaf reached.
check_short() {
	local out=$1 p=$2 all unnamed leaf
	check_folded_grammar "$out"
	all=$(count "$out" "$p::")
	unnamed=$(count "$out" "$p::\\[unknown\\]")
	leaf=$(count "$out" "$p::Work::leaf")
	note "$p short runs: $all samples with script frames, $unnamed with an unnamed one, $leaf in the leaf"
	[ "$leaf" -ge 20 ] || fail "short runs: $leaf samples in $p::Work::leaf, want >= 20"
	[ "$unnamed" -eq 0 ] || fail "short runs: $unnamed samples with $p::[unknown]: $(grep -F "$p::[unknown]" "$out" | head -2)"
}

# check_script_outputs PREFIX KIND FILE START: the tree's tree.json (schema-valid) and
# tree.pb.gz in $TMP: the JSON's PREFIX::Work::leaf frames are of kind KIND with a file ending
# in /FILE; go tool pprof reads the pprof file and finds the leaf at FILE:5-6, START the regex
# of what follows (the start line field, or nothing).
check_script_outputs() {
	local p=$1 kind=$2 file=$3 start=$4 root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	"$root/scripts/install-node-deps.sh" || fail "cannot install the node packages (scripts/install-node-deps.sh)"
	node "$root/scripts/validate-json.js" "$TMP/tree.json" >"$TMP/valid" 2>&1 || fail "invalid JSON output: $(cat "$TMP/valid")"
	node - "$TMP/tree.json" "$p::Work::leaf" "$kind" "/$file" >"$TMP/json.txt" 2>&1 <<'JS' || fail "JSON $kind frames: $(cat "$TMP/json.txt")"
const [, , path, name, kind, file] = process.argv;
const c = JSON.parse(require('fs').readFileSync(path, 'utf8')).cpuprof;
const leaf = c.frames.filter((f) => f.name === name);
if (!leaf.length || leaf.some((f) => f.kind !== kind || !(f.file || '').endsWith(file)))
	throw new Error(`${name} frames: ${JSON.stringify(leaf)}`);
JS
	command -v go >/dev/null 2>&1 || fail "go is missing (scripts/install-deps.sh installs golang-go)"
	go tool pprof -symbolize=none -raw "$TMP/tree.pb.gz" >"$TMP/raw" 2>"$TMP/raw.err" || fail "go tool pprof: $(cat "$TMP/raw.err")"
	grep -qE ": 0x0 $p::Work::leaf [^ ]*/${file//./\\.}:[56]$start\$" "$TMP/raw" ||
		fail "pprof: no $p::Work::leaf at $file:5-6: $(grep -m3 "$p::Work::leaf" "$TMP/raw")"
}
