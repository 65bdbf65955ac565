#!/usr/bin/env node
// `npm run bench`: the Ollang node beside n8n's HTTP Request node, in the same run, on the same sandbox, in a real
// n8n process; and against the limits the API allows. Prints a table and writes it, with the machine, to
// bench/RESULTS.md. `npm test` runs it as a smoke (`--smoke`: one round, small volumes, every scenario; it checks
// that each side ran and produced its figures, never a timing).
//
// On a fresh clone it installs what it needs as `npm start` does: the dev dependencies, the cached Node 24 + n8n,
// and this package (built, packed and installed into a bench user folder under the cache).
//
//   npm run bench [-- --only consumption,memory --rounds 3 --latency 25]
//
// --only runs some scenarios (consumption, memory, content, xlsx, trigger, perItem, scale, queue, push, download, bursts, writeOnce); --rounds overrides every
// scenario's number of rounds; --latency the sandbox's added latency; --profile writes a V8 CPU profile of every n8n
// process (open it in Chrome DevTools) into the bench work folder, to find where a side spends its time;
// --use-installed skips packing and runs whatever copy of the package the bench user folder holds (to measure a
// locally patched build before proposing it); --bursts 200/none,400/three and --setups main,webhooks give scenario 11
// other bursts and set-ups for a quick look (n8n's defaults and the lazy isolate each, no sustained steps);
// --smoke is what `npm test` runs. With any option the table is printed
// and RESULTS.md is left alone:
// it holds plain `npm run bench` runs only. How each figure is measured is written into the results.
// It prints the load average at its start; above 2 a plain run refuses to start (its figures would go to RESULTS.md)
// unless --force is given, and any other run warns (bench/load.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureDevDependencies } from '../scripts/lib/dev-dependencies.mjs';
import { formatElapsed, log, runCommand } from '../scripts/n8n/process.mjs';
import {
	N8N_VERSION,
	NODE_VERSION,
	REPO_ROOT,
	cacheRoot,
	diedWhileExiting,
	ensureRuntime,
	importCredentials,
	importWorkflows,
	packAndInstall,
	packageSourceHash,
	runN8n,
} from '../scripts/n8n/runtime.mjs';
import { QUEUE_WEBHOOK_PROCESSES, QUEUE_WORKERS } from '../scripts/n8n/queue-mode.mjs';
import { startSandboxProcess } from '../scripts/n8n/sandbox.mjs';
import { summarizeProfiles } from './profile-summary.mjs';
import { loadVerdict } from './load.mjs';
import { inParallel } from './parallel.mjs';
import { runBurstsScenario } from './bursts.mjs';
import { burstsSmokeProblems } from './bursts-report.mjs';
import { runPushScenario } from './push.mjs';
import { pushSmokeProblems } from './push-report.mjs';
import { runQueueScenario } from './queue.mjs';
import { runWriteOnceScenario, writeOnceSmokeProblems } from './write-once.mjs';
import { formatReport } from './report.mjs';
import { NODE, buildWorkflows } from './workflows.mjs';

const LOG_PREFIX = 'bench';
const SEED = 42;
const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'RESULTS.md');
const HOOKS_FILE = path.join(REPO_ROOT, 'bench', 'n8n-hooks.cjs');
const CREDENTIAL_IDS = Object.freeze({ ollang: 'BenchOllangOwner', headerAuth: 'BenchHeaderOwner', ollangScale: 'BenchOllangScale' });

const { values: flags } = parseArgs({
	options: {
		only: { type: 'string' },
		rounds: { type: 'string' },
		latency: { type: 'string', default: '25' },
		profile: { type: 'boolean', default: false },
		'use-installed': { type: 'boolean', default: false },
		smoke: { type: 'boolean', default: false },
		'smoke-summary': { type: 'string' },
		force: { type: 'boolean', default: false },
		bursts: { type: 'string' },
		setups: { type: 'string' },
	},
});
const SMOKE = flags.smoke;
/**
 * Volumes: the full bench's, or the smoke's (every scenario and side, small enough for `npm test`). The smoke's
 * sandbox is the 'small' volume (300 consumption lines, 60 orders) and its export a normal-sized order; its 40
 * per-item reads are more than the raised Read Concurrency (32), so that row runs at its own concurrency too.
 */
const SIZES = SMOKE
	? { sandboxVolume: 'small', perItemCount: 40, unitCount: 200, exportFixture: 'subtitleCompleted', triggerScale: 'smoke', queueExecutions: 10, downloadBytes: 16 * 1024 * 1024 }
	: { sandboxVolume: 'large', perItemCount: 1000, unitCount: 10_000, exportFixture: 'largeExport', triggerScale: 'full', queueExecutions: 100, downloadBytes: 1024 * 1024 * 1024 };
const LATENCY_MS = Number(flags.latency);
const ONLY = flags.only ? new Set(flags.only.split(',').map((name) => name.trim())) : undefined;
const ROUNDS_OVERRIDE = flags.rounds ? Number(flags.rounds) : SMOKE ? 1 : undefined;
const WRITES_RESULTS = process.argv.slice(2).every((arg) => arg === '--force');
/** Scenario 11's bursts for a quick look (`--bursts 200/none,400/three`), each settings entry running them all; `--setups main,webhooks`. */
const BURSTS_OVERRIDE = flags.bursts?.split(',').map((entry) => {
	const [size, retries = 'three'] = entry.trim().split('/');
	if (!(Number(size) > 0) || !['three', 'once', 'none'].includes(retries)) throw new Error(`--bursts: "${entry}" is not <size>/<three|once|none>`);
	return { size: Number(size), retries };
});
const SETUPS_OVERRIDE = flags.setups?.split(',').map((name) => name.trim());
if (SETUPS_OVERRIDE?.some((name) => name !== 'main' && name !== 'webhooks')) throw new Error(`--setups: "${flags.setups}" names a set-up other than main and webhooks`);

// ---------------------------------------------------------------------------------------------------------------
// The node's own constants, imported from its sources (through tsx) so that the limits follow the code. A constant
// that moves or stops being a number fails the bench (and so `npm test`'s smoke) with its name, never a guess.

