#!/usr/bin/env node
// `npm start`: a real n8n with this package installed, talking to the local Ollang sandbox, ready to click through.
// On a fresh clone it installs what it needs (dev dependencies, then the cached Node 24 + n8n: ~5 minutes once);
// later runs start in seconds. The sandbox's clock starts at the real time now, and the example workflows are
// imported with the files they read put where they read them. Ctrl-C stops n8n and the sandbox.
// `--queue` runs the same demo in n8n's queue mode: a private PostgreSQL and Redis, the main process, two workers and
// two `n8n webhook` processes (the package installed for all of them) behind a small balancer on the n8n port, which
// sends /webhook/ to the webhook processes and the rest to the main; executions run on the workers.
//
//   npm start [-- --n8n-port 5678 --sandbox-port 5679 --queue --user-folder DIR]
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDevDependencies } from './lib/dev-dependencies.mjs';
import { formatElapsed, log } from './n8n/process.mjs';
import { LOCAL_OWNER, REPO_ROOT, cacheRoot, ensureRuntime, importCredentials, importWorkflows, n8nFilesDir, packAndInstall, startN8n, startN8nWorker } from './n8n/runtime.mjs';
import { freePort } from './n8n/process.mjs';
import { MAIN_BEHIND_WEBHOOK_PROCESSES, QUEUE_WEBHOOK_PROCESSES, QUEUE_WORKERS, startQueueServices, startWebhookProcesses, WEBHOOK_PROCESS_SETTINGS } from './n8n/queue-mode.mjs';
import { SANDBOX_CREDENTIALS, sandboxCredentials, startSandboxProcess } from './n8n/sandbox.mjs';

const LOG_PREFIX = 'start';
const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');
// The sandbox's clock runs this many times faster than the wall clock, so orders move along while one watches.
const CLOCK_SPEED = 60;

const { values: flags } = parseArgs({
	options: {
		'n8n-port': { type: 'string', default: '5678' },
		'sandbox-port': { type: 'string', default: '5679' },
		queue: { type: 'boolean', default: false },
		// Another n8n user folder than the cached demo one (the start/stop test uses a throwaway folder).
		'user-folder': { type: 'string' },
	},
});
const queueMode = flags.queue;
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

/**
 * The demo data, with the clock starting at the real time now: the examples' date windows ("the last 7 days" in n8n's
 * time) then hold data.
 */
async function startSandbox(startAt) {
	const args = ['--volume', 'demo', '--realtime', String(CLOCK_SPEED), '--start-at', startAt.toISOString(), '--port', String(sandboxPort)];
	return await startSandboxProcess(args, { onLine: (line) => process.stderr.write(`sandbox | ${line}\n`) });
}

/** The example workflows (`*.json`) and the files they read (the rest), by path. */
function exampleFiles() {
	if (!existsSync(EXAMPLES_DIR)) return { workflows: [], dataFiles: [] };
	const files = readdirSync(EXAMPLES_DIR)
		.sort()
		.map((name) => path.join(EXAMPLES_DIR, name));
	return { workflows: files.filter((file) => file.endsWith('.json')), dataFiles: files.filter((file) => !file.endsWith('.json')) };
}

/**
 * Copies the files the examples read (the memory example's CSV) into the folder n8n lets workflows read, where
 * the examples look for them; every start, so the copies follow the repository.
 */
function provideExampleDataFiles(userFolder) {
	const filesDir = n8nFilesDir(userFolder);
	mkdirSync(filesDir, { recursive: true });
	for (const file of exampleFiles().dataFiles) copyFileSync(file, path.join(filesDir, path.basename(file)));
}

/**
 * Imports the sandbox credentials and the example workflows, unless exactly these were imported into this user
 * folder before (a hash of what would be imported is kept beside it): each import boots n8n's CLI for seconds.
 */
