// Runs a webhook trigger's real `webhook()` through n8n-core's WebhookContext behind a real HTTP server, and the
// execution it starts through n8n-core's WorkflowExecute, the way n8n 2.40's production webhooks do (read in n8n's
// live-webhooks.js, webhook-helpers.js and workflow-runner.js):
// - only the registered method reaches the node (n8n answers 404 for another, without calling it);
// - the body is parsed by content type (JSON into `body`, the bytes kept as `rawBody`); malformed JSON is a 400;
// - each request builds the workflow from the database copy of its static data; what webhook() changes there does
//   not last: the execution it starts reloads the static data from the database (WorkflowRunner.run ->
//   prepareNewExecution with loadStaticData), and that copy is the one saved at its end;
// - `noWebhookResponse` means the node answered itself, else n8n answers as its 'onReceived' mode does (onReceivedAnswer);
// - the started execution begins with the trigger holding webhook()'s items; a node with execute() runs it on them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { Workflow, deepCopy } from 'n8n-workflow';
import { WebhookContext } from 'n8n-core';
import { OllangCallbackTrigger } from '../../nodes/OllangCallbackTrigger/OllangCallbackTrigger.node';
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
	 * The same workflow after n8n started again: its id and node, a node type loaded afresh (a new process's memory),
	 * and n8n's database (the deduplication store) as the earlier receiver left it.
	 */
	restartOf?: WebhookReceiver;
	/** 'webhook' (production URL, default) or 'manual' (the editor's test URL). */
	mode?: 'webhook' | 'manual';
}

export interface WebhookReceiver {
	/** The production URL of the node's webhook. */
	readonly url: string;
	/** What the trigger emitted in each execution that emitted something, in the order they started. */
	readonly emissions: IDataObject[][];
	/** Executions webhook() started (one that emitted nothing counts too). */
	readonly executionsStarted: number;
	readonly workflowId: string;
	close(): Promise<void>;
}

let receiverCount = 0;

/** The node type as a new n8n process loads it: its module state (the in-memory claims) starts empty. */
function freshNodeType(): INodeType {
	let loaded: INodeType | undefined;
	jest.isolateModules(() => {
		const module = require('../../nodes/OllangCallbackTrigger/OllangCallbackTrigger.node') as typeof import('../../nodes/OllangCallbackTrigger/OllangCallbackTrigger.node');
		loaded = new module.OllangCallbackTrigger();
	});
	return loaded!;
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

export async function createWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
	await getRuntime();
	const nodeType = options.restartOf ? freshNodeType() : (nodeTypes.getByName(OLLANG_CALLBACK_TRIGGER_NODE_TYPE) as INodeType);
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
		webhookId: `webhook-${receiverCount}`,
	};
	const path = `${node.webhookId}/${String(description.path)}`;
	/** The workflow's static data in n8n's database: nothing a webhook does changes it. */
	const saved: IDataObject = {};
	const emissions: IDataObject[][] = [];
	let executionsStarted = 0;

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

	const handle = async (req: IncomingMessage, res: ServerResponse, raw: Buffer) => {
		const body = parse(req, raw);
		if (body === undefined) return json(res, 400, { message: 'Failed to parse request body' });
		const url = new URL(req.url ?? '/', 'http://harness');
		// What express and n8n's parser put on the request the node reads.
		const request = Object.assign(req, { body, rawBody: raw, query: Object.fromEntries(url.searchParams), params: {} });
		const workflow = new Workflow({
			id: workflowId,
			name: 'Harness webhook workflow',
			nodes: [deepCopy(node)],
			connections: {},
			active: true,
			nodeTypes,
			staticData: deepCopy(saved),
			settings: { executionOrder: 'v1' },
		});
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
			// n8n answers once the execution has started; here once it has run, so a test sees what it emitted.
			if (result.workflowData !== undefined) {
				executionsStarted++;
				const run = await runStartedExecution(
					{ id: workflowId, nodes: [deepCopy(node)], connections: {}, staticData: deepCopy(saved), settings: { executionOrder: 'v1' } },
					node.name,
					result.workflowData[0],
					credential.credentialsById,
					mode,
				);
				const emitted = run.data.resultData.runData[node.name]?.[0]?.data?.main?.[0] ?? [];
				if (emitted.length > 0) emissions.push(emitted.map((item) => item.json));
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
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/${path}`;
	return {
		url,
		emissions,
		get executionsStarted() {
			return executionsStarted;
		},
		workflowId,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
