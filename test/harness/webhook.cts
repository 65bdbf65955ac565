// Runs a webhook trigger's real `webhook()` through n8n-core's WebhookContext behind a real HTTP server, and the
// execution it starts through n8n-core's WorkflowExecute, the way n8n 2.40's production webhooks do (read in n8n's
// live-webhooks.js, webhook-helpers.js and workflow-runner.js):
// - only the registered method reaches the node (n8n answers 404 for another, without calling it);
// - the body is parsed by content type (JSON into `body`, the bytes kept as `rawBody`); malformed JSON is a 400;
// - each request builds the workflow from the database copy of its static data; what webhook() changes there does
//   not last: the execution it starts reloads the static data from the database (WorkflowRunner.run ->
//   prepareNewExecution with loadStaticData), and that copy is the one saved at its end;
// - `noWebhookResponse` means the node answered itself, else n8n answers as its 'onReceived' mode does
//   (onReceivedAnswer), once the execution has started (not when it ends: `idle()` waits for that);
// - the started execution begins with the trigger holding webhook()'s items; a node with execute() runs it on them.
// A node that also has trigger() (the callback trigger's sweep) is activated beside its webhook, as n8n 2.40's
// ActiveWorkflowManager.add does on the leader main (read in active-workflow-manager.js, n8n-core's
// active-workflow-triggers.js and triggers-and-pollers.js, trigger-execution-context.factory.js):
// - one long-lived active Workflow built from the database's static data, and one TriggerContext ('trigger' mode,
//   activation 'activate', or 'init' when n8n starts again) for the whole activation; trigger() is awaited;
// - the static data is saved after the activation, and on each emit (saveStaticData writes only what changed);
//   stopping n8n (closeFunction) saves nothing;
// - emit() starts an execution of the published workflow (its static data read from the database) with the
//   trigger holding the emitted items, in 'trigger' mode: the node's execute() runs on them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	ITriggerResponse,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeHelpers, Workflow, deepCopy } from 'n8n-workflow';
import { TriggerContext, WebhookContext } from 'n8n-core';
import { OllangCallbackTrigger } from '../../nodes/OllangCallbackTrigger/OllangCallbackTrigger.node';
import { sweepAndEmit } from '../../nodes/OllangCallbackTrigger/sweep';
import { SWEEP_HANDOVER_WAIT_MS } from '../../nodes/shared/waits';
import { runStartedExecution } from './engine.cts';
import { createAdditionalData, createCredentialsHelper, getRuntime, nodeTypes, ollangCredential, registerNodeType } from './runtime.cts';

const packageName = (require('../../package.json') as { name: string }).name;
export const OLLANG_CALLBACK_TRIGGER_NODE_TYPE = `${packageName}.ollangCallbackTrigger`;
registerNodeType(OLLANG_CALLBACK_TRIGGER_NODE_TYPE, new OllangCallbackTrigger());

/** n8n's default N8N_PAYLOAD_SIZE_MAX (16 MiB). */
const PAYLOAD_LIMIT = 16 * 1024 * 1024;

export interface WebhookReceiverOptions {
	parameters: INodeParameters;
	credentials: { baseUrl: string; apiKey: string } & ICredentialDataDecryptedObject;
	/**
	 * The same workflow in another n8n process: its id and node, a node type loaded afresh (a new process's memory),
	 * and n8n's database (the deduplication store, the workflow's static data) as the earlier receiver left it. With
	 * the earlier one closed, n8n started again (on the same port when it is free, so Callback URLs given before
	 * still reach it); with it still open, a second process beside it.
	 */
	restartOf?: WebhookReceiver;
	/** 'webhook' (production URL, default) or 'manual' (the editor's test URL: no activation). */
	mode?: 'webhook' | 'manual';
	/**
	 * 'main' (default): the leader main, which activates the node's trigger() beside its webhook. 'webhook': a
	 * webhook process (queue mode), which only takes webhooks (n8n runs trigger() on the leader only).
	 */
	role?: 'main' | 'webhook';
}

