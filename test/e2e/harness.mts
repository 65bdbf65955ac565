// What the end-to-end tests share: the sandbox as a separate process (driven over HTTP and its admin routes), an n8n
// user folder with this package installed as a user installs it, workflow JSON built for the sandbox's ids, and
// readers for what n8n produced (node outputs, binary files, spreadsheets) and for secrets left behind.
// Runs under node's test runner through tsx (`npm test` runs it after the jest suites; see scripts/test.mjs).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type ExcelJS from 'exceljs';

import {
	executeWorkflow,
	importCredentials,
	importWorkflows,
	packAndInstall,
	publishWorkflow,
	REPO_ROOT,
	startN8n,
	type CommandOutput,
	type CredentialToImport,
	type ExecuteWorkflowError,
	type InstalledPackage,
	type N8nCommandOptions,
	type N8nExecution,
	type N8nItem,
	type N8nRun,
	type N8nRunData,
	type RunningN8n,
} from '../../scripts/n8n/runtime.mjs';
import { freePort } from '../../scripts/n8n/process.mjs';
import { SANDBOX_CREDENTIALS, sandboxCredentials, startSandboxProcess, type SandboxReady } from '../../scripts/n8n/sandbox.mjs';
import type { SeededFixtures } from '../../sandbox/types.cts';

export const EXAMPLES_DIR = path.join(REPO_ROOT, 'examples');

/**
 * n8n settings; a setting given as undefined is left out of n8n's environment (as if never set), so a test can see
 * n8n's own default for something the runtime otherwise sets (e.g. N8N_UNVERIFIED_PACKAGES_ENABLED).
 */
export type N8nSettings = Record<string, string | undefined>;

/** The host the sandbox listens on (scripts/n8n/sandbox.mjs binds loopback). */
export const SANDBOX_HOST = '127.0.0.1';

/**
 * n8n 3.0's new defaults, set on n8n 2.x: `scripts/test.mjs` runs the matrix's n8n 2.41.1 suites with
 * OLLANG_N8N_DEFAULTS=3.0, and every n8n process of a user folder (CLI commands, `n8n start`, workers) gets them.
 * Binary data on the filesystem (the in-memory mode is gone), manual executions on queue-mode workers, the task
 * runner's 60 s timeout, and SSRF protection on with n8n's built-in block list (which covers loopback), the
 * sandbox's address allowed as a 3.0 administrator allows an internal API.
 */
export const N8N_3_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
	N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
	OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	N8N_RUNNERS_TASK_TIMEOUT: '60',
	N8N_SSRF_PROTECTION_ENABLED: 'true',
	N8N_SSRF_ALLOWED_IP_RANGES: `${SANDBOX_HOST}/32`,
});

/** Whether this run uses n8n 3.0's defaults (OLLANG_N8N_DEFAULTS=3.0). */
export const WITH_N8N_3_DEFAULTS = process.env.OLLANG_N8N_DEFAULTS === '3.0';
export const PACKAGE_NAME = 'n8n-nodes-ollang';
export const OLLANG_NODE = `${PACKAGE_NAME}.ollang`;
export const OLLANG_TRIGGER_NODE = `${PACKAGE_NAME}.ollangTrigger`;
export const OLLANG_CALLBACK_TRIGGER_NODE = `${PACKAGE_NAME}.ollangCallbackTrigger`;
/** Every node type the package ships (package.json#n8n), sorted. */
export const OLLANG_NODE_TYPES = [OLLANG_NODE, OLLANG_CALLBACK_TRIGGER_NODE, OLLANG_TRIGGER_NODE].sort();

// Under tsx, an ESM import of exceljs fails inside its dependencies (sandbox/README.md); require works.
const requireCommonJs = createRequire(import.meta.url);
const excel = requireCommonJs('exceljs') as typeof ExcelJS;

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, { timeoutMs = 60_000, intervalMs = 250 } = {}): Promise<T> {
	const started = Date.now();
	for (;;) {
		const value = await probe();
		if (value !== undefined && value !== false) return value;
		if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
		await sleep(intervalMs);
	}
}

/** n8n's two ways of keeping a poll trigger's state. */
export type PersistenceMode = 'default' | 'durable';

