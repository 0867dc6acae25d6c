#!/bin/bash
# --debuginfod fetches a debug file that is nowhere on the machine from a debuginfod server
# (a local one, serving a directory); without the option nothing is fetched.
. "$(dirname "$0")/lib.sh"
require_bpf
command -v debuginfod >/dev/null || fail "debuginfod is missing (scripts/install-deps.sh installs it)"

mkdir -p "$TMP/srv" "$TMP/cache"
objcopy --only-keep-debug "$FIX/fix_inline" "$TMP/srv/fix_inline.debug"
# no symbols, no debug information, no .gnu_debuglink: only the build-id is left
objcopy --strip-all --remove-section=.gnu_debuglink "$FIX/fix_inline" "$TMP/stripped_inline"
bid=$(readelf -n "$TMP/stripped_inline" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$bid" ] || fail "the fixture has no build-id"

port=$((20000 + RANDOM % 20000))
debuginfod -p "$port" -d "$TMP/db.sqlite" -F "$TMP/srv" >"$TMP/srv.log" 2>&1 &
BG_PIDS="$BG_PIDS $!"
for _ in $(seq 100); do
	curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$bid/debuginfo" && break
	sleep 0.2
done
curl -sf -o /dev/null "http://127.0.0.1:$port/buildid/$bid/debuginfo" ||
	fail "the debuginfod server does not serve $bid: $(tail -3 "$TMP/srv.log")"
export DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$TMP/cache"

expect_status 0 "$CPUPROF" record -q -o "$TMP/off.folded" -- "$TMP/stripped_inline" 1
grep -q 'cp_inl_' "$TMP/off.folded" && fail "names without --debuginfod: $(grep cp_inl_ "$TMP/off.folded" | head -1)"

expect_status 0 env CP_FIX_CPU_CLOCK=1 "$CPUPROF" record -q -F 299 --debuginfod -o "$TMP/on.folded" -- "$TMP/stripped_inline" 1
all=$(count "$TMP/on.folded" '^stripped_inline;')
n=$(count "$TMP/on.folded" '^stripped_inline;([^;]*;)*main;cp_inl_run;cp_inl_work;cp_inl_hot_\[i\]( |;)')
note "--debuginfod: $n of $all samples named with the fetched debug file"
[ "$all" -gt 50 ] && [ $((100 * n)) -ge $((90 * all)) ] || fail "named in $n of $all samples"

# a server that cannot be reached is said, once, and the profile is still written
kill $BG_PIDS 2>/dev/null
wait 2>/dev/null
rm -rf "$TMP/cache"
DEBUGINFOD_TIMEOUT=5 expect_status 0 "$CPUPROF" record -F 299 --debuginfod -o "$TMP/down.folded" \
	-- "$TMP/stripped_inline" 0.5
[ "$(grep -c 'servers of DEBUGINFOD_URLS could not be asked' "$TMP/err")" -eq 1 ] ||
	fail "an unreachable server is not said once: $(cat "$TMP/err")"
[ -s "$TMP/down.folded" ] || fail "no profile with the server down"
exit 0
