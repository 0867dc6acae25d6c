#!/bin/bash
# The summary's "complete" figure is a count over the written profile: the samples whose user
# stack starts (first frame after the process name) with an entry point of the man page,
# among those with a user stack. Counted here from the folded output of the same recording
# and compared with the JSON counters and the summary line, with both unwinders, on a known
# tree and on the whole system. No user stack's root frame is an unnamed address.
. "$(dirname "$0")/lib.sh"
require_bpf

# "USTACKS ENTRY" of a folded file: samples with a user stack, and of those, the complete ones
folded_complete() {
	awk '{
		n = $NF
		line = $0
		sub(/ [0-9]+$/, "", line)
		k = split(line, f, ";")
		first = k >= 2 ? f[2] : ""
		# no user stack: a kernel frame or a pseudo-frame of the kernel stack comes first
		if (first == "" || first ~ /_\[k\]$/ || first ~ /^\[kernel stack / || first == "[no stack]" ||
		    first == "[kernel]" || first == "[user space]")
			next
		u += n
		if (first ~ /^(_start|__libc_start_main|__libc_start_call_main|_dl_start_user|start_thread|clone3?|__clone3?|_start_c|runtime\.(goexit|rt0_go|mstart|mcall|morestack|clone)(\.abi0)?)$/)
			e += n
	} END { printf "%d %d\n", u, e }' "$1"
}

# counter NAME of the JSON document $2 (cpuprof.counters: "NAME": N, names unique)
counter() {
	grep -oE "\"$1\": *[0-9]+" "$2" | grep -oE '[0-9]+$' | head -1
}

# compare the folded count of $1 with the JSON counters of $2 and the summary in $3
compare() {
	read -r u e <<<"$(folded_complete "$1")"
	ju=$(counter "user stacks" "$2")
	je=$(counter "user stacks reaching an entry point" "$2")
	note "$4: folded $e of $u user stacks complete; JSON $je of $ju"
	[ "$u" -gt 0 ] || fail "$4: no user stack"
	[ "$u" -eq "$ju" ] && [ "$e" -eq "$je" ] ||
		fail "$4: the profile has $e of $u complete user stacks, the counters say $je of $ju"
	pct=$(awk -v a="$e" -v b="$u" 'BEGIN { printf "%.1f", 100 * a / b }')
	grep -q "; $pct% of user stacks complete" "$3" ||
		fail "$4: summary does not say $pct%: $(grep 'user stacks complete' "$3")"
	# a frame-pointer walk of something that is no frame never shows as an unnamed root
	bad=$(grep -E '^[^;]*;\[unknown\]' "$1" | head -1)
	[ -z "$bad" ] || fail "$4: a user stack starts with an unnamed address: $bad"
}

for mode in dwarf fp; do
	expect_status 0 "$CPUPROF" record --unwind "$mode" -F 499 -o "$TMP/$mode.folded" \
		-o "$TMP/$mode.json" -- "$FIX/fix_tree" 1
	check_folded_grammar "$TMP/$mode.folded"
	compare "$TMP/$mode.folded" "$TMP/$mode.json" "$TMP/err" "fix_tree, --unwind $mode"
done
# the tables walk fix_tree to _start
read -r u e <<<"$(folded_complete "$TMP/dwarf.folded")"
[ $((100 * e)) -ge $((90 * u)) ] || fail "--unwind dwarf: only $e of $u user stacks complete"

# the whole system, whatever runs on it (short-lived processes included)
start_recording -d 2s -F 199 -o "$TMP/sys.folded" -o "$TMP/sys.json"
"$FIX/fix_tree" 0.5 2>/dev/null
wait "$REC" || fail "system-wide record failed: $(cat "$TMP/rec.err")"
check_folded_grammar "$TMP/sys.folded"
compare "$TMP/sys.folded" "$TMP/sys.json" "$TMP/rec.err" "system-wide"
exit 0
