#!/bin/bash
# Perf maps are trusted as perf trusts them: owned by root or by the process's own user, and no
# symbolic link (as the file, or inside a container's root). Three JIT processes of root:
#   jit_spoofed  its map replaced by one an unprivileged user wrote (names SPOOFED_BY_NOBODY);
#   jit_link     its map replaced by the user's symlink to a root-only file (SECRET_HOST_FILE);
#   jit_cont     in its own mount namespace with a private /tmp (a container's root), whose map
#                is replaced by a symlink to a host path only root can read;
# and jit_own, run as the unprivileged user, whose own map names its frames.
. "$(dirname "$0")/lib.sh"
require_bpf
command -v setpriv >/dev/null || skip "setpriv is missing"
command -v unshare >/dev/null || skip "unshare is missing"

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
maps=""
trap 'rm -f $maps; cleanup' EXIT
chmod 755 "$TMP"
for n in jit_spoofed jit_link jit_cont jit_own; do cp "$FIX/fix_jit" "$TMP/$n"; done

# wait_map FILE: until the JIT process has written it
wait_map() {
	for _ in $(seq 100); do [ -s "$1" ] && return 0; sleep 0.05; done
	fail "no perf map $1"
}

bg "$TMP/jit_spoofed" 30
spoofed=$!
maps="$maps /tmp/perf-$spoofed.map"
wait_map "/tmp/perf-$spoofed.map"
awk '{ print $1, $2, "SPOOFED_BY_NOBODY" }' "/tmp/perf-$spoofed.map" >"$TMP/spoof"
rm "/tmp/perf-$spoofed.map"
nobody sh -c "cat '$TMP/spoof' >/tmp/perf-$spoofed.map" || fail "nobody could not plant a map"

bg "$TMP/jit_link" 30
link=$!
maps="$maps /tmp/perf-$link.map"
wait_map "/tmp/perf-$link.map"
awk '{ print $1, $2, "SECRET_HOST_FILE" }' "/tmp/perf-$link.map" >"$TMP/secret"
chmod 600 "$TMP/secret"
rm "/tmp/perf-$link.map"
nobody ln -s "$TMP/secret" "/tmp/perf-$link.map" || fail "nobody could not plant a link"

# a private /tmp: /proc/PID/root/tmp is not the host's; its link points at a host path
# (it works in $TMP through its working directory: the private /tmp hides the host's)
bg unshare -m sh -c "cd '$TMP' && mount -t tmpfs tmpfs /tmp || exit 1
	./jit_cont 30 & p=\$!
	for _ in \$(seq 100); do [ -s /tmp/perf-\$p.map ] && break; sleep 0.05; done
	awk '{ print \$1, \$2, \"SECRET_VIA_CONTAINER\" }' /tmp/perf-\$p.map >secret2
	chmod 600 secret2
	rm /tmp/perf-\$p.map
	ln -s '$TMP/secret2' /tmp/perf-\$p.map
	echo \$p >cont.pid
	wait"
for _ in $(seq 100); do [ -s "$TMP/cont.pid" ] && break; sleep 0.05; done
cont=$(cat "$TMP/cont.pid" 2>/dev/null) || fail "the container JIT process did not start"
[ -e "/tmp/perf-$cont.map" ] && fail "the container's /tmp is the host's"

bg setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/jit_own" 30
own=$!
maps="$maps /tmp/perf-$own.map"
wait_map "/tmp/perf-$own.map"

expect_status 0 timeout 60 "$CPUPROF" record -F 499 -d 2s -p "$spoofed,$link,$cont,$own" -o "$TMP/p.folded"
check_folded_grammar "$TMP/p.folded"
for n in jit_spoofed jit_link jit_cont jit_own; do
	[ "$(count "$TMP/p.folded" "^$n;")" -gt 20 ] || fail "$n: too few samples: $(grep "^$n;" "$TMP/p.folded" | head -3)"
done
bad=$(grep -E 'SPOOFED_BY_NOBODY|SECRET_HOST_FILE|SECRET_VIA_CONTAINER' "$TMP/p.folded" | head -3)
[ -z "$bad" ] || fail "an untrusted perf map named frames: $bad"
own_n=$(count "$TMP/p.folded" '^jit_own;([^;]*;)*cp_jit_run;cp_jit_loop( |;)')
own_all=$(count "$TMP/p.folded" '^jit_own;')
[ $((100 * own_n)) -ge $((80 * own_all)) ] ||
	fail "the user's own map for their own process is not used: $own_n of $own_all named"
grep -q "perf maps of 3 processes not read: 1 owned by neither root nor the process's user, 2 symbolic links" "$TMP/err" ||
	fail "the maps not read are not reported: $(cat "$TMP/err")"
note "perf maps: another user's and two links refused; the user's own map named $own_n of $own_all samples"
exit 0
