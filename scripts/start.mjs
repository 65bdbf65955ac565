#!/usr/bin/env node
// `npm start`: a real n8n with this package installed, talking to the local Ollang sandbox, ready to click through.
// On a fresh clone it installs what it needs (dev dependencies, then the cached Node 24 + n8n: ~5 minutes once);
// later runs start in seconds. Ctrl-C stops n8n and the sandbox.
//
//   npm start [-- --n8n-port 5678 --sandbox-port 5679]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDevDependencies } from './lib/dev-dependencies.mjs';
import { forEachLine, formatElapsed, log, runCommand, spawnGroup, stopGroup } from './n8n/process.mjs';
import {
	LOCAL_OWNER,
	REPO_ROOT,
	cacheRoot,
	ensureRuntime,
	importCredentials,
	importWorkflows,
	packAndInstall,
	startN8n,
} from './n8n/runtime.mjs';

const LOG_PREFIX = 'start';
const SANDBOX_READY_TIMEOUT_MS = 60_000;

/** Ids of the credentials `npm start` imports; example workflows refer to the owner one. */
const DEMO_CREDENTIAL_IDS = Object.freeze({ owner: 'OllangSandboxOwn', billing: 'OllangSandboxBil', member: 'OllangSandboxMem' });

const { values: flags } = parseArgs({
	options: {
		'n8n-port': { type: 'string', default: '5678' },
		'sandbox-port': { type: 'string', default: '5679' },
	},
});
const n8nPort = Number(flags['n8n-port']);
const sandboxPort = Number(flags['sandbox-port']);

async function assertPortFree(port, what) {
	const { createServer } = await import('node:net');
	await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', () => reject(new Error(`port ${port} (${what}) is in use: is another \`npm start\` running? Stop it, or pass --${what}-port.`)));
		server.listen(port, '127.0.0.1', () => server.close(resolve));
	});
}

/** Starts `tsx sandbox/cli.cts` and waits for its `SANDBOX_READY {json}` line (docs/ARCHITECTURE.md). */
async function startSandbox() {
	const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	const args = ['sandbox/cli.cts', '--realtime', '60', '--volume', 'demo', '--port', String(sandboxPort)];
	const child = spawnGroup(tsx, args, { cwd: REPO_ROOT });
	let tail = '';
	const ready = new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`the sandbox printed no SANDBOX_READY line within ${formatElapsed(SANDBOX_READY_TIMEOUT_MS)}:\n${tail}`)), SANDBOX_READY_TIMEOUT_MS);
		forEachLine(child, (line) => {
			tail = `${tail}${line}\n`.slice(-8000);
			const match = /^SANDBOX_READY (\{.*\})\s*$/.exec(line);
			if (match) {
				clearTimeout(timer);
				resolve(JSON.parse(match[1]));
			} else {
				process.stderr.write(`sandbox | ${line}\n`);
			}
		});
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			reject(new Error(`the sandbox exited (${signal ?? `exit code ${code}`}) before it was ready:\n${tail}`));
		});
	});
	return { child, info: await ready };
}

function examplesFiles() {
	const dir = path.join(REPO_ROOT, 'examples');
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((name) => name.endsWith('.json'))
		.sort()
		.map((name) => path.join(dir, name));
}

/**
 * Imports the sandbox credentials and the example workflows, unless exactly these were imported into this user
 * folder before (a hash of what would be imported is kept beside it): each import boots n8n's CLI for seconds.
 */
async function importDemoContent(userFolder, sandbox) {
	const credentials = Object.entries(DEMO_CREDENTIAL_IDS).map(([role, id]) => ({
		id,
		name: `Ollang sandbox (${role} key)`,
		type: 'ollangApi',
		data: { apiKey: sandbox.keys[role], baseUrl: sandbox.baseUrl },
	}));
	const workflows = examplesFiles();
	const stampFile = path.join(userFolder, 'demo-imports.sha256');
	const hash = createHash('sha256').update(JSON.stringify(credentials));
	for (const file of workflows) hash.update(file).update(readFileSync(file));
	const digest = hash.digest('hex');
	if (existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === digest) {
		log(LOG_PREFIX, 'sandbox credentials and example workflows are already imported');
		return;
	}
	log(LOG_PREFIX, `importing ${credentials.length} sandbox credentials and ${workflows.length} example workflows ...`);
	await importCredentials(userFolder, credentials);
	await importWorkflows(userFolder, workflows);
	writeFileSync(stampFile, `${digest}\n`);
}

