#!/bin/bash
# Code mapped after a process was first sampled (dlopen) is named: its mappings are read again.
# Also: -p on a zombie is refused.
. "$(dirname "$0")/lib.sh"
require_bpf

expect_status 0 "$CPUPROF" record -F 299 -o "$TMP/dl.folded" -- "$FIX/fix_dlopen" 1 1
check_folded_grammar "$TMP/dl.folded"
before=$(count "$TMP/dl.folded" '^fix_dlopen;([^;]*;)*main;cp_fix_before( |;)')
after=$(count "$TMP/dl.folded" '^fix_dlopen;([^;]*;)*main;cp_fix_after_dlopen;cp_lib_work;cp_lib_leaf( |;)')
unnamed=$(count "$TMP/dl.folded" '^fix_dlopen;.*libcpfix\.so\+0x')
note "before dlopen $before, in the dlopen'ed library $after (named), $unnamed unnamed"
# each phase has the samples of the CPU time it got (the fixture prints both)
c1=$(fixture_cpu "$TMP/err" fix_dlopen " before dlopen") || exit 1
c2=$(fixture_cpu "$TMP/err" fix_dlopen) || exit 1
expect_samples "$before" "$c1" 299 "before dlopen"
expect_samples "$after" "$(cpu_since "$c1" "$c2")" 299 "named in the dlopen'ed library"
[ "$before" -ge 1 ] && [ "$after" -ge 1 ] || fail "no samples before dlopen ($before) or named in the library ($after)"
[ "$unnamed" -eq 0 ] || fail "$unnamed samples in libcpfix.so unnamed: $(grep 'libcpfix.so+0x' "$TMP/dl.folded" | head -1)"

# a zombie: its parent sleeps without reaping it
sh -c "sleep 0.1 & exec sleep 3" &
BG_PIDS="$BG_PIDS $!"
sleep 0.5
z=$(ps -o pid=,stat= --ppid $! | awk '$2 ~ /^Z/ { print $1 }' | head -1)
[ -n "$z" ] || fail "no zombie to test with"
expect_status 66 "$CPUPROF" record -p "$z" -d 1s -o "$TMP/z.folded"
grep -q "process $z has exited (it is a zombie)" "$TMP/err" || fail "zombie message: $(cat "$TMP/err")"
exit 0
