#!/bin/bash
# -o never replaces what is not a regular file: a FIFO is streamed to its reader, a symlink
# stays and its target gets the profile, an existing file keeps its mode; nothing but the
# outputs is left in the directory (no temporary file).
. "$(dirname "$0")/lib.sh"
require_bpf

mkfifo "$TMP/fifo"
cat "$TMP/fifo" >"$TMP/from-fifo" &
catpid=$!
"$CPUPROF" record -q -F 499 -o "$TMP/fifo" -- "$FIX/fix_tree" 0.3 || fail "record into a FIFO failed"
wait "$catpid"
[ -p "$TMP/fifo" ] || fail "the FIFO was replaced"
check_folded_grammar "$TMP/from-fifo"
grep -q '^fix_tree;.*cp_fix_leaf' "$TMP/from-fifo" || fail "the FIFO's reader got no fix_tree stacks"

echo old >"$TMP/real.folded"
chmod 0640 "$TMP/real.folded"
ln -s real.folded "$TMP/link.folded"
"$CPUPROF" record -q -F 499 -o "$TMP/link.folded" -- "$FIX/fix_tree" 0.3 || fail "record through a symlink failed"
[ -L "$TMP/link.folded" ] || fail "the symlink was replaced by a file"
grep -q '^fix_tree;.*cp_fix_leaf' "$TMP/real.folded" || fail "the symlink's target has no profile"
[ "$(stat -c %a "$TMP/real.folded")" = 640 ] || fail "mode $(stat -c %a "$TMP/real.folded"), not 640"

# a FIFO without a reader is an error at once (exit 73), not a hang
mkfifo "$TMP/lonely"
expect_status 73 timeout 10 "$CPUPROF" record -q -o "$TMP/lonely" -- true
left=$(find "$TMP" -name '.*' ! -name . | wc -l)
[ "$left" -eq 0 ] || fail "$left temporary files left: $(find "$TMP" -name '.*' ! -name .)"
note "FIFO streamed ($(total "$TMP/from-fifo") samples), symlink kept with mode 640, no reader: exit 73"
exit 0
