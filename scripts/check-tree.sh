#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check: the tests must leave the work tree as they found it (no file written into the
# repository, none changed). Usage: check-tree.sh save|compare FILE
#   save     write `git status --porcelain` of the work tree to FILE
#   compare  fail, naming the differences, when the status now differs from FILE's
# Outside a git work tree (a tarball) or without git, both say so and pass.
set -eu
cd "$(dirname "$0")/.."
mode=$1
file=$2

if ! command -v git >/dev/null 2>&1 || ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	[ "$mode" = save ] && echo "  TREE     not a git work tree: what the tests write is not checked"
	exit 0
fi
# Ignored files count too (a V8 log is ignored, and must still fail it), but for the build's
# own: build/ and the ./cpuprof link.
status() {
	git status --porcelain --ignored --untracked-files=all | grep -v -e '^!! build/' -e '^!! cpuprof$' || true
}

case $mode in
save)
	mkdir -p "$(dirname "$file")"
	status >"$file"
	;;
compare)
	[ -f "$file" ] || exit 0
	now=$(mktemp "${TMPDIR:-/tmp}/cpuprof-tree.XXXXXX")
	trap 'rm -f "$now"' EXIT
	status >"$now"
	if ! cmp -s "$file" "$now"; then
		echo "make check: the tests changed the work tree (git status --porcelain, before -> after):" >&2
		diff "$file" "$now" | sed -n 's/^[<>] /  &/p' >&2
		exit 1
	fi
	echo "  TREE     the tests left the work tree unchanged"
	;;
*)
	echo "usage: $0 save|compare FILE" >&2
	exit 64
	;;
esac