/**
 * How n8n loses the execution of a sweep's emission: `refused`, it says it cannot run it (its database not ready);
 * `dropped`, it takes it and never runs it or says so (a queue job lost, the main gone before it started); `late`,
 * it runs it after the sweep stopped waiting for it.
 */
export type EmissionLoss = 'refused' | 'dropped' | 'late';

/** How much later than the sweep's wait a `late` execution starts. */
const LATE_BY_WAITS = 3;

/** One execution the receiver started: what started it, what the trigger emitted, the error it failed with. */
export interface ExecutionRecord {
	startedBy: 'webhook' | 'trigger';
	/** The trigger's input items (webhook()'s or the emitted ones). */
	input: IDataObject[];
	/** What the trigger node output (its first run). */
	emitted: IDataObject[];
	/** The execution's error message, when it failed. */
	error?: string;
}

export interface WebhookReceiver {
	/** The production URL of the node's webhook. */
	readonly url: string;
	/** What the trigger emitted in each execution that emitted something, in the order they ended. */
	readonly emissions: IDataObject[][];
	/** Executions webhook() started (one that emitted nothing counts too). */
	readonly executionsStarted: number;
	/** Executions whose callback the node answered itself before n8n started them (n8n answers after the start). */
	readonly answeredBeforeStart: number;
	/** Every execution that ended (webhook's and trigger's), in the order they ended. */
	readonly executions: ExecutionRecord[];
	/** Errors the trigger reported (emitError, saveFailedExecution). */
	readonly triggerErrors: Error[];
	readonly workflowId: string;
	/** The workflow's static data as n8n's database holds it. */
	readonly savedStaticData: IDataObject;
	/**
	 * One sweep of the activated trigger now, as its own loop runs each after the first (sweep.ts sweepAndEmit on the
	 * activation's TriggerContext: what it found, and what earlier sweeps handed over unsettled, emitted in one
	 * execution), and the executions then under way awaited. Resolves with the items it handed over. With `lose`,
	 * n8n loses that execution (EmissionLoss). Throws when the receiver has no activation (manual mode, a webhook
	 * process) or its trigger() started no sweep.
	 */
	sweep(lose?: EmissionLoss): Promise<IDataObject[]>;
	/** Resolves once every execution started so far (and any they lead to) has ended. */
	idle(): Promise<void>;
	/** idle(), once the executions n8n took and starts late have started too. */
	settled(): Promise<void>;
	/** n8n stopping: the trigger closed (nothing saved), the server closed, executions under way finished. */
	close(): Promise<void>;
}

interface Internals {
	database: { staticData: IDataObject };
	port: number;
	closed: boolean;
}

const internals = new WeakMap<WebhookReceiver, Internals>();
let receiverCount = 0;

/**
 * The node type as a new n8n process loads it: its module state (the in-memory claims, memory, budgets) starts empty.
 * The packages it imports (n8n-workflow) are the ones the harness's n8n-core uses, as in one n8n process (and loaded
 * once: evaluating them again per restart was most of a restart's time).
 */
function freshModules(): { nodeType: INodeType; sweep: typeof sweepAndEmit } {
	let loaded: { nodeType: INodeType; sweep: typeof sweepAndEmit } | undefined;
	const workflowPackage = require('n8n-workflow') as object;
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => workflowPackage);
		const node = require('../../nodes/OllangCallbackTrigger/OllangCallbackTrigger.node') as typeof import('../../nodes/OllangCallbackTrigger/OllangCallbackTrigger.node');
		const sweep = require('../../nodes/OllangCallbackTrigger/sweep') as typeof import('../../nodes/OllangCallbackTrigger/sweep');
		loaded = { nodeType: new node.OllangCallbackTrigger(), sweep: sweep.sweepAndEmit };
	});
	jest.dontMock('n8n-workflow');
	return loaded!;
}

