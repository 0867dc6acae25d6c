#!/bin/bash
# Binaries the profiler cannot reach by path are still named: one in another mount namespace
# (a private tmpfs, unshare -m), and one deleted while it runs.
. "$(dirname "$0")/lib.sh"
require_bpf
command -v unshare >/dev/null || fail "unshare (util-linux) is missing"

# a private copy, visible only inside the process's own mount namespace
mkdir -p "$TMP/private"
expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -F 299 -o "$TMP/ns.folded" -- unshare -m sh -c \
	"mount -t tmpfs cpuprof-test '$TMP/private' && cp '$FIX/fix_tree' '$TMP/private/ns_tree' && exec '$TMP/private/ns_tree' 1.5"
[ ! -e "$TMP/private/ns_tree" ] || fail "the copy leaked out of the mount namespace"
n=$(count "$TMP/ns.folded" '^ns_tree;([^;]*;)*main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf( |;)')
all=$(count "$TMP/ns.folded" '^ns_tree;')
note "other mount namespace: $n of $all samples named main;cp_fix_run;cp_fix_*;cp_fix_leaf"
[ "$all" -gt 100 ] && [ $((100 * n)) -ge $((90 * all)) ] || fail "named in $n of $all samples"

# deleted while it runs: -p on it after the file is gone
cp "$FIX/fix_tree" "$TMP/del_tree"
bg "$TMP/del_tree" 600
target=$!
sleep 0.3
rm "$TMP/del_tree"
record_window "$target" 1.5 -p "$target" -o "$TMP/del.folded"
n=$(count "$TMP/del.folded" '^del_tree;([^;]*;)*main;cp_fix_run;cp_fix_(heavy|light);cp_fix_leaf( |;)')
all=$(count "$TMP/del.folded" '^del_tree;')
note "deleted binary: $n of $all samples named"
expect_samples "$all" "$WINDOW_CPU" 99 "deleted binary"
[ $((100 * n)) -ge $((90 * all)) ] || fail "deleted binary named in $n of $all samples"
exit 0
