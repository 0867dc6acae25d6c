#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Goroutine labels: a Go program (stripped, and with DWARF) whose two goroutines carry different
# trace_id labels (pprof.Do) and do different work (main.workA, main.workB). Each goroutine's
# samples carry its own labels (>= 99 %), in the folded output with --labels, as pprof sample
# labels (go tool pprof -tags reads them), as JSON labels with the IDs as bytes; report --tag
# keeps one goroutine's functions only, report --by label:KEY groups by a label, and the pprof,
# JSON and folded files read back the same; a label of hostile bytes is escaped in every output.
# --no-go-labels: none. With CPUPROF_GO_EXTRA=/path/to/go
# (lib.sh's go_toolchains) all of it again on the fixtures that toolchain builds (its g.labels
# offset and label map from the table of its release).
. "$(dirname "$0")/lib.sh"
require_bpf
A_ID=4bf92f3577b34da6a3ce929d0e0e4736
B_ID=0af7651916cd43dd8448eb211c80319c
A_SET="span_id=00f067aa0ba902b7,trace_id=$A_ID"
B_SET="request=b,trace_id=$B_ID"

# record_labelled FOLDED ARGS...: cpuprof record ARGS (writing FOLDED among its outputs), once
# more when no sample at all carried labels. Known intermittent fault, not found yet (issue 27's
# note): about 1 run in 20 of this test on a loaded machine records the program without any
# label (0 of ~600 samples, no stale-offset count); a partial loss is not retried, and a second
# run without labels fails the checks below as before. The first run's summary is printed.
record_labelled() {
	local out=$1
	shift
	expect_status 0 "$CPUPROF" record -v "$@"
	if ! grep -q '\[labels ' "$out" && [ "$(count "$out" ';main\.work[AB]( |;)')" -ge 50 ]; then
		note "no labels on any sample (known intermittent fault), recording again; the summary: $(grep -E 'goroutine|Go |samples' "$TMP/err" | tr '\n' ' ' | cut -c1-600)"
		expect_status 0 "$CPUPROF" record -v "$@"
	fi
}