/** The node types of one process: the callback trigger as this process loaded it, the others as the harness's. */
function processNodeTypes(nodeType: INodeType): INodeTypes {
	return {
		getByName: (name) => (name === OLLANG_CALLBACK_TRIGGER_NODE_TYPE ? nodeType : nodeTypes.getByName(name)),
		getByNameAndVersion: (name, version) =>
			name === OLLANG_CALLBACK_TRIGGER_NODE_TYPE ? NodeHelpers.getVersionedNodeType(nodeType, version) : nodeTypes.getByNameAndVersion(name, version),
		getKnownTypes: () => ({}),
	};
}

/**
 * What n8n (1.123 to 2.41, webhook-on-received-response-extractor.js) answers in 'onReceived' mode: the
 * description's responseData, read as 'firstEntryJson' when unset, is the answer when it is not empty; then the
 * node's webhookResponse; then n8n's own message.
 */
function onReceivedAnswer(responseData: string | undefined, webhookResponse: unknown): unknown {
	const data = responseData ?? 'firstEntryJson';
	if (data === 'noData') return undefined;
	if (data) return data;
	return webhookResponse ?? { message: 'Workflow was started' };
}

function json(res: ServerResponse, status: number, body: unknown): void {
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
}

async function listen(server: Server, port: number): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const failed = (error: Error) => reject(error);
		server.once('error', failed);
		server.listen(port, '127.0.0.1', () => {
			server.off('error', failed);
			resolve();
		});
	});
}

