#!/usr/bin/env node
// SPDX-License-Identifier: GPL-2.0
//
// Validate cpuprof JSON profiles against
//   1. speedscope's own file-format-schema.json, from the speedscope npm package,
//   2. docs/cpuprof-json.schema.json,
//   3. the rules a schema cannot express: speedscope's importer rejects a file whose samples and
//      weights differ in length, whose frame index is out of range or whose weight is negative;
//      the cpuprof object's arrays must line up with the speedscope ones and the counts add up.
// The packages come from build/node (scripts/install-node-deps.sh), or $CPUPROF_NODE_DIR.
//
//   validate-json.js FILE...          check each file; exit 1 if any is invalid
//   validate-json.js --folded FILE    check it, then print its stacks as folded output
//                                     ("comm;root;...;leaf COUNT", kernel frames "_[k]",
//                                     inlined ones "_[i]", sorted, merged), which must
//                                     equal cpuprof's folded output of the same recording
'use strict';

const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const nodeDir = path.resolve(process.env.CPUPROF_NODE_DIR || path.join(root, 'build', 'node'));
const modules = path.join(nodeDir, 'node_modules');
const SPEEDSCOPE_URL = 'https://www.speedscope.app/file-format-schema.json';

function die(msg) {
	process.stderr.write(`validate-json: ${msg}\n`);
	process.exit(2);
}

function load(name) {
	try {
		return require(path.join(modules, name));
	} catch (e) {
		die(`cannot load ${name} from ${modules} (run scripts/install-node-deps.sh): ${e.message}`);
	}
}

// The schema's place moved between speedscope releases (dist/, dist/release/): look for it.
function findSpeedscopeSchema() {
	const top = path.join(modules, 'speedscope');
	const stack = [top];
	while (stack.length) {
		const dir = stack.pop();
		let entries;
		try {
			entries = fs.readdirSync(dir, { withFileTypes: true });
		} catch (e) {
			continue;
		}
		for (const e of entries) {
			const p = path.join(dir, e.name);
			if (e.isDirectory() && e.name !== 'node_modules') stack.push(p);
			else if (e.name === 'file-format-schema.json') return p;
		}
	}
	die(`no file-format-schema.json under ${top} (run scripts/install-node-deps.sh)`);
}

const Ajv = load('ajv');
const ajvVersion = require(path.join(modules, 'ajv', 'package.json')).version;
const ssVersion = require(path.join(modules, 'speedscope', 'package.json')).version;
const ssSchemaPath = findSpeedscopeSchema();
const ownSchemaPath = path.join(root, 'docs', 'cpuprof-json.schema.json');
// strict: a schema with an unknown keyword or an ambiguous type fails to compile
const ajv = new (Ajv.default || Ajv)({ allErrors: true, strict: true });
const checkSpeedscope = ajv.compile(JSON.parse(fs.readFileSync(ssSchemaPath, 'utf8')));
const checkOwn = ajv.compile(JSON.parse(fs.readFileSync(ownSchemaPath, 'utf8')));

function schemaErrors(check) {
	return check.errors
		.slice(0, 10)
		.map((e) => `${e.instancePath || '/'} ${e.message}` +
			(e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''));
}

// What speedscope's importer and the cpuprof layout require beyond the schemas.
function ruleErrors(doc) {
	const errs = [];
	const err = (m) => errs.length < 20 && errs.push(m);
	const frames = doc.shared.frames;
	const c = doc.cpuprof;
	const period = c.period_ns;
	let total = 0;

	if (doc.$schema !== SPEEDSCOPE_URL) err(`$schema is not ${SPEEDSCOPE_URL}`);
	if (doc.profiles.length && doc.activeProfileIndex >= doc.profiles.length)
		err('activeProfileIndex out of range');
	if (c.frames.length !== frames.length)
		err(`cpuprof.frames has ${c.frames.length} entries, shared.frames ${frames.length}`);
	if (c.profiles.length !== doc.profiles.length)
		err(`cpuprof.profiles has ${c.profiles.length} entries, profiles ${doc.profiles.length}`);
	doc.profiles.forEach((p, i) => {
		const where = `profiles[${i}]`;
		const info = c.profiles[i] || { stacks: [] };
		let sum = 0;

		if (p.samples.length !== p.weights.length)
			err(`${where}: ${p.samples.length} samples but ${p.weights.length} weights`);
		p.weights.forEach((w, k) => {
			if (!(w >= 0)) err(`${where}.weights[${k}] is negative`);
			if (p.unit === 'nanoseconds' && w % period)
				err(`${where}.weights[${k}] = ${w} is not a multiple of period_ns`);
			sum += w;
		});
		if (sum !== p.endValue) err(`${where}: weights add up to ${sum}, endValue is ${p.endValue}`);
		const count = p.unit === 'nanoseconds' ? sum / period : sum;
		if (count !== info.samples)
			err(`${where}: weights stand for ${count} samples, cpuprof says ${info.samples}`);
		total += count;
		if (info.stacks.length !== p.samples.length)
			err(`${where}: ${p.samples.length} samples but ${info.stacks.length} cpuprof stacks`);
		p.samples.forEach((s, k) => {
			const locs = info.stacks[k] || [];
			if (locs.length !== s.length)
				err(`${where}.samples[${k}] and its cpuprof stack differ in length`);
			s.forEach((f, d) => {
				if (!Number.isInteger(f) || f < 0 || f >= frames.length) {
					err(`${where}.samples[${k}][${d}] = ${f} is not a frame index`);
					return;
				}
				const kind = c.frames[f] && c.frames[f].kind;
				const synthetic = c.per_thread ? 2 : 1;
				const want = d === 0 ? 'process' : c.per_thread && d === 1 ? 'thread' : null;
				if (want && kind !== want)
					err(`${where}.samples[${k}][${d}] is a ${kind} frame, expected ${want}`);
				if (!want && (kind === 'process' || kind === 'thread'))
					err(`${where}.samples[${k}][${d}] is a ${kind} frame below the root`);
				const l = locs[d];
				if (d < synthetic) {
					if (l !== -1) err(`${where}: stack ${k} has location ${l} at depth ${d}`);
				} else if (!c.locations[l] || c.locations[l].frame !== f) {
					err(`${where}: stack ${k} depth ${d}: location ${l} is not of frame ${f}`);
				}
			});
		});
	});
	if (total !== c.samples) err(`profiles hold ${total} samples, cpuprof.samples is ${c.samples}`);
	c.locations.forEach((l, i) => {
		if (l.frame >= frames.length) err(`locations[${i}].frame out of range`);
		else if (c.frames[l.frame].inlined !== l.inlined)
			err(`locations[${i}].inlined differs from its frame's`);
		if (l.mapping >= c.mappings.length) err(`locations[${i}].mapping out of range`);
	});
	c.mappings.forEach((m, i) => {
		if (BigInt(m.start) >= BigInt(m.limit)) err(`mappings[${i}]: start not below limit`);
	});
	c.processes.forEach((p, i) => {
		const ids = c.per_thread ? p.threads.map((t) => t.profile) : [p.profile];
		let sum = 0;
		for (const j of ids) {
			const info = c.profiles[j];
			if (!info || info.pid !== p.pid) err(`processes[${i}]: profile ${j} is not its own`);
			else sum += info.samples;
		}
		if (sum !== p.samples) err(`processes[${i}]: ${p.samples} samples, its profiles ${sum}`);
	});
	return errs;
}

