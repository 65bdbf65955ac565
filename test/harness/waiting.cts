// A waiting execution of our node (Order > Create and Wait) and what n8n 2.40 does with it, in-process, read in n8n's
// own code (waiting-webhooks.js, webhook-helpers.js, wait-tracker.js; n8n-core workflow-execute.js):
// - the execution is stored as JSON while it waits; each request to its resume URL reads that copy back, drops the
//   waiting node's last run (preserveInputOverride), disables the node and runs its webhook() in a WebhookContext
//   holding the stored run data;
// - webhook() returning no workflowData: the request is answered and the stored execution is left as it was;
// - with workflowData: the node's stack entry takes those items (forwardAllOutputs) and the execution goes on;
// - the wait's time running out (WaitTracker): the stored copy runs on; n8n-core's handleWaitingState disables the
//   node, so its input items pass through and none of its code runs (our node leaves itself a second stack entry,
//   which n8n then runs: nodes/Ollang/actions/order/wait/nextCheck.ts);
// - n8n's Retry of a failed execution (retry()): a new execution on the stored data (engine.cts retryWorkflow).
import type { ICredentialDataDecryptedObject, IDataObject, INode, INodeExecutionData, INodeParameters, INodeType, IRun, IWebhookData, WorkflowExecuteMode } from 'n8n-workflow';
import { NodeConnectionTypes, Workflow, deepCopy } from 'n8n-workflow';
import { WebhookContext } from 'n8n-core';
import type { WorkflowDefinition } from './engine.cts';
import { continueExecution, retryWorkflow, runWorkflow } from './engine.cts';
import { OLLANG_NODE_TYPE, createAdditionalData, createCredentialsHelper, getRuntime, latestVersion, nodeTypes, ollangCredential } from './runtime.cts';
import { testItemsNode } from './test-items-node.cts';

export const WAITING_NODE = 'Create and wait';
export const AFTER_NODE = 'After';
export interface WaitingOptions {
	parameters: INodeParameters;
	credentials: { baseUrl: string; apiKey: string } & ICredentialDataDecryptedObject;
	items?: IDataObject[];
	mode?: WorkflowExecuteMode;
	/** The workflow's id (its static data and n8n's deduplication store are the workflow's): a new one by default. */
	workflowId?: string;
	/** The node's Settings > On Error. */
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
}

export interface RequestOutcome {
	/** What webhook() returned for n8n to answer. */
	answer: unknown;
	/** The execution went on (webhook() returned items). */
	resumed: boolean;
}

export interface WaitingExecution {
	readonly executionId: string;
	/** The execution as stored now: waiting, or finished after a resumption. */
	readonly stored: IRun;
	readonly waiting: boolean;
	/** A request to the resume URL (its body is whatever the caller sends; the node never reads it). */
	request(body?: IDataObject): Promise<RequestOutcome>;
	/** The wait's time ran out: n8n's WaitTracker runs the stored execution on. */
	timeOut(): Promise<void>;
	/** As n8n's WaitTracker does at the wait's time: waits until the stored waitTill has passed, then timeOut(). */
	timeOutWhenDue(): Promise<void>;
	/** n8n's Retry of the stored execution, which failed: from now on this object is the Retry's execution. */
	retry(): Promise<void>;
	/** What the node output in its last run (before a wait: the orders created, or the 'checkAgain' items). */
	output(): INodeExecutionData[];
	/** How many times the node ran (a round of the loop is one more). */
	runs(): number;
	/** Whether the node after it ran (the execution went on past the wait). */
	afterRan(): boolean;
}

let waitingCount = 0;

const ollangNode = () => nodeTypes.getByName(OLLANG_NODE_TYPE) as INodeType;

