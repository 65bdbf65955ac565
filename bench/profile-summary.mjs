#!/usr/bin/env node
// Reads V8 CPU profiles (`.cpuprofile`, as `npm run bench -- --profile` writes them for every n8n process) and
// prints where the time went: the functions with the most self time, and the time spent under a few frames the
// bench cares about (n8n's expression engine, credential authentication, n8n's request helper, our package).
//
//   node bench/profile-summary.mjs <profile files or folders> [--requests N] [--top 15]
//
// With --requests, every figure is also given per request. `summarizeProfiles` is what run.mjs calls.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

/** Frames whose time (with everything they call) is reported; a sample counts once per bucket. */
export const BUCKETS = [
	{ name: "n8n's expression engine (resolving expressions)", test: (frame) => /resolveSimpleParameterValue|getSimpleParameterValue|evaluateExpression|isolated-vm|expression-runtime|tournament/i.test(`${frame.functionName} ${frame.url}`) },
	{ name: 'credential authentication (CredentialsHelper.authenticate)', test: (frame) => frame.functionName === 'authenticate' && /credentials-helper|credentials\.helper/i.test(frame.url) },
	{ name: "n8n's request helper (httpRequestWithAuthentication)", test: (frame) => /httpRequestWithAuthentication/.test(frame.functionName) },
	{ name: 'node parameters (getNodeParameter)', test: (frame) => frame.functionName === 'getNodeParameter' },
	// The installed package (the runtime's own cache path also holds the name, so match the package folder).
	{ name: 'our package (n8n-nodes-ollang)', test: (frame) => frame.url.includes('/node_modules/n8n-nodes-ollang/') },
	{ name: 'garbage collection', test: (frame) => frame.functionName === '(garbage collector)' },
];

function profileFiles(inputs) {
	return inputs.flatMap((input) =>
		statSync(input).isDirectory()
			? readdirSync(input, { recursive: true }).filter((name) => String(name).endsWith('.cpuprofile')).map((name) => path.join(input, String(name)))
			: [input],
	);
}

/**
 * Self time per function and inclusive time per bucket, in ms, over every given profile; with `window` ({ from, to }
 * in the profile's monotonic microseconds), only the samples taken in it.
 */
export function summarizeProfiles(inputs, window) {
	const self = new Map();
	const buckets = new Map(BUCKETS.map((bucket) => [bucket.name, 0]));
	let totalMs = 0;
	let idleMs = 0;
	for (const file of profileFiles(inputs)) {
		const profile = JSON.parse(readFileSync(file, 'utf8'));
		const byId = new Map(profile.nodes.map((node) => [node.id, node]));
		const parentOf = new Map();
		for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
		// The buckets each node falls under (itself or an ancestor), computed once per node.
		const bucketsOf = new Map();
		const bucketsFor = (id) => {
			if (bucketsOf.has(id)) return bucketsOf.get(id);
			const node = byId.get(id);
			const parent = parentOf.get(id);
			const found = new Set(parent === undefined ? [] : bucketsFor(parent));
			for (const bucket of BUCKETS) if (bucket.test(node.callFrame)) found.add(bucket.name);
			bucketsOf.set(id, found);
			return found;
		};
		let at = profile.startTime;
		profile.samples.forEach((id, index) => {
			at += profile.timeDeltas[index] ?? 0;
			if (window && (at < window.from || at > window.to)) return;
			const ms = (profile.timeDeltas[index] ?? 0) / 1000;
			const frame = byId.get(id).callFrame;
			if (frame.functionName === '(idle)' || frame.functionName === '(program)') {
				if (frame.functionName === '(idle)') idleMs += ms;
				return;
			}
			totalMs += ms;
			const key = `${frame.functionName || '(anonymous)'} ${frame.url ? `${path.basename(frame.url)}:${frame.lineNumber + 1}` : ''}`.trim();
			self.set(key, (self.get(key) ?? 0) + ms);
			for (const name of bucketsFor(id)) buckets.set(name, buckets.get(name) + ms);
		});
	}
	const top = [...self.entries()].sort((a, b) => b[1] - a[1]);
	return { totalMs, idleMs, buckets: Object.fromEntries(buckets), top };
}

function main() {
	const { values, positionals } = parseArgs({ allowPositionals: true, options: { requests: { type: 'string' }, top: { type: 'string', default: '15' } } });
	if (positionals.length === 0) throw new Error('usage: node bench/profile-summary.mjs <profile files or folders> [--requests N] [--top 15]');
	const requests = values.requests ? Number(values.requests) : undefined;
	const summary = summarizeProfiles(positionals);
	const show = (ms) => `${ms.toFixed(1)} ms${requests ? ` (${(ms / requests).toFixed(3)} ms per request)` : ''}`;
	console.log(`busy: ${show(summary.totalMs)}, idle ${summary.idleMs.toFixed(0)} ms`);
	for (const [name, ms] of Object.entries(summary.buckets)) console.log(`  under ${name}: ${show(ms)}`);
	console.log('self time:');
	for (const [name, ms] of summary.top.slice(0, Number(values.top))) console.log(`  ${show(ms)}  ${name}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
