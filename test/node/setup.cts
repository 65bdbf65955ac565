// Shared by the Ollang node's operation tests: one in-process sandbox per test file, the node run through
// the real n8n engine (test/harness/engine.cts), and a check that no API key leaks into what a run leaves behind.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import type { IDataObject, INodeExecutionData, INodeParameters, WorkflowExecuteMode } from 'n8n-workflow';
import { startSandbox } from '../../sandbox/index.cts';
import type { Sandbox, SandboxOptions } from '../../sandbox/index.cts';
import { deduplicationStore, runNode } from '../harness/engine.cts';
import { forgetSentItems } from '../harness/secondProcess.cts';
import type { RunNodeResult } from '../harness/engine.cts';

export type KeyName = 'owner' | 'billing' | 'member';

/** What a skipped item says of an earlier send this process remembers: when, and in which execution. */
export const sentInThisProcess = (): Record<string, unknown> => ({ appliedAt: expect.any(String) as unknown, appliedInExecution: expect.any(String) as unknown });

/** Starts a sandbox before the file's tests and closes it after; faults and the request log reset per test. */
export function useSandbox(options: SandboxOptions = {}): () => Sandbox {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox({ quiet: true, ...options });
	});
	afterAll(async () => {
		await sandbox?.close();
	});
	beforeEach(() => {
		sandbox?.faults.clear();
		sandbox?.requests.reset();
		// n8n's deduplication table is per node of a saved workflow; each test is a new workflow.
		deduplicationStore.clear();
		forgetSentItems();
	});
	return () => {
		if (!sandbox) throw new Error('sandbox not started');
		return sandbox;
	};
}

export interface RunOptions {
	items?: INodeExecutionData[];
	/** A sandbox key name, or a literal key (e.g. a wrong one). Default: owner. */
	key?: KeyName | string;
	/** Default: the sandbox's base URL. */
	baseUrl?: string;
	continueOnFail?: boolean;
	/** The Ollang node's version; default the latest. */
	typeVersion?: number;
	/** The workflow's static data (what n8n keeps between executions); changed by the run. */
	staticData?: IDataObject;
	/** The execution's mode (default manual), as n8n sets it: 'webhook', 'trigger', 'integrated', 'chat', ... */
	mode?: WorkflowExecuteMode;
	/** The node's Retry On Fail: tries in all. */
	retryOnFail?: number;
	/** n8n's Retry of this failed run (mode 'retry'), with the static data given (saved or original workflow). */
	retryOf?: Run;
	/** Another process's copy of the node (test/harness/secondProcess.cts); default: this process's. */
	nodeTypeName?: string;
}

export interface Run extends RunNodeResult {
	/** The json of every output item. */
	json: Array<Record<string, unknown>>;
}

export async function run(sandbox: Sandbox, parameters: INodeParameters, options: RunOptions = {}): Promise<Run> {
	const key = options.key ?? 'owner';
	const apiKey = key in sandbox.keys ? sandbox.keys[key as KeyName] : key;
	const result = await runNode({
		parameters,
		items: options.items,
		credentials: { baseUrl: options.baseUrl ?? sandbox.baseUrl, apiKey },
		continueOnFail: options.continueOnFail,
		typeVersion: options.typeVersion,
		staticData: options.staticData,
		mode: options.mode,
		...(options.nodeTypeName ? { nodeTypeName: options.nodeTypeName } : {}),
		...(options.retryOnFail ? { retryOnFail: { maxTries: options.retryOnFail } } : {}),
		...(options.retryOf ? { retryOf: options.retryOf.run } : {}),
	});
	const json = result.items.map((item) => item.json as Record<string, unknown>);
	assertNoKeyLeak(result, [...Object.values(sandbox.keys), apiKey]);
	return { ...result, json };
}

/** A resource locator value given by ID. */
export function byId(value: string): INodeParameters {
	return { __rl: true, mode: 'id', value };
}

/** Fails when any API key appears in the run's data, output or error (every property, not only the JSON form). */
export function assertNoKeyLeak(result: RunNodeResult, keys: string[]): void {
	const texts = [
		JSON.stringify(result.run),
		inspect(result.run, { depth: 12, showHidden: true }),
		result.error ? inspect(result.error, { depth: 12, showHidden: true }) : '',
		result.error?.stack ?? '',
	];
	for (const key of keys.filter((candidate) => candidate.length >= 6)) {
		for (const text of texts) {
			if (text.includes(key)) throw new Error(`An API key appears in the run's data, output or error`);
		}
	}
}

/** The error of a failed run, with the fields NodeApiError and NodeOperationError carry. */
export function failure(result: RunNodeResult): {
	name: string;
	message: string;
	description: string;
	httpCode?: string | null;
	itemIndex?: number;
} {
	const error = result.error as
		| (Error & { description?: string | null; httpCode?: string | null; context?: { itemIndex?: number } })
		| undefined;
	if (!error) throw new Error(`Expected the node to fail; it produced ${result.items.length} items`);
	return {
		name: error.name,
		message: error.message,
		description: error.description ?? '',
		httpCode: error.httpCode,
		itemIndex: error.context?.itemIndex,
	};
}

/** Every output item carries the index of the input item it came from. */
export function pairedIndexes(result: RunNodeResult): Array<number | number[]> {
	return result.items.map((item) => {
		const paired = item.pairedItem;
		if (paired === undefined) throw new Error('An output item has no pairedItem');
		if (typeof paired === 'number') return paired;
		if (Array.isArray(paired)) return paired.map((entry) => entry.item);
		return paired.item;
	});
}

export interface StubRequest {
	method: string;
	url: string;
	apiKey?: string;
	headers: IncomingMessage['headers'];
	body: Buffer;
}

export interface Stub {
	baseUrl: string;
	requests: StubRequest[];
	close(): Promise<void>;
}

/** A local server for answers the sandbox never gives (redirects, other error shapes); records each request. */
export async function startStub(handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<Stub> {
	const requests: StubRequest[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const body = Buffer.concat(chunks);
			requests.push({
				method: req.method ?? '',
				url: req.url ?? '',
				apiKey: req.headers['x-api-key'] as string | undefined,
				headers: req.headers,
				body,
			});
			handler(req, res, body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
