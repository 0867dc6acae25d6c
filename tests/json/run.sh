#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Validate the JSON writer's output against speedscope's own schema and docs/cpuprof-json.schema.json:
# the JSON unit test saves every document it writes (CPUPROF_JSON_DUMP_DIR), then
# scripts/validate-json.js checks each one, and two of them are turned back into folded stacks
# that must read exactly as the folded writer would write the same profile.
# Usage: tests/json/run.sh [TEST_BINARY]   (default build/rel/tests/test_json_out)
set -u
cd "$(dirname "$0")/../.." || exit 1
BIN=${1:-build/rel/tests/test_json_out}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cpuprof-json.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

fail() {
	echo "  JSON     FAIL: $*" >&2
	exit 1
}

[ -x "$BIN" ] || fail "$BIN is not built (make $BIN)"
scripts/install-node-deps.sh || fail "cannot install the node packages (scripts/install-node-deps.sh)"

CPUPROF_JSON_DUMP_DIR=$TMP "$BIN" >"$TMP/unit.log" 2>&1 || {
	cat "$TMP/unit.log" >&2
	fail "$BIN failed"
}
n=$(find "$TMP" -name '*.json' | wc -l)
[ "$n" -ge 13 ] || fail "the unit test wrote $n documents, expected at least 13"

node scripts/validate-json.js "$TMP"/*.json >"$TMP/valid.log" 2>&1 || {
	cat "$TMP/valid.log" >&2
	fail "a document does not validate"
}

# what the folded writer prints for the same profiles (see tests/unit/test_folded.c)
node scripts/validate-json.js --folded "$TMP/document.json" >"$TMP/document.folded" ||
	fail "--folded document.json"
diff -u - "$TMP/document.folded" <<'END' || fail "document.json does not fold to the expected stacks"
app;main;ns::run(int);entry_SYSCALL_64_[k];vfs_read_[k] 2
app;main;ns::run(int);leaf 5
app;main;ns::run(int);leaf;inl_[i] 3
srv;main 1
END
node scripts/validate-json.js --folded "$TMP/per_thread.json" >"$TMP/per_thread.folded" ||
	fail "--folded per_thread.json"
diff -u - "$TMP/per_thread.folded" <<'END' || fail "per_thread.json does not fold to the expected stacks"
cron;[empty]-3;work 1
srv;io-6;work 1
srv;io_worker-6;work 4
srv;srv-5;work 2
END
cmp -s "$TMP/order_a.json" "$TMP/order_b.json" || fail "insertion order changed the bytes"

# the example in docs/json-format.md is valid and folds to the stacks printed under it
awk '/^```json$/ { on = 1; next } /^```$/ && on { exit } on' docs/json-format.md >"$TMP/doc.json"
awk '/^```json$/ { n = 1 } /^```$/ && n == 1 { n = 2; next } n == 2 && /^```$/ { on = !on; if (!on) exit; next } on' \
	docs/json-format.md >"$TMP/doc.expected"
[ -s "$TMP/doc.json" ] && [ -s "$TMP/doc.expected" ] || fail "no example in docs/json-format.md"
node scripts/validate-json.js "$TMP/doc.json" >"$TMP/doc.log" 2>&1 || {
	cat "$TMP/doc.log" >&2
	fail "the example in docs/json-format.md does not validate"
}
node scripts/validate-json.js --folded "$TMP/doc.json" | diff -u "$TMP/doc.expected" - ||
	fail "the example in docs/json-format.md does not fold to the stacks shown under it"
# and it is what the writer makes of that profile (tests/unit/test_json_out.c test_doc_example)
node -e '
const fs = require("fs");
const [doc, got] = process.argv.slice(1).map((f) => JSON.stringify(JSON.parse(fs.readFileSync(f))));
if (doc !== got) { console.error(`docs:   ${doc}\nwriter: ${got}`); process.exit(1); }
' "$TMP/doc.json" "$TMP/doc_example.json" || fail "the example in docs/json-format.md is not the writer's output"

# the validator itself must reject what speedscope's importer rejects
node -e '
const fs = require("fs");
const d = JSON.parse(fs.readFileSync(process.argv[1]));
d.profiles[1].weights.pop();
fs.writeFileSync(process.argv[2], JSON.stringify(d));
' "$TMP/document.json" "$TMP/broken.json"
if node scripts/validate-json.js "$TMP/broken.json" >/dev/null 2>&1; then
	fail "the validator accepted samples and weights of different lengths"
fi

echo "  JSON     $n documents valid against speedscope's schema and docs/cpuprof-json.schema.json"