export async function createWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
	await getRuntime();
	const earlier = options.restartOf === undefined ? undefined : internals.get(options.restartOf);
	const modules = options.restartOf ? freshModules() : { nodeType: nodeTypes.getByName(OLLANG_CALLBACK_TRIGGER_NODE_TYPE) as INodeType, sweep: sweepAndEmit };
	const { nodeType } = modules;
	const types = processNodeTypes(nodeType);
	const mode = options.mode ?? 'webhook';
	const description = nodeType.description.webhooks![0];
	const credential = ollangCredential(options.credentials);
	const credentialsHelper = createCredentialsHelper(credential.credentialsById);
	receiverCount++;
	const workflowId = options.restartOf?.workflowId ?? `harness-webhook-workflow-${receiverCount}`;
	const node: INode = {
		id: 'callback-trigger-under-test',
		name: 'Ollang Callback Trigger',
		type: OLLANG_CALLBACK_TRIGGER_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: options.parameters,
		credentials: credential.nodeCredentials,
		webhookId: options.restartOf ? options.restartOf.url.split('/').at(-2) : `webhook-${receiverCount}`,
	};
	const path = `${node.webhookId}/${String(description.path)}`;
	/** n8n's database: the workflow's static data (nothing a webhook does changes it), shared by its processes. */
	const database = earlier?.database ?? { staticData: {} };
	const emissions: IDataObject[][] = [];
	const executions: ExecutionRecord[] = [];
	const triggerErrors: Error[] = [];
	const pending = new Set<Promise<void>>();
	/** Executions n8n took and starts late (EmissionLoss 'late'). */
	const owed = new Set<Promise<unknown>>();
	let executionsStarted = 0;
	let answeredBeforeStart = 0;

	/** The published workflow as n8n reads it from the database for an execution. */
	const storedWorkflow = () => ({ id: workflowId, nodes: [deepCopy(node)], connections: {}, staticData: deepCopy(database.staticData), settings: { executionOrder: 'v1' as const } });

	/** An execution started with the trigger holding `items`, run to its end in the background (as n8n runs it). */
	const startExecution = (startedBy: ExecutionRecord['startedBy'], items: INodeExecutionData[], executionMode: WorkflowExecuteMode): Promise<IRun> => {
		const input = items.map((item) => item.json);
		const running = runStartedExecution(storedWorkflow(), node.name, items, credential.credentialsById, executionMode, types).then(
			(run) => {
				const emitted = (run.data.resultData.runData[node.name]?.[0]?.data?.main?.[0] ?? []).map((item) => item.json);
				const error = run.data.resultData.error?.message;
				executions.push({ startedBy, input, emitted, ...(error === undefined ? {} : { error }) });
				if (emitted.length > 0) emissions.push(emitted);
				return run;
			},
			(error: Error) => {
				// n8n could not run it at all (a harness limit): recorded as a failed execution, never lost silently.
				executions.push({ startedBy, input, emitted: [], error: `not run: ${error.message}` });
				throw error;
			},
		);
		const tracked = running.then(
			() => undefined,
			() => undefined,
		);
		pending.add(tracked);
		void tracked.finally(() => pending.delete(tracked));
		return running;
	};

	/** n8n's WorkflowStaticDataService.saveStaticData: writes only when something changed. */
	const saveStaticData = (workflow: Workflow) => {
		if (workflow.staticData.__dataChanged !== true) return;
		const copy = deepCopy(workflow.staticData);
		delete copy.__dataChanged;
		database.staticData = copy;
		workflow.staticData.__dataChanged = false;
	};

	/** n8n's body parsing: JSON by content type into `body`, the bytes kept as `rawBody`; malformed JSON is a 400. */
	const parse = (req: IncomingMessage, raw: Buffer): IDataObject | undefined => {
		const isJson = /^application\/(?:[\w.+-]+\+)?json/i.test(req.headers['content-type'] ?? '');
		if (!isJson) return raw.length > 0 ? { data: raw.toString('utf8') } : {};
		try {
			return raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as IDataObject) : {};
		} catch {
			return undefined;
		}
	};

	/** The published workflow as n8n loads it from its database for each request and at activation. */
	const workflowAsSaved = () =>
		new Workflow({
			id: workflowId,
			name: 'Harness webhook workflow',
			nodes: [deepCopy(node)],
			connections: {},
			active: true,
			nodeTypes: types,
			staticData: deepCopy(database.staticData),
			settings: { executionOrder: 'v1' },
		});

	const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
		const body = parse(req, raw);
		if (body === undefined) return json(res, 400, { message: 'Failed to parse request body' });
		const url = new URL(req.url ?? '/', 'http://harness');
		// What express and n8n's parser put on the request the node reads.
		const request = Object.assign(req, { body, rawBody: raw, query: Object.fromEntries(url.searchParams), params: {} });
		const workflow = workflowAsSaved();
		const workflowNode = workflow.getNode(node.name) as INode;
		const additionalData = createAdditionalData({ credentialsHelper, workflowId });
		additionalData.httpRequest = request as unknown as IWorkflowExecuteAdditionalData['httpRequest'];
		additionalData.httpResponse = res as unknown as IWorkflowExecuteAdditionalData['httpResponse'];
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: node.name,
			path,
			webhookDescription: description,
			workflowId,
			workflowExecuteAdditionalData: additionalData,
			webhookId: node.webhookId,
		};
		try {
			const context = new WebhookContext(workflow, workflowNode, additionalData, mode, webhookData, [], null);
			const result = await nodeType.webhook!.call(context);
			if (result.workflowData !== undefined) {
				executionsStarted++;
				if (result.noWebhookResponse === true && res.writableEnded) answeredBeforeStart++;
				// n8n answers once the execution has started (WorkflowRunner.run returns its id); it runs on meanwhile.
				startExecution('webhook', result.workflowData[0], mode).catch(() => undefined);
			}
			if (result.noWebhookResponse === true) {
				if (!res.writableEnded) res.end();
				return;
			}
			json(res, 200, onReceivedAnswer(description.responseData, result.webhookResponse));
		} catch (error) {
			if (!res.headersSent) json(res, 500, { code: 0, message: (error as Error).message });
		}
	};

	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size <= PAYLOAD_LIMIT) chunks.push(chunk);
		});
		req.on('end', () => {
			const pathname = new URL(req.url ?? '/', 'http://harness').pathname;
			if (pathname !== `/webhook/${path}`) return json(res, 404, { code: 404, message: 'The requested webhook is not registered.' });
			if (req.method !== 'POST') return json(res, 404, { code: 404, message: `This webhook is not registered for ${req.method} requests.` });
			if (size > PAYLOAD_LIMIT) return json(res, 413, { message: 'request entity too large' });
			void handle(req, res, Buffer.concat(chunks));
		});
	});
	// n8n started again listens where it did; a second process beside a running one (or a busy port) gets its own.
	try {
		await listen(server, earlier?.closed === true ? earlier.port : 0);
	} catch {
		await listen(server, 0);
	}
	const port = (server.address() as AddressInfo).port;
	const url = `http://127.0.0.1:${port}/webhook/${path}`;

	// The leader main activates the workflow: trigger() beside the webhook (ActiveWorkflowManager.add).
	let nextLoss: EmissionLoss | undefined;
	let activation: { context: TriggerContext; workflow: Workflow; response: ITriggerResponse | undefined } | undefined;
	if (mode === 'webhook' && (options.role ?? 'main') === 'main' && nodeType.trigger !== undefined) {
		const workflow = workflowAsSaved();
		const workflowNode = workflow.getNode(node.name) as INode;
		const activationMode: WorkflowActivateMode = options.restartOf ? 'init' : 'activate';
		const context = new TriggerContext(
			workflow,
			workflowNode,
			createAdditionalData({ credentialsHelper, workflowId }),
			'trigger',
			activationMode,
			(data, _responsePromise, donePromise) => {
				// TriggerExecutionContextFactory's emit: save the static data, then run the published workflow; its done
				// promise settles when the execution has ended (or could not start).
				saveStaticData(workflow);
				const loss = nextLoss;
				nextLoss = undefined;
				if (loss === 'refused') return donePromise?.reject(new Error('Database is not ready!'));
				if (loss === 'dropped') return;
				const run = () =>
					startExecution('trigger', data[0], 'trigger').then(
						(ended) => donePromise?.resolve(ended as IRun),
						(error: Error) => donePromise?.reject(error),
					);
				if (loss === undefined) return void run();
				// Started later, while the schedule goes on: idle() awaits it once it started, settled() before.
				const later = new Promise<void>((resolve) => setTimeout(resolve, LATE_BY_WAITS * SWEEP_HANDOVER_WAIT_MS)).then(run);
				owed.add(later);
				void later.finally(() => owed.delete(later));
			},
			(error) => {
				triggerErrors.push(error);
			},
			(error) => {
				triggerErrors.push(error);
			},
		);
		let response: ITriggerResponse | undefined;
		try {
			response = await nodeType.trigger.call(context);
		} catch (error) {
			// The activation failed: n8n removes the webhooks too.
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			throw error;
		}
		// ActiveWorkflowManager.add saves the static data once the activation succeeded.
		saveStaticData(workflow);
		activation = { context, workflow, response };
		// What trigger() hands n8n right after it returns (the activation's first sweep, emitted a moment later) has
		// started its execution by the time this resolves: a timer set now fires after any the node set before.
		await new Promise((resolve) => setTimeout(resolve, 20));
	}

	const own: Internals = { database, port, closed: false };
	const idle = async () => {
		while (pending.size > 0) await Promise.allSettled([...pending]);
	};
	const receiver: WebhookReceiver = {
		url,
		emissions,
		executions,
		triggerErrors,
		get answeredBeforeStart() {
			return answeredBeforeStart;
		},
		get executionsStarted() {
			return executionsStarted;
		},
		get savedStaticData() {
			return deepCopy(database.staticData);
		},
		workflowId,
		async sweep(lose?: EmissionLoss) {
			if (activation === undefined) throw new Error('this receiver has no activated trigger (manual mode, or a webhook process)');
			// trigger() answers a closeFunction only when it started its sweeps (not with Sweep Every 0).
			if (activation.response?.closeFunction === undefined) throw new Error('the activated trigger runs no sweep');
			nextLoss = lose;
			const handed = await modules.sweep.call(activation.context);
			nextLoss = undefined;
			await idle();
			return handed;
		},
		idle,
		async settled() {
			while (owed.size > 0) await Promise.allSettled([...owed]);
			await idle();
		},
		close: async () => {
			if (own.closed) return;
			own.closed = true;
			await activation?.response?.closeFunction?.();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			await idle();
		},
	};
	internals.set(receiver, own);
	return receiver;
}
