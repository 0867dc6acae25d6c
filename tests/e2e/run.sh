#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every tests/e2e/t_*.sh; 0 = pass, 77 = skip (only outside CI), anything else = fail.
cd "$(dirname "$0")/../.." || exit 1
# A test that hangs fails after E2E_TIMEOUT seconds instead of holding the run (and CI) for
# ever. Its output goes through a file, not a pipe, so a process it left behind cannot keep
# the run waiting for the end of that pipe.
limit=${E2E_TIMEOUT:-300}
log=$(mktemp "${TMPDIR:-/tmp}/cpuprof-e2e-log.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
pass=0 skipped=0 failed=0
for t in tests/e2e/t_*.sh; do
	name=$(basename "$t" .sh)
	start=$SECONDS
	# --foreground: the test stays in the terminal's process group, so Ctrl-C stops it too
	timeout --foreground -k 10 "$limit" bash "$t" >"$log" 2>&1 </dev/null
	rc=$?
	elapsed=$((SECONDS - start))
	took="$elapsed s"
	out=$(cat "$log")
	case $rc in
	0) pass=$((pass + 1)); echo "  E2E      $name: ok ($took)"; [ -n "$out" ] && echo "$out" ;;
	77) skipped=$((skipped + 1)); echo "  E2E      $name: skipped"; echo "$out" ;;
	*) failed=$((failed + 1))
		# 124 and 137 are timeout's only when the time is up; a test may exit so itself
		if [ "$elapsed" -ge "$limit" ]; then
			echo "  E2E      $name: FAILED (no end after $limit s, exit $rc)"
		else
			echo "  E2E      $name: FAILED (exit $rc, $took)"
		fi
		echo "$out" ;;
	esac
done
echo "  E2E      $pass passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ] || exit 1
if [ -n "${CI:-}" ] && [ "$skipped" -ne 0 ]; then
	echo "  E2E      CI is set: skipped end-to-end tests count as failures"
	exit 1
fi
exit 0