async function nodeLimits() {
	const { tsImport } = await import('tsx/esm/api');
	const load = async (relativeFile, names) => {
		const module = await tsImport(pathToFileURL(path.join(REPO_ROOT, relativeFile)).href, import.meta.url);
		return names.map((name) => {
			const value = module[name];
			if (!Number.isFinite(value)) throw new Error(`${relativeFile} no longer exports ${name} as a number; the bench reads its limits from there`);
			return value;
		});
	};
	const [pageConcurrency, maxPageSize] = await load('nodes/Ollang/transport/index.ts', ['DEFAULT_PAGE_CONCURRENCY', 'MAX_PAGE_SIZE']);
	const [itemConcurrency, maxItemConcurrency] = await load('nodes/Ollang/actions/common/readConcurrency.ts', ['READ_ITEM_CONCURRENCY', 'MAX_READ_CONCURRENCY']);
	const [memoryUnitsPerRequest] = await load('nodes/Ollang/actions/memory/importItems.operation.ts', ['MAX_UNITS_PER_REQUEST']);
	const [contentDefaultBatch, contentMaxBatch] = await load('nodes/Ollang/actions/content/import.operation.ts', ['DEFAULT_CONTENT_BATCH_SIZE', 'MAX_CONTENT_BATCH_SIZE']);
	return { pageConcurrency, maxPageSize, itemConcurrency, maxItemConcurrency, memoryUnitsPerRequest, contentDefaultBatch, contentMaxBatch };
}

/** The raised Read Concurrency of scenario 6, beside the default (issue 30: the rows at 8 and at 32). */
const RAISED_READ_CONCURRENCY = 32;

/** Scenario 6's read concurrencies: the node's default, and the raised one (which the option must allow). */
function perItemConcurrencies(limits) {
	if (RAISED_READ_CONCURRENCY > limits.maxItemConcurrency) {
		throw new Error(`Read Concurrency allows at most ${limits.maxItemConcurrency}; the bench runs it at ${RAISED_READ_CONCURRENCY}`);
	}
	return [...new Set([limits.itemConcurrency, RAISED_READ_CONCURRENCY])];
}

// ---------------------------------------------------------------------------------------------------------------
// Scenarios. Each side is one workflow; `nodes` are the nodes whose run time is its wall time.

/**
 * n8n's settings scenario 11 measures beside its defaults (REAL-N8N: a community node's webhook acquires an
 * expression isolate before it runs; n8n's own Webhook node skips it): the isolate acquired lazily, and larger pools.
 */
const BURST_SETTINGS = {
	lazyIsolate: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	largerPools: { N8N_EXPRESSION_ENGINE_POOL_SIZE: '2', DB_POSTGRESDB_POOL_SIZE: '6' },
};

/** Every scenario's key, in the order of the results. */
const SCENARIO_KEYS = ['consumption', 'memory', 'content', 'xlsx', 'trigger', 'perItem', 'scale', 'queue', 'push', 'download', 'bursts', 'writeOnce'];

