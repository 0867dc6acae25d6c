#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Regenerate tests/data/python/lines-X.Y.txt with every pyenv interpreter found (run from the top
# of the tree). The files are committed: the unit tests need no interpreter.
set -eu
root=${PYENV_ROOT:-$HOME/.pyenv}
for py in "$root"/versions/*/bin/python; do
	[ -x "$py" ] || continue
	v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	"$py" tests/data/python/gen_linetables.py >"tests/data/python/lines-$v.txt"
	echo "lines-$v.txt: $("$py" --version 2>&1)"
done
