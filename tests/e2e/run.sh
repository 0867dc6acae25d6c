#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every tests/e2e/t_*.sh; 0 = pass, 77 = skip (only outside CI), anything else = fail.
cd "$(dirname "$0")/../.." || exit 1
pass=0 skipped=0 failed=0
for t in tests/e2e/t_*.sh; do
	name=$(basename "$t" .sh)
	out=$(bash "$t" 2>&1)
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "  E2E      $name: ok"; [ -n "$out" ] && echo "$out" ;;
	77) skipped=$((skipped + 1)); echo "  E2E      $name: skipped"; echo "$out" ;;
	*) failed=$((failed + 1)); echo "  E2E      $name: FAILED (exit $rc)"; echo "$out" ;;
	esac
done
echo "  E2E      $pass passed, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ] || exit 1
if [ -n "${CI:-}" ] && [ "$skipped" -ne 0 ]; then
	echo "  E2E      CI is set: skipped end-to-end tests count as failures"
	exit 1
fi
exit 0