/** The settings of each mode: what n8n 2.40 needs for durable poll cursors (without them it logs a warning and stays in the default mode). */
export const PERSISTENCE_ENV: Record<PersistenceMode, Record<string, string>> = {
	default: {},
	durable: {
		N8N_SCHEDULER_ENABLED: 'true',
		N8N_SCHEDULER_POLL_TRIGGERS_ENABLED: 'true',
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'true',
		N8N_POLLER_DURABLE_CURSORS_ENABLED: 'true',
	},
};

/** What a trigger emitted (each item's id, once per emission) against the ids it had to emit. */
export interface Tally {
	expected: number;
	/** Distinct ids emitted. */
	emitted: number;
	missed: string[];
	/** Emitted more than once: `id xN`. */
	duplicated: string[];
	/** Emitted though not expected. */
	unexpected: string[];
}

export function tally(expected: string[], emitted: string[]): Tally {
	const counts = new Map<string, number>();
	for (const id of emitted) counts.set(id, (counts.get(id) ?? 0) + 1);
	return {
		expected: expected.length,
		emitted: counts.size,
		missed: expected.filter((id) => !counts.has(id)),
		duplicated: [...counts].filter(([, count]) => count > 1).map(([id, count]) => `${id} x${count}`),
		unexpected: [...counts.keys()].filter((id) => !expected.includes(id)),
	};
}

// ---------------------------------------------------------------------------------------------------------------
// The sandbox

export type KeyRole = 'owner' | 'billing' | 'member';

/** The ids the sandbox's admin route `info` gives (sandbox/types.cts). */
export type Fixtures = SeededFixtures;

export interface LoggedRequest {
	method: string;
	path: string;
	status: number | null;
}

export interface ApiAnswer<T> {
	status: number;
	headers: Headers;
	body: T;
}

type Query = Record<string, string | number | undefined>;

/** A sandbox process (`tsx sandbox/cli.cts`) and typed access to its API and admin routes. */
export class SandboxClient {
	private constructor(
		readonly info: SandboxReady,
		private readonly stopProcess: () => Promise<void>,
	) {}

	/**
	 * Starts a sandbox whose simulated clock begins at the real time now and stands still until advanced: the
	 * example workflows ask for "the last 7 days" in n8n's (real) time, which then covers the seeded history.
	 */
	static async start(): Promise<SandboxClient> {
		const sandbox = await startSandboxProcess(['--start-at', new Date().toISOString()]);
		return new SandboxClient(sandbox.info, sandbox.stop);
	}

	/** A client of a sandbox another process started and stops (`npm start`'s): its keys read from its admin info. */
	static async attach(baseUrl: string): Promise<SandboxClient> {
		const response = await fetch(new URL('/__sandbox/info', baseUrl));
		if (!response.ok) throw new Error(`sandbox info at ${baseUrl}: HTTP ${response.status}`);
		const { keys, filesOrigin } = (await response.json()) as SandboxReady;
		return new SandboxClient({ baseUrl, keys, filesOrigin }, async () => {});
	}

	async stop(): Promise<void> {
		await this.stopProcess();
	}

	private url(pathname: string, query: Query = {}): URL {
		const url = new URL(pathname, this.info.baseUrl);
		for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
		return url;
	}

