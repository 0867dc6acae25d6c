#!/bin/bash
# cpuprof check: on this machine (root, BTF) every check passes, every BPF program loads and
# the exit status is 0; without privileges it says what is missing and exits 69.
. "$(dirname "$0")/lib.sh"
require_bpf

expect_status 0 "$CPUPROF" check
for p in cp_sample cp_unwind cp_fork cp_exec cp_exit; do
	grep -qE "^BPF program $p +loads +ok$" "$TMP/out" || fail "check: $p: $(cat "$TMP/out")"
done
grep -q '^cpuprof check: recording works' "$TMP/out" || fail "check: $(tail -1 "$TMP/out")"
grep -q 'FAIL' "$TMP/out" && fail "check failed something here: $(grep FAIL "$TMP/out")"

if command -v setpriv >/dev/null; then
	chmod 755 "$TMP"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		"$CPUPROF" check >"$TMP/np.out" 2>"$TMP/np.err"
	rc=$?
	[ "$rc" -eq 69 ] || fail "check without privileges: exit $rc: $(cat "$TMP/np.out" "$TMP/np.err")"
	grep -q '^privileges .*FAIL: run as root, or with CAP_BPF and CAP_PERFMON' "$TMP/np.out" ||
		fail "check without privileges: $(cat "$TMP/np.out")"
	grep -q 'recording cannot work here' "$TMP/np.out" || fail "no conclusion: $(cat "$TMP/np.out")"
fi
note "check: $(grep -c ' ok' "$TMP/out") checks ok, 5 BPF programs load; unprivileged: exit 69"
exit 0