async function importDemoContent(userFolder, sandbox, env) {
	const credentials = sandboxCredentials(sandbox);
	const { workflows } = exampleFiles();
	// Queue mode's database is new at every start: it always needs the imports.
	const stampFile = path.join(userFolder, queueMode ? 'demo-imports.queue' : 'demo-imports.sha256');
	const hash = createHash('sha256').update(JSON.stringify(credentials));
	for (const file of workflows) hash.update(file).update(readFileSync(file));
	const digest = hash.digest('hex');
	if (!queueMode && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === digest) {
		log(LOG_PREFIX, 'sandbox credentials and example workflows are already imported');
		return;
	}
	log(LOG_PREFIX, `importing ${credentials.length} sandbox credentials and ${workflows.length} example workflows ...`);
	await importCredentials(userFolder, credentials, { env });
	await importWorkflows(userFolder, workflows, { env });
	writeFileSync(stampFile, `${digest}\n`);
}

function printBanner({ n8n, sandbox, clockStart, elapsedMs, queue }) {
	const workflows = exampleFiles().workflows.map((file) => JSON.parse(readFileSync(file, 'utf8')));
	const nodesOfType = (workflow, type) => workflow.nodes.filter((node) => node.type === type);
	const MCP_TRIGGER = '@n8n/n8n-nodes-langchain.mcpTrigger';
	const CHAT_TRIGGER = '@n8n/n8n-nodes-langchain.chatTrigger';
	const CALLBACK_TRIGGER = 'n8n-nodes-ollang.ollangCallbackTrigger';
	// The MCP, chat and callback examples are not run with "Execute workflow": each gets its own hint.
	const ownHint = [MCP_TRIGGER, CHAT_TRIGGER, CALLBACK_TRIGGER];
	const examples = workflows
		.filter((workflow) => ownHint.every((type) => nodesOfType(workflow, type).length === 0))
		.map((workflow) => workflow.name);
	const credentialNames = Object.values(SANDBOX_CREDENTIALS).map((credential) => `"${credential.name}"`);
	const mcpServers = workflows.flatMap((workflow) =>
		nodesOfType(workflow, MCP_TRIGGER).map(
			(node) => `  - publish "${workflow.name}" and connect an MCP client to ${n8n.url}/mcp/${node.parameters.path} (Streamable HTTP or SSE)`,
		),
	);
	// The sandbox calls loopback URLs back (started with --allow-loopback-callbacks); the real API needs public https.
	const callbacks = workflows.flatMap((workflow) =>
		nodesOfType(workflow, CALLBACK_TRIGGER).map(
			(node) => `  - publish "${workflow.name}" and give ${n8n.url}/webhook/${node.webhookId}/ollang-callback as the Callback URL of Order > Create or Run QC Evaluation`,
		),
	);
	const chats = workflows
		.filter((workflow) => nodesOfType(workflow, CHAT_TRIGGER).length > 0)
		.map((workflow) => `  - open "${workflow.name}", give its chat model a credential you supply (OpenAI or compatible), then "Open chat"`);
	const lines = [
		'',
		'='.repeat(78),
		` n8n with n8n-nodes-ollang is running against the Ollang sandbox (ready in ${formatElapsed(elapsedMs)})`,
		'='.repeat(78),
		` Editor   ${n8n.url}`,
		`          sign in as ${LOCAL_OWNER.email} / ${LOCAL_OWNER.password}`,
		` Sandbox  ${sandbox.baseUrl}   simulated Ollang API, its clock started at ${clockStart.toISOString()} and runs x${CLOCK_SPEED}`,
		`          owner key    ${sandbox.keys.owner}`,
		`          billing key  ${sandbox.keys.billing}`,
		`          member key   ${sandbox.keys.member}`,
		`          what it holds: ${sandbox.baseUrl}/__sandbox/info`,
		...(queue ? [` Queue    ${queue}`] : []),
		` Credentials ${credentialNames.join(', ')} are set up in n8n.`,
		'',
		' Try first:',
		...(examples.length > 0
			? [`  - open an example workflow (${examples.join(', ')}) and click "Execute workflow"`]
			: []),
		`  - create a workflow, add the "Ollang" node, pick "${SANDBOX_CREDENTIALS.owner.name}", list orders, execute the step`,
		'  - add the "Ollang Trigger", publish the workflow, and watch orders change as the sandbox clock runs',
		...mcpServers,
		...chats,
		...callbacks,
		'  - switch the credential to the member key to see how the API answers a user without roles',
		'',
		` Ctrl-C stops ${queue ? 'n8n, its workers and webhook processes, the balancer, PostgreSQL, Redis' : 'n8n'} and the sandbox.`,
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
	const userFolder = flags['user-folder']
		? path.resolve(flags['user-folder'])
		: path.join(cacheRoot(), queueMode ? 'demo-user-queue' : 'demo-user');
	await packAndInstall(userFolder);

	// Queue mode: the database and Redis first; every n8n process (CLI imports included) gets their settings.
	let queueEnv = {};
	let queueSummary;
	if (queueMode) {
		log(LOG_PREFIX, 'starting PostgreSQL and Redis for queue mode ...');
		const { postgres, redis, env } = await startQueueServices({ label: 'demo' });
		addServer('PostgreSQL', postgres.child, postgres.stop);
		addServer('Redis', redis.child, redis.stop);
		// The workers build $execution.resumeUrl (the create-and-wait example's Callback URL) from WEBHOOK_URL: without
		// it, from their own port, where no one receives webhooks.
		queueEnv = { ...env, WEBHOOK_URL: `http://localhost:${n8nPort}/` };
		queueSummary = `PostgreSQL 127.0.0.1:${postgres.port} (pid ${postgres.pid}), Redis 127.0.0.1:${redis.port} (pid ${redis.pid}), ${QUEUE_WORKERS} workers`;
	}

	log(LOG_PREFIX, `starting the sandbox on port ${sandboxPort} ...`);
	const clockStart = new Date();
	const sandbox = await startSandbox(clockStart);
	addServer('the sandbox', sandbox.child, sandbox.stop);

	await importDemoContent(userFolder, sandbox.info, queueEnv);
	provideExampleDataFiles(userFolder);

	// Queue mode: the main behind the balancer, on a port of its own; the balancer takes the n8n port.
	const mainPort = queueMode ? await freePort() : n8nPort;
	log(LOG_PREFIX, `starting n8n on port ${mainPort} (user folder ${userFolder}) ...`);
	const n8n = await startN8n(userFolder, {
		port: mainPort,
		env: queueMode ? { ...queueEnv, ...MAIN_BEHIND_WEBHOOK_PROCESSES } : queueEnv,
		onLine: (line) => process.stderr.write(`n8n     | ${line}\n`),
	});
	addServer('n8n', n8n.child, n8n.stop);
	for (let index = 1; queueMode && index <= QUEUE_WORKERS; index++) {
		const worker = await startN8nWorker(userFolder, { env: queueEnv, onLine: (line) => process.stderr.write(`worker${index} | ${line}\n`) });
		addServer(`worker ${index}`, worker.child, worker.stop);
	}
	let editorUrl = n8n.url;
	if (queueMode) {
		log(LOG_PREFIX, `starting ${QUEUE_WEBHOOK_PROCESSES} n8n webhook processes and the balancer on port ${n8nPort} ...`);
		const tier = await startWebhookProcesses(userFolder, { env: { ...queueEnv, ...WEBHOOK_PROCESS_SETTINGS }, mainUrl: n8n.url, port: n8nPort, onLine: (index, line) => process.stderr.write(`webhook${index + 1} | ${line}\n`) });
		tier.webhooks.forEach((webhook, index) => addServer(`webhook process ${index + 1}`, webhook.child, webhook.stop));
		servers.push({ name: 'the balancer', stop: tier.balancer.stop });
		editorUrl = `http://localhost:${n8nPort}`;
		queueSummary += `, ${QUEUE_WEBHOOK_PROCESSES} webhook processes (pids ${tier.webhooks.map((webhook) => webhook.child.pid).join(', ')}) taking /webhook/ from the balancer on port ${n8nPort} (main on ${mainPort})`;
	}

	printBanner({ n8n: { url: editorUrl }, sandbox: sandbox.info, clockStart, elapsedMs: Date.now() - started, queue: queueSummary });
}

main().catch((error) => {
	log(LOG_PREFIX, error.message ?? String(error));
	void shutdown('start-up failed', 1);
});