	async admin<T>(method: string, pathname: string, body?: unknown): Promise<T> {
		const response = await fetch(this.url(`/__sandbox/${pathname}`), {
			method,
			headers: body === undefined ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`sandbox admin ${method} ${pathname}: HTTP ${response.status} ${text}`);
		return (text === '' ? undefined : JSON.parse(text)) as T;
	}

	async fixtures(): Promise<Fixtures> {
		return (await this.admin<{ fixtures: Fixtures }>('GET', 'info')).fixtures;
	}

	async now(): Promise<Date> {
		return new Date((await this.admin<{ clock: { now: string } }>('GET', 'info')).clock.now);
	}

	async advanceClock(minutes: number): Promise<Date> {
		return new Date((await this.admin<{ now: string }>('POST', 'clock/advance', { minutes })).now);
	}

	async requests(): Promise<LoggedRequest[]> {
		return (await this.admin<{ requests: LoggedRequest[] }>('GET', 'requests')).requests;
	}

	async clearRequests(): Promise<void> {
		await this.admin('DELETE', 'requests');
	}

	/** An API request with one of the sandbox's keys (or any other key), answered whatever its status. */
	async call<T = unknown>(
		method: string,
		pathname: string,
		{ key = 'owner', query, body }: { key?: KeyRole | { raw: string }; query?: Query; body?: unknown } = {},
	): Promise<ApiAnswer<T>> {
		const apiKey = typeof key === 'string' ? this.info.keys[key] : key.raw;
		const response = await fetch(this.url(pathname, query), {
			method,
			headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const type = response.headers.get('content-type') ?? '';
		const payload = type.includes('json') ? await response.json() : Buffer.from(await response.arrayBuffer());
		return { status: response.status, headers: response.headers, body: payload as T };
	}

	/** An API request that must succeed. */
	async get<T = unknown>(pathname: string, options: { key?: KeyRole; query?: Query } = {}): Promise<T> {
		const answer = await this.call<T>('GET', pathname, options);
		if (answer.status >= 300) throw new Error(`GET ${pathname}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
		return answer.body;
	}

	/**
	 * The delivery events that happened after `after` (ms since the epoch) as the trigger names them
	 * (`<orderId>:<index>`), sorted: what a trigger activated at that moment must emit, each once.
	 */
	async deliveryEventIdsAfter(after: number): Promise<string[]> {
		const ids: string[] = [];
		for (const row of await this.getAllPages<{ id: string }>('/integration/orders')) {
			const order = await this.get<{ id: string; deliveryEvents: Array<{ occurredAt: string }> }>(`/integration/orders/${String(row.id)}`);
			order.deliveryEvents.forEach((event, index) => {
				if (Date.parse(event.occurredAt) > after) ids.push(`${order.id}:${index}`);
			});
		}
		return ids.sort();
	}

	/** Every row of a paged listing; `style` 'flat' for the folder and project lists (page/take, no pageOptions). */
	async getAllPages<T>(pathname: string, query: Query = {}, key: KeyRole = 'owner', style: 'nested' | 'flat' = 'nested'): Promise<T[]> {
		const rows: T[] = [];
		for (let page = 1; ; page++) {
			const paging = style === 'flat' ? { page, take: 50 } : { 'pageOptions[page]': page, 'pageOptions[take]': 50 };
			const answer = await this.get<{ data: T[]; meta: { hasNextPage: boolean } }>(pathname, { key, query: { ...query, ...paging } });
			rows.push(...answer.data);
			if (!answer.meta.hasNextPage) return rows;
		}
	}
}

// ---------------------------------------------------------------------------------------------------------------
// n8n

export interface CredentialRef {
	id: string;
	name: string;
}

export { SANDBOX_CREDENTIALS };

/** A well-formed key the sandbox does not know. */
export const WRONG_KEY = 'sbx_owner_000000000000000000000000';
export const WRONG_KEY_CREDENTIAL: CredentialRef = { id: 'OllangE2eWrongKy', name: 'Ollang sandbox (wrong key)' };

/** The credentials the tests import: the sandbox's three keys, and a wrong key. */
export function testCredentials(sandbox: SandboxClient): CredentialToImport[] {
	const [owner] = sandboxCredentials(sandbox.info);
	return [
		...sandboxCredentials(sandbox.info),
		{ ...WRONG_KEY_CREDENTIAL, type: 'ollangApi', data: { apiKey: WRONG_KEY, baseUrl: owner.data.baseUrl } },
	];
}

export interface WorkflowJson {
	id: string;
	name: string;
	nodes: Array<Record<string, unknown> & { name: string; type: string; parameters: Record<string, unknown> }>;
	connections: Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

/**
 * A user folder in a temporary directory, with this package built, packed and installed into it as n8n installs a
 * community package. Every n8n command's output (`transcripts`) and the server's (`serverLog`) is kept for the
 * secret scan. Binary data is stored under `binaryStorage` and the Read/Write Files node may only touch `filesDir`.
 */
export class N8nUserFolder {
	readonly transcripts: CommandOutput[] = [];
	readonly serverLog: string[] = [];
	readonly dir: string;
	readonly binaryStorage: string;
	readonly filesDir: string;
	private readonly workflowsDir: string;

	private constructor(
		readonly root: string,
		/** n8n settings added for every process on this folder (e.g. queue mode's database and Redis). */
		private readonly settings: N8nSettings = {},
	) {
		this.dir = path.join(root, 'user');
		this.binaryStorage = path.join(root, 'binary-data');
		this.filesDir = path.join(root, 'files');
		this.workflowsDir = path.join(root, 'workflows');
		for (const dir of [this.dir, this.binaryStorage, this.filesDir, this.workflowsDir]) mkdirSync(dir, { recursive: true });
	}

	static create(label: string, settings: N8nSettings = {}): N8nUserFolder {
		return new N8nUserFolder(mkdtempSync(path.join(tmpdir(), `n8n-nodes-ollang-e2e-${label}-`)), settings);
	}

	/** n8n settings for every process on this folder (CLI commands, `n8n start`, workers); 3.0's defaults win. */
	get env(): Record<string, string> {
		const settings = { N8N_BINARY_DATA_STORAGE_PATH: this.binaryStorage, N8N_RESTRICT_FILE_ACCESS_TO: this.filesDir, ...this.settings };
		// Undefined values reach spawn, which leaves them out of the child's environment.
		return { ...settings, ...(WITH_N8N_3_DEFAULTS ? N8N_3_DEFAULTS : {}) } as Record<string, string>;
	}

	private commandOptions(extraEnv: N8nSettings = {}): N8nCommandOptions {
		return { env: { ...this.env, ...extraEnv } as Record<string, string>, onOutput: (output) => this.transcripts.push(output) };
	}

	async install(): Promise<InstalledPackage> {
		return await packAndInstall(this.dir);
	}

	async importCredentials(credentials: CredentialToImport[]): Promise<void> {
		await importCredentials(this.dir, credentials, this.commandOptions());
	}

	async importWorkflows(workflows: WorkflowJson[]): Promise<void> {
		const files = workflows.map((workflow) => {
			const file = path.join(this.workflowsDir, `${workflow.id}.json`);
			writeFileSync(file, JSON.stringify(workflow, null, 2));
			return file;
		});
		await importWorkflows(this.dir, files, this.commandOptions());
	}

	/** Publishes (activates) a workflow, for an `n8n start` started afterwards. */
	async publish(id: string): Promise<void> {
		await publishWorkflow(this.dir, id, this.commandOptions());
	}

	/**
	 * `n8n start` on a free port, or on `port` (a restart where the URLs given out before must still reach it),
	 * `extraEnv` added to n8n's settings, with its output kept in `serverLog`.
	 */
	async start(extraEnv: N8nSettings = {}, { port }: { port?: number } = {}): Promise<RunningN8n> {
		const env = { ...this.env, ...extraEnv } as Record<string, string>;
		return await startN8n(this.dir, { port: port ?? (await freePort()), env, onLine: (line) => this.serverLog.push(line) });
	}

	/** `n8n execute` of a workflow (`extraEnv` added to n8n's settings). */
	async execute(id: string, extraEnv: N8nSettings = {}): Promise<N8nRun> {
		return await executeWorkflow(this.dir, id, this.commandOptions(extraEnv));
	}

	/** Runs a workflow that must fail, and returns the failed run n8n reported. */
	async executeFailing(id: string, extraEnv: N8nSettings = {}): Promise<N8nRun> {
		try {
			await this.execute(id, extraEnv);
		} catch (error) {
			const { run } = error as ExecuteWorkflowError;
			if (run) return run;
			throw error;
		}
		throw new Error(`workflow ${id} succeeded, but it should have failed`);
	}

	/** Everything n8n printed, as texts for `findSecrets`. */
	outputs(): Array<{ name: string; text: string }> {
		return [
			...this.transcripts.flatMap(({ label, stdout, stderr }) => [
				{ name: `stdout of ${label}`, text: stdout },
				{ name: `stderr of ${label}`, text: stderr },
			]),
			{ name: 'the output of n8n start', text: this.serverLog.join('\n') },
		];
	}

	remove(): void {
		rmSync(this.root, { recursive: true, force: true });
	}
}

/** Ollang Trigger parameters: every delivery event of the last 30 days' orders, each watched order read on every poll. */
export const EVERY_DELIVERY_EVENT = Object.freeze({
	event: 'orderDeliveryEvent',
	eventTypes: ['ai_delivered', 'translator_delivered', 'lsp_approved', 'order_delivered'],
	watch: 'recentOrders',
	lookbackDays: 30,
	options: { recheckPerPoll: 200 },
});

/**
 * Poll times of the end-to-end triggers: three a minute, 20 s apart, as a user who wants events sooner sets them (three
 * Custom entries of one fixed second each: n8n refuses a single sub-minute cron, not several minute-granular ones). A
 * poll-bound file then waits 20 s for a poll instead of 60, and polls overlap more often than at once a minute.
 */
export const POLL_TIMES = Object.freeze({
	item: ['0', '20', '40'].map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` })),
});

/** n8n's shortest single poll time, as the editor offers it first. */
export const POLL_EVERY_MINUTE = Object.freeze({ item: [{ mode: 'everyMinute' }] });

/** A published-style workflow of one Ollang Trigger (polling three times a minute, the owner key) and a No Op after it. */
export function pollTriggerWorkflow(id: string, name: string, nodeName: string, parameters: Record<string, unknown>): WorkflowJson {
	return {
		id,
		name,
		nodes: [
			{
				id: `${id}-trigger`,
				name: nodeName,
				type: OLLANG_TRIGGER_NODE,
				typeVersion: 1,
				position: [0, 0],
				parameters: { pollTimes: POLL_TIMES, ...parameters },
				credentials: { ollangApi: SANDBOX_CREDENTIALS.owner },
			},
			{ id: `${id}-noop`, name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { [nodeName]: { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
		pinData: {},
	};
}

/**
 * The items an execution's trigger node emitted: from its run data, or, for an execution n8n created but never ran
 * (killed first; marked crashed at the next start), from the execution stack it was created with.
 */
export function triggerItems(execution: N8nExecution, nodeName: string): Record<string, unknown>[] {
	const runs = execution.data.resultData.runData[nodeName];
	const fromRun = runs?.[0]?.data?.main[0];
	if (fromRun) return fromRun.map((item) => item.json);
	const stack = (execution.data as unknown as { executionData?: { nodeExecutionStack?: Array<{ node: { name: string }; data: { main: Array<Array<{ json: Record<string, unknown> }>> } }> } })
		.executionData?.nodeExecutionStack;
	const entry = stack?.find((candidate) => candidate.node.name === nodeName);
	return entry?.data.main[0]?.map((item) => item.json) ?? [];
}

/** A workflow JSON file of examples/. */
export function readExample(fileName: string): WorkflowJson {
	return JSON.parse(readFileSync(path.join(EXAMPLES_DIR, fileName), 'utf8')) as WorkflowJson;
}

export function exampleNode(workflow: WorkflowJson, name: string): WorkflowJson['nodes'][number] {
	const node = workflow.nodes.find((candidate) => candidate.name === name);
	if (!node) throw new Error(`workflow "${workflow.name}" has no node "${name}"`);
	return node;
}

export interface StepSpec {
	name: string;
	/** Default: the Ollang node. */
	type?: string;
	typeVersion?: number;
	parameters: Record<string, unknown>;
	/** Default: the owner key for Ollang nodes, none for others. */
	credential?: CredentialRef | null;
	/** The nodes whose first output feeds this one. Default: the step before. */
	after?: string[];
	onError?: 'continueErrorOutput' | 'continueRegularOutput';
}

/** An Ollang node step. */
export function ollang(name: string, resource: string, operation: string, parameters: Record<string, unknown> = {}, extra: Partial<StepSpec> = {}): StepSpec {
	return { name, parameters: { resource, operation, ...parameters }, ...extra };
}

/** A resource locator parameter given by ID. */
export function byId(value: string): Record<string, unknown> {
	return { __rl: true, mode: 'id', value };
}

/**
 * A workflow of a Manual Trigger ("Start") and the given steps, each fed by the step before unless `after` says
 * otherwise. Every step executes once (n8n's "Execute Once"), whatever number of items reaches it: a step reads
 * what it needs from earlier ones with expressions, so one workflow can run many operations in a row.
 */
export function stepsWorkflow(id: string, name: string, steps: StepSpec[]): WorkflowJson {
	const nodes: WorkflowJson['nodes'] = [
		{ id: `${id}-start`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
	];
	const connections: WorkflowJson['connections'] = {};
	steps.forEach((step, index) => {
		const isOllang = step.type === undefined;
		const credential = step.credential === undefined ? (isOllang ? SANDBOX_CREDENTIALS.owner : null) : step.credential;
		nodes.push({
			id: `${id}-${index}`,
			name: step.name,
			type: step.type ?? OLLANG_NODE,
			typeVersion: step.typeVersion ?? 1,
			// n8n's v1 order runs the branches of a node top to bottom: a later step sits lower.
			position: [240 * (index + 1), 120 * index],
			parameters: step.parameters,
			executeOnce: true,
			...(credential ? { credentials: { ollangApi: credential } } : {}),
			...(step.onError ? { onError: step.onError } : {}),
		});
		for (const parent of step.after ?? [index === 0 ? 'Start' : steps[index - 1].name]) {
			const outputs = (connections[parent] ??= { main: [[]] });
			outputs.main[0].push({ node: step.name, type: 'main', index: 0 });
		}
	});
	return { id, name, nodes, connections, settings: { executionOrder: 'v1' }, active: false, pinData: {} };
}

// ---------------------------------------------------------------------------------------------------------------
// Reading what n8n produced

/** The items a node put on one of its outputs in its (first) run. */
export function outputOf(run: { data: N8nRunData }, nodeName: string, output = 0): N8nItem[] {
	const nodeRuns = run.data.resultData.runData[nodeName];
	if (!nodeRuns || nodeRuns.length === 0) {
		throw new Error(`node "${nodeName}" did not run (ran: ${Object.keys(run.data.resultData.runData).join(', ')})`);
	}
	const [nodeRun] = nodeRuns;
	if (nodeRun.error) throw new Error(`node "${nodeName}" failed: ${nodeRun.error.message}`);
	return nodeRun.data?.main[output] ?? [];
}

export function jsonOf(run: { data: N8nRunData }, nodeName: string, output = 0): Array<Record<string, unknown>> {
	return outputOf(run, nodeName, output).map((item) => item.json);
}

/** Like `jsonOf`, but no items when the node did not run (a branch the execution did not take). */
export function jsonIfRan(run: { data: N8nRunData }, nodeName: string, output = 0): Array<Record<string, unknown>> {
	return nodeName in run.data.resultData.runData ? jsonOf(run, nodeName, output) : [];
}

/** The only item of a node's output. */
export function singleJson(run: { data: N8nRunData }, nodeName: string): Record<string, unknown> {
	const items = jsonOf(run, nodeName);
	if (items.length !== 1) throw new Error(`node "${nodeName}" output ${items.length} items, expected 1`);
	return items[0];
}

/** The bytes of a binary field, from n8n's filesystem binary-data store (N8N_BINARY_DATA_STORAGE_PATH). */
export function readBinary(userFolder: N8nUserFolder, item: N8nItem, field = 'data'): Buffer {
	const binary = item.binary?.[field];
	if (!binary) throw new Error(`the item has no binary field "${field}" (it has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`);
	const prefix = 'filesystem-v2:';
	if (!binary.id?.startsWith(prefix)) throw new Error(`binary field "${field}" is not in n8n's filesystem store (id ${binary.id ?? 'none'})`);
	return readFileSync(path.join(userFolder.binaryStorage, binary.id.slice(prefix.length)));
}

export interface Sheet {
	name: string;
	/** Every row's cell values, the header row first. */
	rows: unknown[][];
}

/** The first worksheet of an XLSX file, read with exceljs. */
export async function readFirstSheet(data: Buffer): Promise<Sheet> {
	const workbook = new excel.Workbook();
	await workbook.xlsx.load(data as unknown as ArrayBuffer);
	const sheet = workbook.worksheets[0];
	if (!sheet) throw new Error('the XLSX file has no worksheet');
	const rows: unknown[][] = [];
	sheet.eachRow({ includeEmpty: false }, (row) => {
		// exceljs numbers cells from 1 and leaves index 0 empty.
		rows.push((row.values as unknown[]).slice(1));
	});
	return { name: sheet.name, rows };
}

// ---------------------------------------------------------------------------------------------------------------
// Secrets

/** Every file under a folder (or the file itself). */
export function filesUnder(target: string): string[] {
	if (!existsSync(target)) return [];
	if (!statSync(target).isDirectory()) return [target];
	return readdirSync(target).flatMap((name) => filesUnder(path.join(target, name)));
}

/**
 * Asserts that none of the API keys is anywhere in what n8n kept or printed: its user folder (the sqlite database
 * and its WAL file included) and its output. First it checks that the scan sees into the database at all: the
 * owner credential's name, which n8n stores in plain text, must be found there.
 */
export function assertNoKeyLeft(n8n: N8nUserFolder, keys: Record<string, string>): void {
	const control = findSecrets({ 'credential name': SANDBOX_CREDENTIALS.owner.name }, [n8n.dir], []);
	assert.ok(control.some((hit) => hit.includes('database.sqlite')), `the scan did not find the credential name in n8n's database: ${control.join('; ') || 'no hits'}`);
	assert.deepEqual(findSecrets(keys, [n8n.root], n8n.outputs()), []);
}

/**
 * Where any of the secrets occurs: in the files under `paths` (read as bytes, so sqlite databases and their WAL
 * files too) and in the given texts. Each hit names the secret by its role and the place.
 */
export function findSecrets(secrets: Record<string, string>, paths: string[], texts: Array<{ name: string; text: string }>): string[] {
	const hits: string[] = [];
	const needles = Object.entries(secrets).map(([role, secret]) => ({ role, bytes: Buffer.from(secret, 'utf8') }));
	for (const file of paths.flatMap(filesUnder)) {
		const content = readFileSync(file);
		for (const needle of needles) if (content.includes(needle.bytes)) hits.push(`the ${needle.role} key in ${file}`);
	}
	for (const { name, text } of texts) {
		for (const [role, secret] of Object.entries(secrets)) if (text.includes(secret)) hits.push(`the ${role} key in ${name}`);
	}
	return hits;
}

/**
 * A value with every signed file link cut before its query: the sandbox signs an order's links per hour of its clock
 * (sandbox/files/), so two reads of one order an hour boundary apart differ only there.
 */
export function withoutLinkSignatures<T>(value: T): T {
	return JSON.parse(JSON.stringify(value), (_key, field: unknown) =>
		typeof field === 'string' && /^https?:\/\/[^?\s]+\?expires=\d+&signature=[0-9a-f]+$/.test(field) ? field.split('?')[0] : field,
	) as T;
}

/** An order as Simplify gives it (on by default from the node's version 2): it holds the API's values, without the raw lists. */
export function assertSimplifiedOrder(simplified: Record<string, unknown>, order: Record<string, unknown>): void {
	const [item, apiOrder] = withoutLinkSignatures([simplified, order]);
	for (const key of ['id', 'name', 'type', 'status', 'level', 'sourceLanguage', 'targetLanguage', 'createdAt', 'projectId', 'folderId']) {
		assert.deepEqual(item[key], apiOrder[key], `order.${key}`);
	}
	const docs = apiOrder.orderDocs as Array<Record<string, unknown>>;
	assert.deepEqual(item.documents, docs.map((doc) => ({ type: doc.type, name: doc.name, url: doc.url })));
	const events = apiOrder.deliveryEvents as Array<Record<string, unknown>>;
	assert.equal(item.deliveryEventCount, events.length);
	assert.equal(item.finance, undefined, 'finance data left out');
	assert.deepEqual([item.orderDocs, item.deliveryEvents], [undefined, undefined], 'the raw lists left out');
}