function buildScenarios(limits) {
	const units = SIZES.unitCount.toLocaleString('en-US');
	const queueExecutions = SIZES.queueExecutions;
	return [
		{
			key: 'consumption',
			title: `1. Consumption export: all consumption lines (sandbox volume ${SIZES.sandboxVolume})`,
			rounds: 3,
			sides: [
				// countsPages: its page reads beyond one per page of the listing are counted (extraReads; 0 for this quiet listing).
				{ key: 'ours', workflow: 'consumptionOurs', nodes: [NODE.ollang], countsPages: true, label: `Ollang: Consumption > Get Many, Return All (default ${limits.pageConcurrency} parallel pages)` },
				// The option's maximum, while the default is below it.
				...(limits.pageConcurrency < 10
					? [{ key: 'oursMax', workflow: 'consumptionOursMax', nodes: [NODE.ollang], countsPages: true, label: 'Ollang: same, option Parallel Page Requests = 10 (its maximum)' }]
					: []),
				// The fastest any n8n node could be: n8n's own request helper from a Code node, the same pages at the same
				// concurrency, no node code of ours (the Code node runs in n8n's task runner; a warm-up Code node starts it).
				{ key: 'codePeer', workflow: 'consumptionCodePeer', nodes: [NODE.code], label: `Code node: this.helpers.httpRequest, page 1 then ${limits.pageConcurrency} at a time (its own paging loop)` },
				{ key: 'peer', workflow: 'consumptionPeer', nodes: [NODE.http, NODE.splitPages], label: 'HTTP Request: pagination (page from meta.page + 1, complete when !meta.hasNextPage, take 50, no interval) + Split Out data' },
				// What the sandbox allows any client: plain fetch from the bench driver, no n8n, same pages, same order of work.
				{ key: 'bareParallel', bare: 'pages', concurrency: limits.pageConcurrency, label: `reference, no n8n: plain fetch, page 1 then ${limits.pageConcurrency} at a time` },
				{ key: 'bareSequential', bare: 'pages', concurrency: 1, label: 'reference, no n8n: plain fetch, one page after another' },
			],
		},
		{
			key: 'memory',
			title: `2. Memory import: ${units} translation units as ${units} input items`,
			rounds: 3,
			sides: [
				{ key: 'ours', workflow: 'memoryOurs', nodes: [NODE.ollang], label: 'Ollang: Memory > Import Items (each item one unit)' },
				{ key: 'peer', workflow: 'memoryPeer', nodes: [NODE.http], label: 'HTTP Request: one POST per item (its default: all items sent at once)' },
				{ key: 'peerBatched', workflow: 'memoryPeerBatched', nodes: [NODE.loop, NODE.aggregate, NODE.http], label: 'HTTP Request, batched without code: Loop Over Items (1000) > Aggregate > HTTP Request' },
				{ key: 'oursFromField', workflow: 'memoryOursFromField', nodes: [NODE.ollang], label: 'diagnostic, not this input shape: Ollang Import Items, Units From a Field (one item holding all units)' },
			],
			// The per-item peer takes most of a minute; two of its runs are enough to see where it stands.
			slowSides: { peer: 2 },
		},
		{
			key: 'content',
			title: `3. Content import: ${units} units as input items`,
			rounds: 3,
			sides: [
				{ key: 'ours', workflow: 'contentOurs', nodes: [NODE.ollang], label: `Ollang: Content > Import (default Batch Size ${limits.contentDefaultBatch})` },
				...(limits.contentDefaultBatch < limits.contentMaxBatch
					? [{ key: 'oursMax', workflow: 'contentOursMax', nodes: [NODE.ollang], label: `Ollang: Content > Import, Batch Size ${limits.contentMaxBatch} (its maximum)` }]
					: []),
				{ key: 'peer', workflow: 'contentPeer', nodes: [NODE.http], label: 'HTTP Request: one POST per item (all items sent at once)' },
			],
			slowSides: { peer: 2, oursMax: 2 },
		},
		{
			key: 'xlsx',
			title: `4. XLSX export of ${SMOKE ? 'an order' : 'an order with 100,000 segments'} into a binary property`,
			// A peak of memory varies with when the garbage collector runs; each run takes seconds, so more rounds.
			rounds: 5,
			sides: [
				{ key: 'oursBaseline', workflow: 'xlsxOursBaseline', nodes: [NODE.ollang], label: 'baseline: Ollang Order > Get of the same order (no export)' },
				{ key: 'ours', workflow: 'xlsxOurs', nodes: [NODE.ollang], label: 'Ollang: Order > Export XLSX' },
				{ key: 'peerBaseline', workflow: 'xlsxPeerBaseline', nodes: [NODE.http], label: 'baseline: HTTP Request GET of the same order (JSON)' },
				{ key: 'peer', workflow: 'xlsxPeer', nodes: [NODE.http], label: 'HTTP Request: GET export-xlsx, Response Format File' },
			],
		},
		{ key: 'trigger', title: '5. Trigger poll cost: Ollang Trigger (Order Delivery Event)', inProcess: true },
		{
			key: 'download',
			title: `10. A ${SMOKE ? '16 MiB' : '1 GiB'} deliverable into n8n's filesystem binary store`,
			rounds: 3,
			// The filesystem store: in n8n's default (memory) mode every downloader holds the whole file.
			env: { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' },
			sides: [
				{ key: 'oursBaseline', workflow: 'downloadOursBaseline', nodes: [NODE.ollang], label: 'baseline: Ollang Order > Get of the same order' },
				{ key: 'ours', workflow: 'downloadOurs', nodes: [NODE.ollang], fileBytes: SIZES.downloadBytes, label: 'Ollang: Order > Download Files (Embedded Video)' },
				{ key: 'peerBaseline', workflow: 'downloadPeerBaseline', nodes: [NODE.http], label: 'baseline: HTTP Request GET of the same order (JSON)' },
				{ key: 'peer', workflow: 'downloadPeer', nodes: [NODE.http, NODE.fetchFile], fileBytes: SIZES.downloadBytes, label: 'HTTP Request: GET the order, then HTTP Request on the signed link, Response Format File' },
			],
		},
		{
			key: 'perItem',
			title: `6. Per-item overhead: Order > Get for ${SIZES.perItemCount.toLocaleString('en-US')} input items`,
			rounds: 3,
			// Ours at each read concurrency (the default, and Read Concurrency raised), and, at the same concurrencies,
			// the limit without n8n: the same reads from the bench driver.
			sides: [
				...perItemConcurrencies(limits).map((concurrency) => ({
					key: `ours${concurrency}`,
					workflow: `perItemOurs${concurrency}`,
					nodes: [NODE.ollang],
					concurrency,
					label: `Ollang: Order > Get, Read Concurrency ${concurrency}${concurrency === limits.itemConcurrency ? ' (the default, option not set)' : ''}`,
				})),
				{ key: 'peer', workflow: 'perItemPeer', nodes: [NODE.http], label: 'HTTP Request: GET /integration/orders/{{ $json.orderId }}' },
				...perItemConcurrencies(limits).map((concurrency) => ({
					key: `bare${concurrency}`,
					bare: 'orders',
					concurrency,
					label: `reference, no n8n: plain fetch of each order, ${concurrency} at a time`,
				})),
			],
		},
		{
			key: 'scale',
			title: '7. Scale: Consumption > Get Many, Return All, as the account grows',
			// Each point its own sandbox (bench/sandbox-volume.cts) with that many consumption lines; one run each.
			points: SMOKE ? [500] : [1000, 10_000, 100_000],
			side: { key: 'ours', workflow: 'scaleConsumption', nodes: [NODE.ollang] },
		},
		{
			key: 'queue',
			title: `8. Queue mode: ${queueExecutions} webhook executions of Order > Get, one main process against ${QUEUE_WORKERS} workers`,
			// bench/queue.mjs: PostgreSQL, Redis, the main and the workers of its own, the bench's sandbox.
			queue: true,
			executions: queueExecutions,
			concurrency: 10,
		},
		{
			key: 'push',
			title: `9. Push or poll: ${SMOKE ? 2 : 12} orders completing, the Ollang Callback Trigger against the polling Ollang Trigger`,
			// bench/push.mjs: its own sandbox and \`n8n start\`; completions spread over real minutes (pauses in seconds).
			standalone: true,
			orders: SMOKE ? 2 : 12,
			gapSeconds: SMOKE ? [2, 4] : [15, 45],
			seed: SEED,
			// The next poll comes within a minute; on a busy machine it and its execution take longer.
			waitAfterLastMs: 150_000,
			alignWindowToPoll: !SMOKE,
		},
		{
			key: 'bursts',
			title: `11. Callbacks in bursts: n8n's Webhook node and the Ollang Callback Trigger answering ${SMOKE ? 'small bursts' : '50 to 400 callbacks at once'}, one main against ${QUEUE_WEBHOOK_PROCESSES} webhook processes`,
			// bench/bursts.mjs: its own n8n per set-up, a sandbox per side. The smoke runs one main only (the webhook
			// processes run in npm test's queue-mode suite) and a policy that gives up at once beside the default.
			standalone: true,
			seed: SEED,
			topologies: SETUPS_OVERRIDE ?? (SMOKE ? ['main'] : ['main', 'webhooks']),
			bursts: BURSTS_OVERRIDE ?? (SMOKE
				? [{ size: 4, retries: 'three' }, { size: 8, retries: 'none' }]
				: [...[50, 100, 200, 400].map((size) => ({ size, retries: 'three' })), { size: 400, retries: 'once' }, { size: 400, retries: 'none' }]),
			// n8n's own settings for webhooks under load (docs/internals/deployment.md): every burst with n8n's defaults, the largest
			// again with each setting that may help. The smoke starts one n8n only, with a setting (its path runs).
			settings: SMOKE
				? [{ label: 'lazy isolate', env: BURST_SETTINGS.lazyIsolate }]
				: BURSTS_OVERRIDE
					? [{ label: 'n8n defaults', env: {}, sustained: false }, { label: 'lazy isolate', env: BURST_SETTINGS.lazyIsolate, sustained: false }]
					: [
						{ label: 'n8n defaults', env: {} },
						{ label: 'lazy isolate', env: BURST_SETTINGS.lazyIsolate, bursts: [200, 400].map((size) => ({ size, retries: 'none' })), sustained: false },
						{ label: 'lazy isolate, larger pools', env: { ...BURST_SETTINGS.lazyIsolate, ...BURST_SETTINGS.largerPools }, bursts: [200, 400].map((size) => ({ size, retries: 'none' })), sustained: false },
					],
			// The trigger's Sweep Every (Minutes; 0.017 is about 1 s, the node's shortest): each burst waits for the end of the
			// first sweep after its completions (missed = not emitted by then), at most sweepBoundMs after its sends settled.
			sweepMinutes: SMOKE ? 0.017 : 0.5,
			sweepBoundMs: SMOKE ? 60_000 : 5 * 60_000,
			// When the bench first reads the deliveries after a round of sends: the full run leaves the sandbox alone while
			// the attempts have their 10 s; the smoke's small bursts are answered sooner.
			firstLookMs: SMOKE ? 1000 : 10_500,
			sustained: SMOKE ? { topologies: ['main'], rates: [2], seconds: 3 } : { topologies: ['main'], rates: [1, 2, 4], seconds: 60 },
		},
		{
			key: 'writeOnce',
			title: `12. Write-once: what a paid item costs in n8n's store and in time, with nothing and with ${SMOKE ? 50 : 1000} items remembered`,
			// bench/write-once.mjs: in-process (n8n-core's engine, the in-process sandbox), no n8n server.
			standalone: true,
			items: SMOKE ? 2 : 20,
			remembered: SMOKE ? 50 : 1000,
		},
	];
}

// ---------------------------------------------------------------------------------------------------------------
// The sandbox, in its own process as the real service would be.

async function startBenchSandbox() {
	// Latency 0 while the bench sets up (reading fixtures, listing orders); set for the measured runs.
	const sandbox = await startSandboxProcess(['--volume', SIZES.sandboxVolume, '--seed', String(SEED), '--latency', '0', '--port', '0']);
	return { baseUrl: sandbox.info.baseUrl, keys: sandbox.info.keys, stop: sandbox.stop };
}

async function sandboxCall(sandbox, method, route, { body, key } = {}) {
	const headers = {};
	if (body !== undefined) headers['content-type'] = 'application/json';
	if (key) headers['x-api-key'] = key;
	const response = await fetch(new URL(route, sandbox.baseUrl), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} ${route}: HTTP ${response.status} ${text.slice(0, 300)}`);
	return text ? JSON.parse(text) : undefined;
}

/** The large deliverable of the download scenario: a video document of the size asked, added to a subtitle order. */
async function largeDeliverable(sandbox, info) {
	const orderId = info.fixtures.orders.byType.subtitle;
	const doc = await sandboxCall(sandbox, 'POST', '/__sandbox/files/large', { body: { orderId, bytes: SIZES.downloadBytes } });
	return { orderId, fileName: doc.name };
}

/** Every order id the owner can list, in the listing's order. */
async function listOrderIds(sandbox, count) {
	const ids = [];
	for (let page = 1; ids.length < count; page++) {
		const answer = await sandboxCall(sandbox, 'GET', `/integration/orders?pageOptions[page]=${page}&pageOptions[take]=50`, { key: sandbox.keys.owner });
		ids.push(...answer.data.map((row) => row.id));
		if (!answer.meta.hasNextPage) break;
	}
	if (ids.length < count) throw new Error(`the sandbox lists ${ids.length} orders, the bench needs ${count}`);
	return ids.slice(0, count);
}

/**
 * Requests in the sandbox's log since the last reset: the total, per route and method, how many failed, and the
 * most that were open at once (the sandbox counts them: a side's concurrency).
 */
function summarizeRequests(logAnswer) {
	const byRoute = {};
	let failed = 0;
	for (const record of logAnswer.requests) {
		const key = `${record.method} ${record.route ?? record.path}`;
		byRoute[key] = (byRoute[key] ?? 0) + 1;
		if (record.status === null || record.status >= 400) failed++;
	}
	return { total: logAnswer.count, byRoute, failed, maxInFlight: logAnswer.maxInFlight };
}

// ---------------------------------------------------------------------------------------------------------------
// Running one side: `n8n execute` of its workflow, with the bench's hooks reporting from inside the process.

/** From the hooks' run summary: first start to last end over the given nodes (all their runs), in ms. */
function nodesSpan(report, nodeNames) {
	let first = Infinity;
	let last = -Infinity;
	for (const name of nodeNames) {
		const runs = report.nodes[name];
		if (!runs) throw new Error(`node "${name}" did not run`);
		for (const run of runs) {
			first = Math.min(first, run.startTime);
			last = Math.max(last, run.startTime + run.executionTime);
		}
	}
	return last - first;
}

async function executeSide(context, side, round, env = {}) {
	const { sandbox, userFolder, workDir, workflows } = context;
	const workflow = workflows[side.workflow];
	await sandboxCall(sandbox, 'DELETE', '/__sandbox/requests');
	const reportFile = path.join(workDir, `${workflow.id}-round${round}.json`);
	const profileDir = path.join(workDir, 'profiles', `${workflow.id}-round${round}`);
	rmSync(profileDir, { recursive: true, force: true });
	rmSync(reportFile, { force: true });
	const started = Date.now();
	let failure;
	try {
		await runN8n(userFolder, ['execute', `--id=${workflow.id}`, '--rawOutput'], {
			label: `n8n execute ${workflow.name}`,
			env: {
				EXTERNAL_HOOK_FILES: HOOKS_FILE,
				OLLANG_BENCH_REPORT_FILE: reportFile,
				// The run data of 10,000 items would be written to the database after every run; nothing reads it.
				EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none',
				N8N_LOG_LEVEL: 'warn',
				...env,
				...(flags.profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
			},
		});
	} catch (error) {
		failure = error;
	}
	const processMs = Date.now() - started;
	const requests = summarizeRequests(await sandboxCall(sandbox, 'GET', '/__sandbox/requests'));
	const report = existsSync(reportFile) ? JSON.parse(readFileSync(reportFile, 'utf8')) : undefined;
	// A run the hook reported as a success stands when n8n then died while exiting; the crash is counted in the results.
	const crashedAtExit = diedWhileExiting(failure) && report?.status === 'success' && !report.error;
	if (crashedAtExit) {
		log(LOG_PREFIX, `  ${side.key}: n8n crashed (SIGSEGV) while exiting, after the run succeeded; its figures are kept`);
		failure = undefined;
	}
	const problem = failure
		? `n8n execute failed: ${report?.error?.message ?? failure.message.slice(-1500)}`
		: !report
			? 'the bench hooks wrote no report (EXTERNAL_HOOK_FILES not loaded?)'
			: report.status !== 'success' || report.error
				? `the workflow ended ${report.status}: ${report.error?.message ?? ''}`
				: undefined;
	if (problem) {
		log(LOG_PREFIX, `  ${side.key}: FAILED: ${problem}`);
		return { ok: false, problem, processMs, requests };
	}
	const ms = nodesSpan(report, side.nodes);
	const measuredNode = report.nodes[side.nodes[side.nodes.length - 1]];
	const itemsOut = measuredNode.reduce((sum, run) => sum + run.itemsOut, 0);
	const memory = report.memory;
	const cpuMicros = (usage) => usage.user + usage.system;
	const result = {
		ok: true,
		ms,
		processMs,
		crashedAtExit,
		// CPU time of the n8n process over the whole execution (every node, n8n's own work; not the task runner's).
		cpuMs: (cpuMicros(memory.atEnd.cpu) - cpuMicros(memory.atStart.cpu)) / 1000,
		requests,
		itemsOut,
		firstItem: measuredNode[0].firstItem,
		binary: measuredNode[0].binary,
		memory: {
			peakReset: memory.atStart.peakReset,
			rssAtStartKiB: memory.atStart.rss,
			peakKiB: memory.atEnd.hwm,
			growthKiB: memory.atEnd.hwm - memory.atStart.rss,
		},
	};
	// Page reads beyond one per page (re-reads of pages that shifted while read): the listing is quiet here, so 0.
	if (side.countsPages && context.consumptionMeta) result.extraReads = requests.total - context.consumptionMeta.pageCount;
	if (flags.profile) {
		// Samples of the n8n process (and, for a Code node, its task runner's) while the workflow ran.
		const profile = summarizeProfiles([profileDir], { from: memory.atStart.monotonicMicros, to: memory.atEnd.monotonicMicros });
		result.profile = { busyMs: profile.totalMs, buckets: profile.buckets, top: profile.top.slice(0, 25) };
		const perRequest = (value) => `${(value / requests.total).toFixed(3)} ms`;
		log(LOG_PREFIX, `  ${side.key} profile (${profileDir}): busy ${perRequest(profile.totalMs)} per request; ${Object.entries(profile.buckets).map(([name, value]) => `${name} ${perRequest(value)}`).join('; ')}`);
	}
	log(
		LOG_PREFIX,
		`  ${side.key}: ${Math.round(ms)} ms, ${requests.total} requests${requests.failed ? ` (${requests.failed} failed)` : ''} (at most ${requests.maxInFlight} at once)${result.extraReads === undefined ? '' : ` (${result.extraReads} extra reads)`}, ${itemsOut} items out, n8n CPU ${Math.round(result.cpuMs)} ms, peak +${Math.round(result.memory.growthKiB / 1024)} MiB (n8n process ${formatElapsed(processMs)})`,
	);
	return result;
}

/**
 * A side without n8n: plain fetch from this process against the same sandbox. 'pages': the consumption export,
 * page 1 and then the rest `concurrency` at a time, as our transport does. 'orders': Order > Get of every input
 * order, `concurrency` at a time, as our router does. It shows what the sandbox itself allows (its per-request work
 * and latency).
 */
async function bareClient(context, side) {
	const { sandbox, orderIds } = context;
	await sandboxCall(sandbox, 'DELETE', '/__sandbox/requests');
	const get = (route) => sandboxCall(sandbox, 'GET', route, { key: sandbox.keys.owner });
	const started = performance.now();
	let itemsOut = 0;
	if (side.bare === 'pages') {
		const fetchPage = (page) => get(`/integration/consumption?pageOptions[page]=${page}&pageOptions[take]=50`);
		const first = await fetchPage(1);
		itemsOut = first.data.length;
		await inParallel(first.meta.pageCount - 1, side.concurrency, async (index) => {
			const answer = await fetchPage(index + 2);
			itemsOut += answer.data.length;
		});
	} else {
		await inParallel(orderIds.length, side.concurrency, async (index) => {
			const order = await get(`/integration/orders/${encodeURIComponent(orderIds[index])}`);
			if (order?.id === undefined) throw new Error(`GET /integration/orders/${orderIds[index]} answered without an id`);
			itemsOut++;
		});
	}
	const ms = performance.now() - started;
	const requests = summarizeRequests(await sandboxCall(sandbox, 'GET', '/__sandbox/requests'));
	log(LOG_PREFIX, `  ${side.key}: ${Math.round(ms)} ms, ${requests.total} requests (at most ${requests.maxInFlight} at once), ${itemsOut} items`);
	return { ok: true, ms, requests, itemsOut, memory: null };
}

/**
 * Runs every side of a scenario `rounds` times. Within a round the sides run one after another, and the order
 * rotates from round to round, so that load from elsewhere on the machine and the sandbox's growing state fall on
 * every side alike. `slowSides` runs a side in the first rounds only.
 */
async function runScenario(context, scenario) {
	const rounds = ROUNDS_OVERRIDE ?? scenario.rounds;
	const runs = Object.fromEntries(scenario.sides.map((side) => [side.key, []]));
	for (let round = 0; round < rounds; round++) {
		const order = scenario.sides
			.map((_, index) => scenario.sides[(index + round) % scenario.sides.length])
			.filter((side) => round < (scenario.slowSides?.[side.key] ?? Infinity));
		log(LOG_PREFIX, `${scenario.title}: round ${round + 1} of ${rounds} (${order.map((side) => side.key).join(', ')})`);
		for (const side of order) {
			runs[side.key].push(side.bare ? await bareClient(context, side) : await executeSide(context, side, round, scenario.env));
		}
	}
	return { key: scenario.key, title: scenario.title, rounds, sides: scenario.sides.map((side) => ({ ...side, runs: runs[side.key] })) };
}

/**
 * The scale curve: for each point a sandbox with that many consumption lines, the scale credential pointed at it,
 * and one run of the consumption export, with its time and n8n's peak memory growth.
 */
async function runScaleScenario(context, scenario) {
	const points = [];
	for (const lines of scenario.points) {
		log(LOG_PREFIX, `${scenario.title}: ${lines.toLocaleString('en-US')} lines (its own sandbox)`);
		const sandbox = await startSandboxProcess(['--consumption-lines', String(lines)], { script: 'bench/sandbox-volume.cts' });
		try {
			const pointSandbox = { baseUrl: sandbox.info.baseUrl, keys: sandbox.info.keys };
			await importCredentials(context.userFolder, [
				{ id: CREDENTIAL_IDS.ollangScale, name: 'Bench: Ollang scale sandbox (owner key)', type: 'ollangApi', data: { apiKey: pointSandbox.keys.owner, baseUrl: pointSandbox.baseUrl } },
			]);
			await sandboxCall(pointSandbox, 'PUT', '/__sandbox/latency', { body: { ms: LATENCY_MS } });
			const run = await executeSide({ ...context, sandbox: pointSandbox }, scenario.side, `-${lines}`);
			points.push({
				lines,
				ok: run.ok,
				problem: run.problem,
				ms: run.ms,
				requests: run.requests?.total,
				itemsOut: run.itemsOut,
				peakKiB: run.memory?.growthKiB,
				peakReset: run.memory?.peakReset,
			});
		} finally {
			await sandbox.stop();
		}
	}
	return { key: scenario.key, title: scenario.title, points };
}

async function runTriggerScenario(runtime, scenario) {
	log(LOG_PREFIX, `${scenario.title}: in-process (n8n-core PollContext), its own sandbox`);
	// Node 24 as n8n runs it; tsx's CommonJS hook only, as the harness is CommonJS (.cts).
	const { stdout } = await runCommand(runtime.nodeBin, ['--require', 'tsx/cjs', 'bench/trigger-poll.cts', '--latency', String(LATENCY_MS), '--scale', SIZES.triggerScale], {
		cwd: REPO_ROOT,
		env: runtime.env,
		label: 'trigger poll bench (bench/trigger-poll.cts)',
	});
	const line = stdout.split('\n').find((entry) => entry.startsWith('TRIGGER_BENCH '));
	if (!line) throw new Error(`bench/trigger-poll.cts printed no TRIGGER_BENCH line:\n${stdout.slice(-2000)}`);
	return { key: scenario.key, title: scenario.title, inProcess: true, ...JSON.parse(line.slice('TRIGGER_BENCH '.length)) };
}

// ---------------------------------------------------------------------------------------------------------------
// The machine and the versions, written with the figures.

function readOr(command, args, fallback) {
	try {
		return execFileSync(command, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
	} catch {
		return fallback;
	}
}

function describeMachine(runtime) {
	const cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown';
	const memTotalKiB = Number(/^MemTotal:\s+(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0);
	const packageJson = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
	const installedVersion = (name) => {
		try {
			return JSON.parse(readFileSync(path.join(runtime.paths.n8nPrefix, 'node_modules', name, 'package.json'), 'utf8')).version;
		} catch {
			return 'unknown';
		}
	};
	const devVersion = (name) => {
		try {
			return JSON.parse(readFileSync(path.join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
		} catch {
			return 'unknown';
		}
	};
	const commit = readOr('git', ['rev-parse', '--short=12', 'HEAD'], 'unknown');
	const dirty = readOr('git', ['status', '--porcelain', '--', 'nodes', 'credentials', 'package.json'], '') !== '';
	return {
		nproc: Number(readOr('nproc', [], String(os.availableParallelism()))),
		memoryGiB: memTotalKiB / 1024 / 1024,
		cpuModel,
		kernel: `${os.type()} ${os.release()}`,
		n8nVersion: N8N_VERSION,
		n8nNodesBaseVersion: installedVersion('n8n-nodes-base'),
		n8nNodeVersion: NODE_VERSION,
		driverNodeVersion: process.versions.node,
		harnessN8nCoreVersion: devVersion('n8n-core'),
		packageName: packageJson.name,
		packageVersion: packageJson.version,
		sourceHash: packageSourceHash().slice(0, 16),
		commit,
		packageSourcesDirty: dirty,
		loadAverageAtStart: os.loadavg().map((value) => value.toFixed(2)).join(' '),
	};
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * What the smoke checks: every selected scenario is in the results, and each of its sides ran every round and
 * produced its figures (a time, requests without failures, the items it should give: `expectItems`, per scenario).
 * Never a timing.
 */
function smokeProblems(selected, results, expectItems) {
	const problems = [];
	let checks = 0;
	const check = (ok, problem) => {
		checks++;
		if (!ok) problems.push(problem);
	};
	for (const scenario of selected) {
		const result = results.find((entry) => entry.key === scenario.key);
		check(result !== undefined, `${scenario.key}: no result`);
		if (!result) continue;
		if (result.inProcess) {
			for (const account of result.accounts) {
				check(account.watchedOrders > 0, `${scenario.key}, ${account.account}: no order watched`);
				for (const figures of account.medians) {
					const where = `${scenario.key}, ${account.account}, ${figures.changed} changed`;
					check(Number.isFinite(figures.ms) && figures.requests > 0, `${where}: no time or no requests`);
					check(figures.itemsEmitted >= figures.changed, `${where}: ${figures.itemsEmitted} events emitted for ${figures.changed} changed orders`);
				}
				if (account.staticDataBytes !== undefined) check(account.staticDataBytes > 0, `${scenario.key}, ${account.account}: no static data size`);
			}
			continue;
		}
		if (scenario.key === 'queue') {
			for (const mode of result.modes) {
				const where = `queue, ${mode.mode} mode`;
				check(mode.recorded === mode.executions && mode.finished === mode.executions, `${where}: ${mode.finished} of ${mode.executions} executions finished (${mode.recorded} recorded)`);
				check(mode.failures === 0 && mode.failedRequests === 0, `${where}: ${mode.failures} failures (${mode.firstProblem}), ${mode.failedRequests} failed API requests`);
				check(mode.requests >= mode.executions, `${where}: ${mode.requests} API requests for ${mode.executions} executions`);
				check(Number.isFinite(mode.perSecond) && mode.perSecond > 0 && Number.isFinite(mode.wallMs), `${where}: no executions per second`);
				// Queue mode: every execution ran on a worker, none on the main.
				if (mode.perWorker) check(mode.onNoWorker === 0 && mode.mainRanExecutions === 0 && mode.perWorker.length === QUEUE_WORKERS, `${where}: ${mode.onNoWorker} executions logged by no worker, ${mode.mainRanExecutions} by the main`);
			}
			continue;
		}
		if (scenario.key === 'push' || scenario.key === 'bursts' || scenario.key === 'writeOnce') {
			const own = { push: pushSmokeProblems, bursts: burstsSmokeProblems, writeOnce: writeOnceSmokeProblems }[scenario.key](result);
			checks += own.checks;
			problems.push(...own.problems);
			continue;
		}
		if (scenario.key === 'scale') {
			for (const point of result.points) {
				check(point.ok && Number.isFinite(point.ms) && point.itemsOut === point.lines, `scale, ${point.lines} lines: ${point.problem ?? `${point.itemsOut} items out`}`);
				check(Number.isFinite(point.peakKiB), `scale, ${point.lines} lines: no peak memory`);
			}
			continue;
		}
		for (const side of result.sides) {
			const where = `${scenario.key}/${side.key}`;
			check(side.runs.length === result.rounds || scenario.slowSides?.[side.key] !== undefined, `${where}: ${side.runs.length} of ${result.rounds} rounds ran`);
			for (const run of side.runs) {
				check(run.ok, `${where}: ${run.problem}`);
				if (!run.ok) continue;
				check(Number.isFinite(run.ms) && run.ms > 0, `${where}: no wall time`);
				check(run.requests.total > 0 && run.requests.failed === 0, `${where}: ${run.requests.total} requests, ${run.requests.failed} failed`);
				check(run.itemsOut > 0, `${where}: no items out`);
				if (run.extraReads !== undefined) check(run.extraReads === 0, `${where}: ${run.extraReads} extra page reads of a quiet listing`);
				// A side that runs at a set concurrency never has more requests open (Read Concurrency honoured).
				if (side.concurrency !== undefined) {
					check(run.requests.maxInFlight >= 1 && run.requests.maxInFlight <= side.concurrency, `${where}: ${run.requests.maxInFlight} requests open at once, more than its ${side.concurrency}`);
				}
				if (run.memory) check(Number.isFinite(run.memory.growthKiB) && Number.isFinite(run.cpuMs), `${where}: no memory or CPU figure`);
				// A side that downloads a file stored all of it.
				if (side.fileBytes !== undefined) check(Object.values(run.binary ?? {})[0]?.bytes === side.fileBytes, `${where}: stored ${Object.values(run.binary ?? {})[0]?.bytes} bytes of ${side.fileBytes}`);
			}
		}
	}
	// Sides that must give exactly one item per line or per input item.
	for (const [key, count] of Object.entries(expectItems)) {
		for (const side of results.find((entry) => entry.key === key)?.sides ?? []) {
			for (const run of side.runs.filter((entry) => entry.ok)) check(run.itemsOut === count, `${key}/${side.key}: ${run.itemsOut} items out, ${count} expected`);
		}
	}
	return { checks, problems };
}

async function main() {
	const started = Date.now();
	const load = loadVerdict(os.loadavg()[0], { writesResults: WRITES_RESULTS, force: flags.force });
	log(LOG_PREFIX, load.message);
	if (load.action === 'refuse') {
		process.exitCode = 2;
		return;
	}
	ensureDevDependencies();
	const runtime = await ensureRuntime();
	const limits = await nodeLimits();
	const scenarios = buildScenarios(limits);
	const benchDir = path.join(cacheRoot(), 'bench');
	const userFolder = path.join(benchDir, 'n8n-user');
	const workDir = path.join(benchDir, SMOKE ? 'smoke' : 'work');
	mkdirSync(workDir, { recursive: true });
	if (flags['use-installed']) log(LOG_PREFIX, `--use-installed: running the package as installed in ${userFolder}, not the sources`);
	else await packAndInstall(userFolder);
	const machine = describeMachine(runtime);

	const unknown = ONLY ? [...ONLY].filter((key) => !SCENARIO_KEYS.includes(key)) : [];
	if (unknown.length > 0) throw new Error(`--only ${flags.only}: no scenario ${unknown.join(', ')} (${SCENARIO_KEYS.join(', ')})`);
	const selected = scenarios.filter((scenario) => !ONLY || ONLY.has(scenario.key));
	const results = [];
	const inN8n = selected.filter((scenario) => !scenario.inProcess && !scenario.standalone);
	let context;
	if (inN8n.length > 0) {
		log(LOG_PREFIX, `starting the sandbox (volume ${SIZES.sandboxVolume}) ...`);
		const sandbox = await startBenchSandbox();
		try {
			const info = await sandboxCall(sandbox, 'GET', '/__sandbox/info');
			const consumption = await sandboxCall(sandbox, 'GET', '/integration/consumption?pageOptions[take]=50', { key: sandbox.keys.owner });
			const credentials = {
				ollang: { id: CREDENTIAL_IDS.ollang, name: 'Bench: Ollang sandbox (owner key)' },
				headerAuth: { id: CREDENTIAL_IDS.headerAuth, name: 'Bench: X-Api-Key header (owner key)' },
				ollangScale: { id: CREDENTIAL_IDS.ollangScale, name: 'Bench: Ollang scale sandbox (owner key)' },
			};
			const orderIds = await listOrderIds(sandbox, SIZES.perItemCount);
			const workflows = buildWorkflows({
				baseUrl: sandbox.baseUrl,
				apiKey: sandbox.keys.owner,
				credentials,
				limits,
				unitCount: SIZES.unitCount,
				memoryId: info.fixtures.memories[0],
				exportOrderId: info.fixtures.orders[SIZES.exportFixture],
				orderIds,
				perItemConcurrencies: perItemConcurrencies(limits),
				download: inN8n.some((scenario) => scenario.key === 'download') ? await largeDeliverable(sandbox, info) : undefined,
			});
			// The sandbox's port is new every run: credentials and workflows are imported again (fixed ids replace them).
			log(LOG_PREFIX, 'importing the bench credentials and workflows into n8n ...');
			await importCredentials(userFolder, [
				{ ...credentials.ollang, type: 'ollangApi', data: { apiKey: sandbox.keys.owner, baseUrl: sandbox.baseUrl } },
				{ ...credentials.headerAuth, type: 'httpHeaderAuth', data: { name: 'X-Api-Key', value: sandbox.keys.owner } },
			]);
			const workflowFiles = Object.entries(workflows).map(([key, workflow]) => {
				const file = path.join(workDir, `${key}.json`);
				writeFileSync(file, JSON.stringify(workflow, null, 2));
				return file;
			});
			await importWorkflows(userFolder, workflowFiles);
			await sandboxCall(sandbox, 'PUT', '/__sandbox/latency', { body: { ms: LATENCY_MS } });
			context = { sandbox, userFolder, workDir, workflows, orderIds, consumptionMeta: consumption.meta };
			for (const scenario of inN8n) {
				if (scenario.points) results.push(await runScaleScenario(context, scenario));
				else if (scenario.queue) results.push(await runQueueScenario({ ...context, sandboxCall }, scenario));
				else results.push(await runScenario(context, scenario));
			}
		} finally {
			await sandbox.stop();
		}
	}
	for (const scenario of selected.filter((entry) => entry.inProcess)) results.push(await runTriggerScenario(runtime, scenario));
	const standalone = { push: runPushScenario, bursts: runBurstsScenario, writeOnce: runWriteOnceScenario };
	for (const scenario of selected.filter((entry) => entry.standalone)) results.push(await standalone[scenario.key]({ userFolder, latencyMs: LATENCY_MS, sandboxCall }, scenario));

	results.sort((a, b) => SCENARIO_KEYS.indexOf(a.key) - SCENARIO_KEYS.indexOf(b.key));
	machine.loadAverageAtEnd = os.loadavg().map((value) => value.toFixed(2)).join(' ');
	const report = formatReport({
		results,
		machine,
		latencyMs: LATENCY_MS,
		limits,
		consumptionMeta: context?.consumptionMeta,
		unitCount: SIZES.unitCount,
		perItemCount: SIZES.perItemCount,
		elapsedMs: Date.now() - started,
		command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
	});
	// Raw figures of every run, for a closer look; not committed.
	writeFileSync(path.join(workDir, 'last-run.json'), JSON.stringify({ machine, results }, null, 2));
	if (SMOKE) {
		const { checks, problems } = smokeProblems(selected, results, { consumption: context?.consumptionMeta?.itemCount, perItem: SIZES.perItemCount, download: 1 });
		for (const problem of problems) log(LOG_PREFIX, `smoke: FAILED: ${problem}`);
		log(LOG_PREFIX, `smoke: ${selected.length} scenarios, ${checks} checks, ${problems.length} failed, in ${formatElapsed(Date.now() - started)} (the report it would print: ${path.join(workDir, 'report.md')})`);
		writeFileSync(path.join(workDir, 'report.md'), `${report}\n`);
		if (flags['smoke-summary']) writeFileSync(flags['smoke-summary'], JSON.stringify({ scenarios: selected.length, checks, failed: problems.length, problems }));
		if (problems.length > 0) process.exitCode = 1;
		return;
	}
	process.stdout.write(`${report}\n`);
	if (!WRITES_RESULTS) {
		log(LOG_PREFIX, `run with options: ${path.relative(REPO_ROOT, RESULTS_FILE)} left as it was (it holds plain \`npm run bench\` runs only)`);
	} else {
		writeFileSync(RESULTS_FILE, `${report}\n`);
		log(LOG_PREFIX, `written to ${path.relative(REPO_ROOT, RESULTS_FILE)}`);
	}
	log(LOG_PREFIX, `done in ${formatElapsed(Date.now() - started)}`);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	// Exiting (not dying of the signal) runs process.mjs's exit hook, which stops the sandbox and n8n.
	process.on(signal, () => process.exit(130));
}

main().catch((error) => {
	log(LOG_PREFIX, error.stack ?? error.message ?? String(error));
	process.exitCode = 1;
});
