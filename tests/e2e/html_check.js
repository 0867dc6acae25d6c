// SPDX-License-Identifier: GPL-2.0
// Open a cpuprof HTML flame graph in headless chromium (offline) through the DevTools
// protocol (over --remote-debugging-pipe: NUL-terminated JSON on file descriptors 3 and 4, so
// that no WebSocket client is needed), optionally click a frame and type a search, and print what the page shows as one
// JSON line: {loadMs (navigation to ready, seen from here), readyMs (the same, seen by the
// page), errors, requests (any not file:), title, rows, clickedPath, zoomed, matched,
// visible, view, nameColumn, namesCut}.
// Usage: node html_check.js FILE.html [--click LABEL] [--search RE] [--window WxH]
//        [--visible LABEL,LABEL...] [--screenshot FILE.png]
// --visible: for each frame label, whether it is on the first screen (no scrolling) with its
// whole name drawn; --window: the window's size (default 1600x1000).
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

const args = process.argv.slice(2);
const file = path.resolve(args[0]);
const opt = (k) => (args.indexOf(k) >= 0 ? args[args.indexOf(k) + 1] : null);
const [winW, winH] = (opt("--window") || "1600x1000").split("x").map(Number);
const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "cpuprof-chromium-"));
const chrome = spawn(process.env.CHROMIUM || "chromium", [
	"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
	"--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND",
	`--window-size=${winW},${winH}`, "--remote-debugging-pipe", `--user-data-dir=${profileDir}`,
	"about:blank",
], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });

function finish(code, out) {
	globalThis.finishing = true;
	if (out)
		console.log(JSON.stringify(out));
	chrome.once("exit", () => {
		try {
			fs.rmSync(profileDir, { recursive: true, force: true });
		} catch (e) {
			/* a child of chromium may still write there: leave it */
		}
		process.exit(code);
	});
	chrome.kill("SIGKILL");
}
setTimeout(() => {
	console.error("html_check: timed out");
	finish(2);
}, 90000);

let stderr = "";
chrome.stderr.on("data", (d) => (stderr = (stderr + d).slice(-2000)));
chrome.on("exit", (c) => {
	if (!globalThis.finishing) {
		console.error("html_check: chromium exited (" + c + "): " + stderr);
		process.exit(2);
	}
});
run().catch((e) => {
	console.error("html_check: " + e.stack);
	finish(2);
});

