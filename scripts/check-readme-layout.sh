#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The README's layout table names every module of src/ and bpf/ (make check runs this):
# a module added without a line there fails it, naming the file.
set -eu
cd "$(dirname "$0")/.."
table=$(sed -n '/^## Layout/,/^## /p' README.md)
missing=""
for f in src/*/*.[ch] src/*/*.proto bpf/*.[ch]; do
	# a header with its .c beside it is that module's: the .c is what the table names
	case $f in *.h) [ -e "${f%.h}.c" ] && continue ;; esac
	name=$(basename "$f")
	stem=${name%.[ch]}
	# `x.c`, `x.h`, `x.[ch]`, or x.c / x.h inside a longer code span
	if ! printf '%s\n' "$table" | grep -qF -e "$name" -e "$stem.[ch]"; then
		missing="$missing $f"
	fi
done
if [ -n "$missing" ]; then
	echo "README.md's layout table does not name:$missing" >&2
	exit 1
fi
