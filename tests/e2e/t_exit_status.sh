#!/bin/bash
# -- COMMAND's exit status is cpuprof's: its own code, or 128+signal; the profile is written.
. "$(dirname "$0")/lib.sh"
require_bpf

expect_status 7 "$CPUPROF" record -q -o "$TMP/a.folded" -- "$FIX/fix_tree" 0.3 7
check_folded_grammar "$TMP/a.folded"
grep -q '^fix_tree;.*cp_fix_leaf' "$TMP/a.folded" || fail "no fix_tree stacks after exit 7"

expect_status 143 "$CPUPROF" record -q -o "$TMP/b.folded" -- sh -c "$FIX/fix_tree 0.3; kill -TERM \$\$"
[ -s "$TMP/b.folded" ] || fail "no profile when the command is killed"
# the child of sh is followed
grep -q '^fix_tree;.*cp_fix_leaf' "$TMP/b.folded" || fail "the command's child was not followed"

expect_status 0 "$CPUPROF" record -q -o "$TMP/c.folded" -- true
[ -e "$TMP/c.folded" ] || fail "no output file for a command with no samples"
note "exit 7 and 143 (SIGTERM) passed through; children followed"
exit 0
