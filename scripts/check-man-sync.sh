#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Check that man/cpuprof.1 is in sync with the binary:
#   - every long option of `cpuprof record --help` appears in the man page;
#   - every exit status listed in the help's "Exit status" paragraph appears in the man page's
#     EXIT STATUS section;
#   - groff renders the page without warnings.
# Prints one line per problem on stderr and exits 1; prints nothing and exits 0 when in sync.
# The binary is $CPUPROF (default ./cpuprof); the page is $CPUPROF_MAN (default man/cpuprof.1).
set -eu

CPUPROF=${CPUPROF:-./cpuprof}
MAN=${CPUPROF_MAN:-man/cpuprof.1}
me=check-man-sync
fail=0

problem() {
	echo "$me: $*" >&2
	fail=1
}

if [ ! -r "$MAN" ]; then
	echo "$me: cannot read $MAN" >&2
	exit 1
fi
if ! help=$("$CPUPROF" record --help 2>&1); then
	echo "$me: '$CPUPROF record --help' failed" >&2
	exit 1
fi

# The page as text: comment lines dropped, font escapes (\fB, \fI, \fR, \fP, \f(XX, \f[X])
# removed, \- and \(hy made plain hyphens, \& and \c dropped.
man_text=$(sed -e '/^\.\\"/d' \
	-e 's/\\f\[[^]]*\]//g' -e 's/\\f([A-Z][A-Z]//g' -e 's/\\f[BIRP1-4]//g' \
	-e 's/\\-/-/g' -e 's/\\(hy/-/g' -e 's/\\&//g' -e 's/\\c//g' "$MAN")

# Long options from the option lines of --help only ("  -p, --pid=PID", "      --no-kernel"),
# not from the examples, whose --iters belongs to a COMMAND.
opts=$(printf '%s\n' "$help" |
	sed -n -e 's/^ \{1,\}\(-[^-], \)\{0,1\}\(--[A-Za-z0-9][A-Za-z0-9-]*\).*/\2/p' | sort -u)
if [ -z "$opts" ]; then
	problem "no long options found in '$CPUPROF record --help'"
fi
for o in $opts; do
	# a whole option name: not followed by another name character (--kernel vs --kernel-only)
	if ! printf '%s\n' "$man_text" | grep -q -E -e "$o([^A-Za-z0-9-]|\$)"; then
		problem "option $o of 'cpuprof record --help' is missing from $MAN"
	fi
done

# Exit statuses: the numbers in the "Exit status:" paragraph (up to the next blank line);
# "128+N" is a formula, not a status.
codes=$(printf '%s\n' "$help" |
	awk '/^Exit status:/ { on = 1; next } on && /^[[:space:]]*$/ { exit } on' |
	sed -E 's/[0-9]+\+[A-Za-z]+//g' |
	grep -o -E '(^|[^0-9A-Za-z+])[0-9]+' | tr -dc '0-9\n' | sort -un)
if [ -z "$codes" ]; then
	problem "no exit statuses found in the 'Exit status' paragraph of '$CPUPROF record --help'"
fi
# The EXIT STATUS section of the page: from its .SH up to the next .SH.
section=$(printf '%s\n' "$man_text" |
	awk '/^\.SH/ { on = ($0 ~ /^\.SH[[:space:]]+"?EXIT STATUS"?[[:space:]]*$/); next } on')
if [ -z "$section" ]; then
	problem "$MAN has no EXIT STATUS section"
fi
for c in $codes; do
	# the number as a whole word, not inside 128+15 or 0x1
	if ! printf '%s\n' "$section" | grep -q -E "(^|[^0-9A-Za-z.+])$c([^0-9A-Za-z+]|\$)"; then
		problem "exit status $c of 'cpuprof record --help' is missing from the EXIT STATUS section of $MAN"
	fi
done

# groff: any output (warning or error) is a problem.
if ! command -v groff >/dev/null 2>&1; then
	problem "groff not found (install groff-base)"
else
	groff_out=$(groff -man -ww -z "$MAN" 2>&1) || true
	if [ -n "$groff_out" ]; then
		printf '%s\n' "$groff_out" | while IFS= read -r line; do
			echo "$me: groff: $line" >&2
		done
		fail=1
	fi
fi

exit "$fail"