// cpuprof's folded frame names (src/output/folded.c folded_frame_name), on the UTF-8 bytes.
function foldedName(name, isComm) {
	let b = Buffer.from(name, 'utf8');
	let out = [];
	let i = 0;
	while (i < b.length && b[i] === 0x20) i++;
	for (; i < b.length && out.length < 1019; i++) {
		let c = b[i];
		if (c === 0x3b) c = 0x3a;
		else if (c < 0x20 || c === 0x7f) c = 0x3f;
		else if (c === 0x20 && isComm) c = 0x5f;
		out.push(c);
	}
	while (out.length && out[out.length - 1] === 0x20) out.pop();
	if (!out.length) return '[empty]';
	let j = out.length;
	while (j && out[j - 1] >= 0x30 && out[j - 1] <= 0x39) j--;
	if (j < out.length && j && out[j - 1] === 0x20) out[j - 1] = 0x5f;
	return Buffer.from(out).toString('utf8');
}

function folded(doc) {
	const c = doc.cpuprof;
	const counts = new Map();
	doc.profiles.forEach((p, i) => {
		const info = c.profiles[i];
		p.samples.forEach((s, k) => {
			const names = s.map((f) => {
				const fr = c.frames[f];
				if (fr.kind === 'process') return foldedName(fr.name, true);
				if (fr.kind === 'thread') return `${foldedName(fr.name, true)}-${info.tid}`;
				const mark = fr.kind === 'kernel' ? '_[k]' : fr.inlined ? '_[i]' : '';
				return foldedName(fr.name, false) + mark;
			});
			const key = names.join(';');
			const n = p.unit === 'nanoseconds' ? p.weights[k] / c.period_ns : p.weights[k];
			counts.set(key, (counts.get(key) || 0) + n);
		});
	});
	const keys = [...counts.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
	return keys.map((k) => `${k} ${counts.get(k)}\n`).join('');
}

function validate(file) {
	let doc;
	try {
		doc = JSON.parse(fs.readFileSync(file, 'utf8'));
	} catch (e) {
		return { errors: [`not JSON: ${e.message}`] };
	}
	if (!checkSpeedscope(doc))
		return { errors: schemaErrors(checkSpeedscope).map((e) => `speedscope schema: ${e}`) };
	if (!checkOwn(doc))
		return { errors: schemaErrors(checkOwn).map((e) => `cpuprof schema: ${e}`) };
	return { doc, errors: ruleErrors(doc) };
}

function main(argv) {
	const foldedMode = argv[0] === '--folded';
	const files = foldedMode ? argv.slice(1) : argv;
	let bad = 0;

	if (!files.length || (foldedMode && files.length !== 1))
		die('usage: validate-json.js FILE... | validate-json.js --folded FILE');
	for (const f of files) {
		const { doc, errors } = validate(f);
		if (errors.length) {
			bad++;
			process.stderr.write(`${f}: INVALID\n${errors.map((e) => `  ${e}\n`).join('')}`);
			continue;
		}
		if (foldedMode) {
			process.stdout.write(folded(doc));
			continue;
		}
		const n = doc.profiles.reduce((a, p) => a + p.samples.length, 0);
		console.log(`${f}: valid (speedscope@${ssVersion} ` +
			`${path.relative(modules, ssSchemaPath)}, ${path.relative(root, ownSchemaPath)}, ` +
			`ajv@${ajvVersion}): ${doc.profiles.length} profiles, ` +
			`${doc.shared.frames.length} frames, ${n} stacks, ${doc.cpuprof.samples} samples`);
	}
	process.exit(bad ? 1 : 0);
}

main(process.argv.slice(2));
