#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# No function of the recording session's units over MAX lines (issue 25: each unit readable
# alone). A function's length is counted from its opening "{" to its closing "}" (both at the
# start of a line, as make format writes a function's braces), the lines of both included.
# Prints each function over the limit and fails on any; with -l, lists every function of the
# files given (or of the checked files), longest first, and checks nothing.
# Usage: scripts/check-func-length.sh [-l] [FILE...]
cd "$(dirname "$0")/.." || exit 1
MAX=60
list=0
if [ "${1:-}" = -l ]; then
	list=1
	shift
fi
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	files=(src/session/record.c src/session/proc_track.c src/session/stop_rule.c
		src/session/set_queue.c src/session/watch.c src/profile/aggregate.c)
fi
lengths() {
	# FILE:LINE LENGTH NAME, the name being the last identifier before "(" on the line
	# before the brace (the signature's first line for a signature on several lines)
	awk -v f="$1" '
		/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ { sig = $0; sigline = FNR }
		/^\{/ { start = FNR; name = sig; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name) }
		/^\}/ && start { printf "%s:%d %d %s\n", f, sigline, FNR - start + 1, name; start = 0 }
	' "$1"
}
all=$(for f in "${files[@]}"; do [ -f "$f" ] && lengths "$f"; done)
if [ "$list" = 1 ]; then
	awk 'NF { print $2, $3, $1 }' <<<"$all" | sort -rn
	exit 0
fi
bad=$(awk -v max="$MAX" 'NF && $2 > max {
	printf "check-func-length: %s: %s is %d lines (at most %d)\n", $1, $3, $2, max; n++
} END { exit n > 0 }' <<<"$all" >&2; echo $?)
[ "$bad" -eq 0 ]
