#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compare line_table (src/symbol/line_table.c) with libdw's dwarf_getsrclines on every ELF
# object of this machine that has a .debug_line section (under DIRS, default /), through
# test_line_table's CPUPROF_LINE_CHECK mode: file tables, and the row at every row address and
# one byte below and above. usage: line_check.sh TEST_BINARY [DIR...]
set -eu
TEST=$(realpath "$1")
shift
[ $# -gt 0 ] || set -- /
list=$(mktemp)
trap 'rm -f "$list"' EXIT
python3 "$(dirname "$0")/list_debug_line.py" "$@" > "$list"
echo "line_check: $(wc -l < "$list") objects with .debug_line under $*"
CPUPROF_LINE_CHECK=$list "$TEST"