/** Test Items -> Create and Wait -> After. */
export async function startWaiting(options: WaitingOptions): Promise<WaitingExecution> {
	await getRuntime();
	let executionId = `harness-waiting-${process.pid}-${++waitingCount}`;
	const credential = ollangCredential(options.credentials);
	const source = testItemsNode((options.items ?? [{}]).map((json) => ({ json })), 'Test Items');
	const after = testItemsNode([], AFTER_NODE);
	const node: INode = {
		id: 'create-and-wait-under-test',
		name: WAITING_NODE,
		type: OLLANG_NODE_TYPE,
		typeVersion: latestVersion(nodeTypes.getByName(OLLANG_NODE_TYPE)),
		position: [200, 0],
		parameters: options.parameters,
		credentials: credential.nodeCredentials,
		...(options.onError ? { onError: options.onError } : {}),
	};
	const main = NodeConnectionTypes.Main;
	const workflow: WorkflowDefinition = {
		id: options.workflowId ?? `harness-waiting-workflow-${waitingCount}`,
		nodes: [source, node, after],
		connections: {
			[source.name]: { [main]: [[{ node: WAITING_NODE, type: main, index: 0 }]] },
			[WAITING_NODE]: { [main]: [[{ node: AFTER_NODE, type: main, index: 0 }]] },
		},
	};
	const mode = options.mode ?? 'trigger';
	/** n8n's database copy: JSON, read back for each request and for the time-out. */
	let stored = JSON.parse(JSON.stringify(await runWorkflow(workflow, { credentials: credential.credentialsById, mode, executionId }))) as IRun;
	const readBack = () => JSON.parse(JSON.stringify(stored)) as IRun;
	const isWaiting = () => stored.waitTill !== undefined && stored.waitTill !== null && stored.status === 'waiting';

	const request = async (body: IDataObject = {}): Promise<RequestOutcome> => {
		if (!isWaiting()) throw new Error(`execution ${executionId} is not waiting (n8n answers 409)`);
		const execution = readBack();
		const data = execution.data;
		const entry = data.executionData!.nodeExecutionStack[0];
		entry.node.disabled = true;
		data.waitTill = undefined;
		const lastNode = data.resultData.lastNodeExecuted!;
		data.resultData.runData[lastNode].pop();
		const instance = new Workflow({
			id: workflow.id,
			name: 'Harness waiting workflow',
			nodes: deepCopy(workflow.nodes),
			connections: workflow.connections,
			active: false,
			nodeTypes,
			settings: { executionOrder: 'v1' },
		});
		const workflowNode = instance.getNode(lastNode) as INode;
		const additionalData = createAdditionalData({ credentialsHelper: createCredentialsHelper(credential.credentialsById), executionId, workflowId: workflow.id });
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: lastNode,
			path: '',
			webhookDescription: ollangNode().description.webhooks![0],
			workflowId: workflow.id!,
			workflowExecuteAdditionalData: additionalData,
		};
		additionalData.httpRequest = { body, headers: { 'content-type': 'application/json' }, query: {}, params: {} } as unknown as typeof additionalData.httpRequest;
		const context = new WebhookContext(instance, workflowNode, additionalData, execution.mode, webhookData, [], data);
		const result = await ollangNode().webhook!.call(context);
		if (result.workflowData === undefined) return { answer: result.webhookResponse, resumed: false };
		entry.data.main = result.workflowData;
		entry.metadata = { ...entry.metadata, forwardAllOutputs: true };
		stored = JSON.parse(JSON.stringify(await continueExecution(workflow, data, credential.credentialsById, execution.mode, executionId))) as IRun;
		return { answer: result.webhookResponse, resumed: true };
	};

	const timeOut = async () => {
		if (!isWaiting()) throw new Error(`execution ${executionId} is not waiting`);
		const execution = readBack();
		stored = JSON.parse(JSON.stringify(await continueExecution(workflow, execution.data, credential.credentialsById, execution.mode, executionId))) as IRun;
	};

	const timeOutWhenDue = async () => {
		const due = new Date(stored.waitTill!).getTime() - Date.now();
		if (due >= 0) await new Promise((resolve) => setTimeout(resolve, due + 20));
		await timeOut();
	};

	const retry = async () => {
		if (stored.status !== 'error') throw new Error(`execution ${executionId} did not fail (n8n offers no Retry)`);
		executionId = `harness-waiting-${process.pid}-${++waitingCount}`;
		stored = JSON.parse(JSON.stringify(await retryWorkflow(stored, workflow, credential.credentialsById, executionId))) as IRun;
	};

	const lastRun = (name: string): INodeExecutionData[] => {
		const runs = stored.data.resultData.runData[name] ?? [];
		return runs[runs.length - 1]?.data?.[main]?.[0] ?? [];
	};

	return {
		get executionId() {
			return executionId;
		},
		get stored() {
			return stored;
		},
		get waiting() {
			return isWaiting();
		},
		request,
		timeOut,
		timeOutWhenDue,
		retry,
		output: () => lastRun(WAITING_NODE),
		runs: () => stored.data.resultData.runData[WAITING_NODE]?.length ?? 0,
		afterRan: () => (stored.data.resultData.runData[AFTER_NODE]?.length ?? 0) > 0,
	};
}
