#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# JSON and folded output of one recording (-o p.json -o p.folded): the JSON is valid against
# speedscope's own schema and docs/cpuprof-json.schema.json, shows the fixture's stacks root
# first under the process name, and its per-stack counts and total equal the folded output.
. "$(dirname "$0")/lib.sh"
require_bpf

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VALIDATE=$ROOT/scripts/validate-json.js
"$ROOT/scripts/install-node-deps.sh" || fail "cannot install the node packages (scripts/install-node-deps.sh)"

json=$TMP/p.json
folded=$TMP/p.folded
expect_status 0 "$CPUPROF" record -F 499 -o "$json" -o "$folded" -- "$FIX/fix_tree" 2
check_folded_grammar "$folded"
[ -s "$json" ] || fail "$json is empty"
head -c 1 "$json" | grep -q '{' || fail "$json is not JSON: $(head -c 80 "$json")"
node "$VALIDATE" "$json" >"$TMP/valid" 2>&1 || fail "invalid JSON output: $(cat "$TMP/valid")"
note "$(sed "s|$TMP/||" "$TMP/valid")"

# The same recording, two writers: every stack with the same count, the same total.
node "$VALIDATE" --folded "$json" >"$TMP/json.folded" || fail "cannot fold $json"
diff -u "$folded" "$TMP/json.folded" >"$TMP/diff" ||
	fail "JSON and folded output disagree: $(head -20 "$TMP/diff")"

# What speedscope shows: the names of shared.frames along each sample, root first, with the
# sample count (weight / period); plus the facts of the recording, one per line.
node - "$json" >"$TMP/speedscope.txt" 2>"$TMP/node.err" <<'JS' || fail "reading $json: $(cat "$TMP/node.err")"
const d = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
const c = d.cpuprof;
const frames = d.shared.frames;
const bad = (m) => { console.error(m); process.exit(1); };
d.profiles.forEach((p, i) => {
	if (p.unit !== 'nanoseconds') bad(`profile ${i} unit ${p.unit}`);
	const want = `${c.processes.find((q) => q.profile === i).comm} (pid ${c.profiles[i].pid})`;
	if (p.name !== want) bad(`profile ${i} is named "${p.name}", expected "${want}"`);
	p.samples.forEach((s, k) =>
		console.log(`${s.map((f) => frames[f].name).join(';')} ${p.weights[k] / c.period_ns}`));
});
// kernel frames, and only they, carry the _[k] mark
frames.forEach((f, i) => {
	if (f.name.endsWith('_[k]') !== (c.frames[i].kind === 'kernel'))
		bad(`frame ${i} "${f.name}" is ${c.frames[i].kind}`);
});
// the fixture's leaf: named, in the fixture's own file mapping, hex addresses
const leaf = frames.findIndex((f) => f.name === 'cp_fix_leaf');
const locs = c.locations.filter((l) => l.frame === leaf);
if (leaf < 0 || !locs.length) bad('no location of cp_fix_leaf');
for (const l of locs) {
	const m = c.mappings[l.mapping];
	if (!l.named || !m || !m.path.endsWith('/fix_tree') || m.kind !== 'file')
		bad(`cp_fix_leaf at ${l.address} is not named in fix_tree: ${JSON.stringify(m)}`);
	if (BigInt(l.address) < BigInt(m.start) || BigInt(l.address) >= BigInt(m.limit))
		bad(`cp_fix_leaf at ${l.address} is outside its mapping ${m.start}-${m.limit}`);
}
console.error(`exporter ${d.exporter} event ${c.event} frequency ${c.frequency_hz} ` +
	`period ${c.period_ns} samples ${c.samples} duration ${c.duration_ns} ` +
	`start ${c.start_time} command ${c.command_line}`);
JS
meta=$(cat "$TMP/node.err")
note "$meta"
case $meta in
"exporter cpuprof@"*" event cpu-clock frequency 499 period 2004008 samples "*) ;;
*) fail "unexpected recording facts: $meta" ;;
esac
case $meta in
*" command cpuprof record "*fix_tree*) ;;
*) fail "the command line is missing: $meta" ;;
esac

heavy=$(count "$TMP/speedscope.txt" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_heavy;cp_fix_leaf( |;)')
light=$(count "$TMP/speedscope.txt" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_light;cp_fix_leaf( |;)')
fixture=$(count "$TMP/speedscope.txt" '^fix_tree;')
all=$(total "$TMP/speedscope.txt")
note "JSON: samples $all, fix_tree $fixture, heavy $heavy, light $light"
# the fixture reports the CPU time it got; at 499 Hz that many samples, give or take
cpu=$(sed -n 's/^fix_tree: cpu \([0-9.]*\) s$/\1/p' "$TMP/err")
[ -n "$cpu" ] || fail "fix_tree did not report its CPU time: $(cat "$TMP/err")"
want=$(awk -v c="$cpu" 'BEGIN { printf "%d", c * 499 }')
note "fix_tree used $cpu s of CPU: about $want samples expected"
[ $((100 * fixture)) -ge $((85 * want)) ] || fail "only $fixture fix_tree samples, expected about $want"
[ $((100 * fixture)) -le $((110 * want + 1000)) ] || fail "$fixture fix_tree samples, expected about $want"
[ $((100 * (heavy + light))) -ge $((95 * fixture)) ] ||
	fail "only $((heavy + light)) of $fixture samples have main;cp_fix_run;cp_fix_*;cp_fix_leaf"
grep -qE 'cp_fix_leaf;cp_fix_(heavy|light)|cp_fix_heavy;cp_fix_run' "$TMP/speedscope.txt" &&
	fail "callee before caller in the JSON: $(grep -E 'cp_fix_leaf;cp_fix_' "$TMP/speedscope.txt" | head -1)"
# the totals and the fixture's stacks agree with the folded output
[ "$all" -eq "$(total "$folded")" ] || fail "JSON has $all samples, folded $(total "$folded")"
[ "$heavy" -eq "$(count "$folded" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_heavy;cp_fix_leaf( |;)')" ] ||
	fail "the heavy branch differs between JSON and folded output"
[ "$light" -eq "$(count "$folded" '^fix_tree;([^;]*;)*main;cp_fix_run;cp_fix_light;cp_fix_leaf( |;)')" ] ||
	fail "the light branch differs between JSON and folded output"
exit 0