function printBanner({ n8n, sandbox, elapsedMs }) {
	const examples = examplesFiles().map((file) => JSON.parse(readFileSync(file, 'utf8')).name ?? path.basename(file));
	const lines = [
		'',
		'='.repeat(78),
		` n8n with n8n-nodes-ollang is running against the Ollang sandbox (ready in ${formatElapsed(elapsedMs)})`,
		'='.repeat(78),
		` Editor   ${n8n.url}`,
		`          sign in as ${LOCAL_OWNER.email} / ${LOCAL_OWNER.password}`,
		` Sandbox  ${sandbox.baseUrl}   simulated Ollang API, clock runs x60 (an hour a minute)`,
		`          owner key    ${sandbox.keys.owner}`,
		`          billing key  ${sandbox.keys.billing}`,
		`          member key   ${sandbox.keys.member}`,
		`          what it holds: ${sandbox.baseUrl}/__sandbox/info`,
		' Credentials "Ollang sandbox (owner key)", "(billing key)" and "(member key)" are set up in n8n.',
		'',
		' Try first:',
		...(examples.length > 0
			? [`  - open an example workflow (${examples.join(', ')}) and click "Execute workflow"`]
			: []),
		'  - create a workflow, add the "Ollang" node, pick "Ollang sandbox (owner key)", list orders, execute the step',
		'  - add the "Ollang Trigger", publish the workflow, and watch orders change as the sandbox clock runs',
		'  - switch the credential to the member key to see how the API answers a user without roles',
		'',
		' Ctrl-C stops n8n and the sandbox.',
		'='.repeat(78),
		'',
	];
	process.stdout.write(`${lines.join('\n')}\n`);
}

// Servers started so far, stopped in reverse order on Ctrl-C, on a failure, or when one of them dies.
const servers = [];
let stopping = false;

async function shutdown(reason, exitCode) {
	if (stopping) return;
	stopping = true;
	if (servers.length > 0) log(LOG_PREFIX, `${reason}; stopping ${servers.map((server) => server.name).reverse().join(' and ')} ...`);
	// n8n first: it may be mid-request to the sandbox.
	for (const server of servers.reverse()) await server.stop();
	process.exit(exitCode);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	process.on(signal, () => {
		// A second Ctrl-C does not wait for a graceful stop: the exit hook in process.mjs kills the process groups.
		if (stopping) process.exit(130);
		void shutdown(`${signal} received`, 0);
	});
}

function addServer(name, child, stop) {
	servers.push({ name, stop });
	child.once('exit', (code, signal) => {
		if (!stopping) void shutdown(`${name} exited unexpectedly (${signal ?? `exit code ${code}`})`, 1);
	});
}

async function main() {
	const started = Date.now();
	ensureDevDependencies();
	await ensureRuntime();
	await assertPortFree(n8nPort, 'n8n');
	await assertPortFree(sandboxPort, 'sandbox');
	const userFolder = path.join(cacheRoot(), 'demo-user');
	await packAndInstall(userFolder);

	log(LOG_PREFIX, `starting the sandbox on port ${sandboxPort} ...`);
	const sandbox = await startSandbox();
	addServer('the sandbox', sandbox.child, () => stopGroup(sandbox.child));

	await importDemoContent(userFolder, sandbox.info);

	log(LOG_PREFIX, `starting n8n on port ${n8nPort} (user folder ${userFolder}) ...`);
	const n8n = await startN8n(userFolder, {
		port: n8nPort,
		onLine: (line) => process.stderr.write(`n8n     | ${line}\n`),
	});
	addServer('n8n', n8n.child, n8n.stop);

	printBanner({ n8n, sandbox: sandbox.info, elapsedMs: Date.now() - started });
}

main().catch((error) => {
	log(LOG_PREFIX, error.message ?? String(error));
	void shutdown('start-up failed', 1);
});