async function run() {
	const toChrome = chrome.stdio[3], fromChrome = chrome.stdio[4];
	let id = 0, buf = Buffer.alloc(0);
	const pending = new Map(), listeners = [];
	fromChrome.on("data", (d) => {
		buf = Buffer.concat([buf, d]);
		for (let z; (z = buf.indexOf(0)) >= 0;) {
			const text = buf.subarray(0, z).toString();
			buf = buf.subarray(z + 1);
			onMessage(JSON.parse(text));
		}
	});
	const onMessage = (m) => {
		if (m.id && pending.has(m.id)) {
			const { ok, bad } = pending.get(m.id);
			pending.delete(m.id);
			m.error ? bad(new Error(JSON.stringify(m.error))) : ok(m.result);
		} else if (m.method) {
			for (const l of listeners)
				l(m);
		}
	};
	const send = (method, params = {}, sessionId) => new Promise((ok, bad) => {
		const msg = { id: ++id, method, params };
		if (sessionId)
			msg.sessionId = sessionId;
		pending.set(msg.id, { ok, bad });
		toChrome.write(JSON.stringify(msg) + "\0");
	});
	const errors = [], requests = [];
	let loaded = false;
	listeners.push((m) => {
		if (m.method === "Runtime.exceptionThrown")
			errors.push("exception: " + JSON.stringify(m.params.exceptionDetails.exception?.description || m.params.exceptionDetails.text));
		else if (m.method === "Runtime.consoleAPICalled" && (m.params.type === "error" || m.params.type === "assert"))
			errors.push("console." + m.params.type + ": " + JSON.stringify(m.params.args.map((a) => a.value ?? a.description)));
		else if (m.method === "Log.entryAdded" && m.params.entry.level === "error")
			errors.push("log: " + m.params.entry.text);
		else if (m.method === "Network.requestWillBeSent" && !/^(file|data|about):/.test(m.params.request.url))
			requests.push(m.params.request.url);
		else if (m.method === "Page.loadEventFired")
			loaded = true;
	});
	const { targetId } = await send("Target.createTarget", { url: "about:blank" });
	const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
	const s = (method, params) => send(method, params, sessionId);
	for (const d of ["Runtime.enable", "Log.enable", "Page.enable", "Network.enable"])
		await s(d);
	const evaluate = async (expr) => {
		const r = await s("Runtime.evaluate", { expression: expr, returnByValue: true });
		return r.result.value;
	};
	const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
	/* the page's size, whatever the headless window's frame takes */
	await s("Emulation.setDeviceMetricsOverride", { width: winW, height: winH,
		deviceScaleFactor: 1, mobile: false });
	const t0 = Date.now();
	await s("Page.navigate", { url: "file://" + file });
	while (!loaded || !(await evaluate("!!(window.cpuprof && window.cpuprof.ready)"))) {
		if (Date.now() - t0 > 60000)
			throw new Error("the page did not get ready in 60 s; errors: " + errors.join("; "));
		await sleep(10);
	}
	const out = { loadMs: Date.now() - t0, readyMs: Math.round(await evaluate("window.cpuprof.readyMs")),
		nodes: await evaluate("window.cpuprof.nodes"),
		scriptMs: await evaluate("window.cpuprof.scriptMs") };
	const vis = opt("--visible");
	if (vis) {
		out.visible = {};
		for (const l of vis.split(",")) {
			const c = await evaluate(`window.cpuprof.frameCenter(${JSON.stringify(l)})`);
			out.visible[l] = c && c.x >= 0 && c.x < winW && c.y >= 0 && c.y < winH &&
				c.text === l ? "shown" : c ? `not shown (${Math.round(c.x)},${Math.round(c.y)} "${c.text}")` : "no frame";
		}
		out.view = await evaluate("window.cpuprof.view()");
		out.nameColumn = await evaluate("document.querySelector('#top td.name').clientWidth");
		/* names of the table cut short (an ellipsis), of the rows shown */
		out.namesCut = await evaluate("[...document.querySelectorAll('#top td.name')]" +
			".filter((td) => td.scrollWidth > td.clientWidth).map((td) => td.title)");
	}
	const shot = opt("--screenshot");
	if (shot) {
		const { data } = await s("Page.captureScreenshot", { format: "png" });
		fs.writeFileSync(shot, Buffer.from(data, "base64"));
	}
	const label = opt("--click");
	if (label) {
		const where = `window.cpuprof.frameCenter(${JSON.stringify(label)})`;
		let c = await evaluate(where);
		if (!c)
			throw new Error("no frame " + label);
		/* a deep graph is taller than the window: scroll the frame into view first */
		await evaluate(`window.scrollBy(0, ${c.y} - window.innerHeight / 2)`);
		c = await evaluate(where);
		out.clickedSamples = c.samples;
		out.clickedPath = c.path;
		for (const type of ["mouseMoved", "mousePressed", "mouseReleased"])
			await s("Input.dispatchMouseEvent", { type, x: c.x, y: c.y, button: "left", clickCount: 1 });
		await sleep(50);
		out.zoomed = await evaluate("document.getElementById('zoomed').textContent");
	}
	const re = opt("--search");
	if (re !== null) {
		await evaluate("document.getElementById('search').focus()");
		await s("Input.insertText", { text: re });
		await sleep(50);
		out.matched = await evaluate("document.getElementById('matched').textContent");
	}
	out.title = await evaluate("document.title");
	out.rows = await evaluate("document.querySelectorAll('#top tbody tr').length");
	await sleep(100);
	out.errors = errors;
	out.requests = requests;
	finish(0, out);
}