# label_checks GO FIXTURES: every check of one toolchain's fixtures, its go command for its tools
label_checks() {
	local gocmd=$1 fx=$2 ver g f a b a_own b_own v
	for f in go_labels_s go_labels_g; do
		[ -x "$fx/$f" ] || skip "no $fx/$f (go missing when the fixtures were built)"
	done
	ver=$("$gocmd" version "$fx/go_labels_s" | sed 's/.*: //')
	for g in go_labels_s go_labels_g; do
		record_labelled "$TMP/$g.folded" -F 999 --labels -o "$TMP/$g.folded" -o "$TMP/$g.pb.gz" \
			-o "$TMP/$g.json" -- "$fx/$g" 3
		check_folded_grammar "$TMP/$g.folded"
		# offsets of an ended generation (a read of the command's mappings answered after its
		# exec, entered over the command's own): its samples go without labels, counted
		grep -q 'goroutine labels not read' "$TMP/err" &&
			fail "$ver $g: $(grep -o 'goroutine labels not read[^,]*' "$TMP/err")"
		grep -q 'goroutine labels unreadable' "$TMP/err" &&
			note "$ver $g: $(grep -o 'goroutine labels unreadable[^,]*' "$TMP/err")"
		a=$(count "$TMP/$g.folded" ';main\.workA( |;)')
		b=$(count "$TMP/$g.folded" ';main\.workB( |;)')
		a_own=$(count "$TMP/$g.folded" "^$g;\[labels $A_SET\];.*;main\.workA( |;)")
		b_own=$(count "$TMP/$g.folded" "^$g;\[labels $B_SET\];.*;main\.workB( |;)")
		note "$ver $g: workA $a_own of $a samples with A's labels ($(share "$a_own" $((a - a_own)))%), workB $b_own of $b with B's ($(share "$b_own" $((b - b_own)))%)"
		[ "$a" -ge 100 ] && [ "$b" -ge 100 ] || fail "$ver $g: too few samples (A $a, B $b): $(cat "$TMP/err")"
		[ $((100 * a_own)) -ge $((99 * a)) ] ||
			fail "$ver $g: only $a_own of $a workA samples carry A's labels: $(grep ';main.workA' "$TMP/$g.folded" | grep -v "\[labels $A_SET\]" | cut -c1-200 | head -3); summary: $(tail -3 "$TMP/err")"
		[ $((100 * b_own)) -ge $((99 * b)) ] ||
			fail "$ver $g: only $b_own of $b workB samples carry B's labels: $(grep ';main.workB' "$TMP/$g.folded" | grep -v "\[labels $B_SET\]" | cut -c1-200 | head -3)"

		# report --tag on each format: one goroutine's functions only, the same from every file
		for f in pb.gz json folded; do
			"$CPUPROF" report -n 0 --tag "trace_id=$A_ID" "$TMP/$g.$f" >"$TMP/a.$f" ||
				fail "$ver $g: report --tag of the $f file"
			grep -q ' main\.workA$' "$TMP/a.$f" || fail "$ver $g.$f: --tag A lost main.workA: $(head -5 "$TMP/a.$f")"
			grep -q 'main\.workB' "$TMP/a.$f" && fail "$ver $g.$f: --tag A shows main.workB: $(grep main.workB "$TMP/a.$f")"
			"$CPUPROF" report -n 0 --tag "trace_id=$B_ID" --tag request=b "$TMP/$g.$f" >"$TMP/b.$f" ||
				fail "$ver $g: report --tag B of the $f file"
			grep -q ' main\.workB$' "$TMP/b.$f" || fail "$ver $g.$f: --tag B lost main.workB"
			grep -q 'main\.workA' "$TMP/b.$f" && fail "$ver $g.$f: --tag B shows main.workA"
			"$CPUPROF" report -n 0 --by label:trace_id "$TMP/$g.$f" >"$TMP/by.$f" ||
				fail "$ver $g: report --by label:trace_id of the $f file"
			grep -q " $A_ID\$" "$TMP/by.$f" && grep -q " $B_ID\$" "$TMP/by.$f" ||
				fail "$ver $g.$f: --by label:trace_id: $(cat "$TMP/by.$f")"
		done
		diff "$TMP/a.pb.gz" <(sed "s/$g.json: json/$g.pb.gz: pprof/" "$TMP/a.json") >/dev/null ||
			fail "$ver $g: --tag differs between the pprof and JSON files: $(diff "$TMP/a.pb.gz" "$TMP/a.json" | head -6)"
		# diff takes the same filter: B's goroutine against itself, nothing of A's
		"$CPUPROF" diff -n 0 --tag "trace_id=$B_ID" "$TMP/$g.pb.gz" "$TMP/$g.json" >"$TMP/d" ||
			fail "$ver $g: diff --tag"
		grep -q 'main\.workA' "$TMP/d" && fail "$ver $g: diff --tag B shows main.workA"
		grep -q 'main\.workB' "$TMP/d" || fail "$ver $g: diff --tag B lost main.workB"

		# JSON: the labels, and the trace and span IDs as bytes (4b f9 2f 35 ..., 00 f0 67 aa ...)
		grep -q "\"trace_id\":\"$A_ID\"" "$TMP/$g.json" || fail "$ver $g: no JSON label trace_id $A_ID"
		grep -q '"trace_id":\[75,249,47,53,119,179,77,166,163,206,146,157,14,14,71,54\],"span_id":\[0,240,103,170,11,169,2,183\]' "$TMP/$g.json" ||
			fail "$ver $g: no trace and span IDs as bytes in the JSON file"
	done

	# Go's own reader takes the labels from cpuprof's pprof file
	if command -v "$gocmd" >/dev/null; then
		"$gocmd" tool pprof -tags "$TMP/go_labels_s.pb.gz" >"$TMP/tags" 2>"$TMP/tags.err" ||
			fail "go tool pprof -tags: $(cat "$TMP/tags.err")"
		for v in "$A_ID" "$B_ID" 00f067aa0ba902b7; do
			grep -q ": $v\$" "$TMP/tags" || fail "go tool pprof -tags has no $v: $(cat "$TMP/tags")"
		done
		note "$ver go tool pprof -tags: $(grep -c '%' "$TMP/tags") label values"
	elif [ -n "${CI:-}" ]; then
		fail "go missing: go tool pprof cannot check the labels"
	fi

	# --no-go-labels: none read
	expect_status 0 "$CPUPROF" record -F 499 --no-go-labels --labels -o "$TMP/off.folded" -- "$fx/go_labels_s" 1
	grep -q '\[labels ' "$TMP/off.folded" && fail "--no-go-labels: labels in $(grep -m1 '\[labels ' "$TMP/off.folded")"
	[ "$(count "$TMP/off.folded" ';main\.work[AB]( |;)')" -ge 50 ] || fail "--no-go-labels: too few samples"

	# A label of bytes the program chose (key "k;=,%", value "a;b\nc <script>\x1b[2J"): escaped
	# in the folded set (one frame, grammar kept), each control byte U+FFFD in the report's rows
	# from every file read back, the JSON valid; no ESC anywhere
	record_labelled "$TMP/h.folded" -F 499 --labels -o "$TMP/h.folded" -o "$TMP/h.pb.gz" \
		-o "$TMP/h.json" -- "$fx/go_labels_s" 1 hostile
	check_folded_grammar "$TMP/h.folded"
	grep -qF ';[labels k%3B%3D%2C%25=a%3Bb%0Ac <script>%1B[2J,span_id=' "$TMP/h.folded" ||
		fail "$ver: the hostile label is not escaped in the folded set: $(grep -m1 -o '\[labels [^]]*' "$TMP/h.folded" | cat -v)"
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$TMP/h.json" 2>/dev/null ||
		fail "$ver: the JSON file with the hostile label does not parse"
	for f in folded pb.gz json; do
		"$CPUPROF" report -n 0 --by 'label:k;=,%' "$TMP/h.$f" >"$TMP/h.by" ||
			fail "$ver: report --by label of h.$f"
		grep -qF " a;b"$'\xef\xbf\xbd'"c <script>"$'\xef\xbf\xbd'"[2J" "$TMP/h.by" ||
			fail "$ver: h.$f: no row of the hostile value: $(cat -v "$TMP/h.by")"
		[ "$(wc -l <"$TMP/h.by")" -eq 4 ] || fail "$ver: h.$f: not 4 lines: $(cat -v "$TMP/h.by")"
		cp "$TMP/h.by" "$TMP/h.by.$f"
	done
	# (the gzip file's bytes are not text)
	if LC_ALL=C grep -l $'\x1b' "$TMP/h.folded" "$TMP/h.json" "$TMP"/h.by.* >"$TMP/esc"; then
		fail "$ver: an ESC byte reached $(cat "$TMP/esc")"
	fi
}

go_toolchains >"$TMP/toolchains"
while read -r -u 3 gocmd fx; do
	label_checks "$gocmd" "$fx"
done 3<"$TMP/toolchains"
exit 0
