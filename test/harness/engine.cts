// Runs nodes through the real n8n engine in-process: n8n-core's WorkflowExecute on an n8n-workflow Workflow,
// node types compiled from our sources, credentials applied by the credential type's own `authenticate`,
// expressions resolved between nodes, binary data in n8n's filesystem store. No part of n8n is mocked.
import type {
	IBinaryData,
	ICredentialDataDecryptedObject,
	IConnections,
	IDataObject,
	ExecutionError,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeTypes,
	IPinData,
	IRun,
	IWorkflowBase,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { BINARY_ENCODING, NodeConnectionTypes, Workflow, createRunExecutionData, deepCopy } from 'n8n-workflow';
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import {
	OLLANG_NODE_TYPE,
	TEST_ITEMS_NODE_TYPE,
	createAdditionalData,
	createCredentialsHelper,
	getRuntime,
	latestVersion,
	nodeTypes,
	ollangCredential,
} from './runtime.cts';
import type { CredentialsById } from './runtime.cts';
import { testItemsNode } from './test-items-node.cts';
import type { TestInputItem } from './test-items-node.cts';

export {
	HARNESS_CREDENTIAL,
	OLLANG_CREDENTIAL_TYPE,
	OLLANG_NODE_TYPE,
	OLLANG_TRIGGER_NODE_TYPE,
	TEST_ITEMS_NODE_TYPE,
	registerCredentialType,
	registerNodeType,
} from './runtime.cts';
export type { CredentialsById } from './runtime.cts';
export { credentialDecryptions } from './credentials-helper.cts';
export { deduplicationStore } from './runtime.cts';
export { binaryInputItem, testItemsNode } from './test-items-node.cts';
export type { TestInputItem } from './test-items-node.cts';

export interface WorkflowDefinition {
	nodes: INode[];
	connections: IConnections;
	pinData?: IPinData;
	settings?: IWorkflowSettings;
	staticData?: IDataObject;
	name?: string;
	/** The workflow's id (n8n's deduplication store keeps entries per workflow). */
	id?: string;
}

export interface RunWorkflowOptions {
	credentials: CredentialsById;
	/** 'manual' (default) is a run from the editor; 'trigger' or 'cli' are production-like. */
	mode?: WorkflowExecuteMode;
	/** Node to start from. Default: the first Test Items node, else the node n8n would pick (a trigger). */
	startNode?: string;
	/** The execution's id (default: a new one); a waiting execution's resume URL names it. */
	executionId?: string;
}

let executionCounter = 0;

/**
 * Executes the workflow the way n8n runs one (manual mode by default) and resolves with its run data, failed
 * or not. Rejects only where n8n would not start at all: WorkflowHasIssuesError (e.g. a required parameter
 * left empty) names the node and the issue.
 */
export async function runWorkflow(workflow: WorkflowDefinition, options: RunWorkflowOptions): Promise<IRun> {
	const { instance, execution } = await prepareExecution(workflow, options.credentials, options.mode ?? 'manual', undefined, options.executionId);
	const startNodeName =
		options.startNode ?? workflow.nodes.find((node) => node.type === TEST_ITEMS_NODE_TYPE)?.name;
	const startNode = startNodeName === undefined ? undefined : instance.getNode(startNodeName);
	if (startNodeName !== undefined && !startNode) throw new Error(`Start node "${startNodeName}" is not in the workflow`);
	return await execution.run({ workflow: instance, startNode: startNode ?? undefined, pinData: workflow.pinData });
}

/**
 * n8n's Retry of a failed execution (the executions list), as n8n 2.x's ExecutionService.retry does it: a new
 * execution in mode 'retry' on the failed one's stored data, its error removed and the failed node's last run dropped,
 * so the node runs again from the stack the failure left. `workflow.staticData` is what that Retry gives it: the
 * workflow's current static data ("with currently saved workflow") or the one stored with the execution ("with
 * original workflow", from before the failed run).
 */
export async function retryWorkflow(failed: IRun, workflow: WorkflowDefinition, credentials: CredentialsById, executionId?: string): Promise<IRun> {
	// Stored executions are JSON: the retry reads a copy, not the objects of the run that failed.
	const data = JSON.parse(JSON.stringify(failed.data)) as IRun['data'];
	const { lastNodeExecuted } = data.resultData;
	if (lastNodeExecuted) {
		delete data.resultData.error;
		const runs = data.resultData.runData[lastNodeExecuted];
		if (runs && runs.length > 0 && runs[runs.length - 1].error !== undefined) runs.pop();
	}
	const { instance, execution } = await prepareExecution(workflow, credentials, 'retry', data, executionId);
	return await execution.processRunExecutionData(instance);
}

/**
 * The execution a webhook starts, as n8n 2.x's executeWebhook and WorkflowRunner build it: the webhook node on the
 * stack holding the items webhook() returned, run by WorkflowExecute (which calls the node's execute() with them when
 * it has one, else passes them on). `workflow.staticData` is what the runner loads from the database for it.
 */
export async function runStartedExecution(
	workflow: WorkflowDefinition,
	startNodeName: string,
	items: INodeExecutionData[],
	credentials: CredentialsById,
	mode: WorkflowExecuteMode = 'webhook',
	/** The node types of the process the execution runs in (default: the harness's): one loaded afresh after a restart. */
	types?: INodeTypes,
): Promise<IRun> {
	const startNode = workflow.nodes.find((node) => node.name === startNodeName);
	if (startNode === undefined) throw new Error(`Start node "${startNodeName}" is not in the workflow`);
	const data = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node: deepCopy(startNode), data: { main: [items] }, source: null }] },
	});
	const { instance, execution } = await prepareExecution(workflow, credentials, mode, data, undefined, types);
	return await execution.processRunExecutionData(instance);
}

/**
 * A waiting execution going on, as n8n 2.x resumes one: `data` is its stored run data as n8n reads it back (the
 * caller has already done what the resuming path does to it), run by WorkflowExecute.processRunExecutionData.
 */
export async function continueExecution(
	workflow: WorkflowDefinition,
	data: IRun['data'],
	credentials: CredentialsById,
	mode: WorkflowExecuteMode,
	executionId?: string,
): Promise<IRun> {
	const { instance, execution } = await prepareExecution(workflow, credentials, mode, data, executionId);
	return await execution.processRunExecutionData(instance);
}

async function prepareExecution(
	workflow: WorkflowDefinition,
	credentials: CredentialsById,
	mode: WorkflowExecuteMode,
	runExecutionData?: IRun['data'],
	givenExecutionId?: string,
	types?: INodeTypes,
): Promise<{ instance: Workflow; execution: WorkflowExecute }> {
	const runtime = await getRuntime();
	const executionId = givenExecutionId ?? `harness-${process.pid}-${++executionCounter}`;
	const now = new Date();
	const workflowData: IWorkflowBase = {
		id: workflow.id ?? 'harness-workflow',
		name: workflow.name ?? 'Harness workflow',
		active: false,
		isArchived: false,
		activeVersionId: null,
		createdAt: now,
		updatedAt: now,
		// n8n builds each execution from stored data; a copy keeps the caller's node objects untouched.
		nodes: deepCopy(workflow.nodes),
		connections: workflow.connections,
		settings: { executionOrder: 'v1', ...workflow.settings },
		staticData: workflow.staticData,
		pinData: workflow.pinData,
	};
	const instance = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes: workflowData.nodes,
		connections: workflowData.connections,
		active: false,
		nodeTypes: types ?? runtime.nodeTypes,
		staticData: workflowData.staticData,
		settings: workflowData.settings,
		pinData: workflowData.pinData,
	});
	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	const additionalData = createAdditionalData({
		credentialsHelper: createCredentialsHelper(credentials),
		hooks,
		executionId,
		workflowId: workflowData.id,
	});
	return { instance, execution: new WorkflowExecute(additionalData, mode, runExecutionData) };
}

export interface RunNodeOptions {
	/** The node's parameters (resource, operation, ...). */
	parameters: INodeParameters;
	/** Input items (default: one item with json {}). Binary may be inline base64 or already stored. */
	items?: INodeExecutionData[];
	/** Data of our `ollangApi` credential. */
	credentials: { baseUrl: string; apiKey: string } & ICredentialDataDecryptedObject;
	/** Sets the node's "On Error" to "Continue" (regular output), as the editor's setting does. */
	continueOnFail?: boolean;
	/** Default: our Ollang node. */
	nodeTypeName?: string;
	typeVersion?: number;
	/** Default: the node type's display name. */
	nodeName?: string;
	mode?: WorkflowExecuteMode;
	/** The workflow's static data, as n8n loads it for an execution; the run changes this object as n8n's would. */
	staticData?: IDataObject;
	/** The node's Retry On Fail setting: tries in all (no wait between them). */
	retryOnFail?: { maxTries: number };
	/** Instead of a new execution: n8n's Retry of this failed run (see retryWorkflow). */
	retryOf?: IRun;
}

export interface RunNodeResult {
	/** Items on the node's first output. */
	items: INodeExecutionData[];
	/** Every output of the node, in order. */
	outputs: INodeExecutionData[][];
	/**
	 * The node's error when it failed (and did not continue on fail): n8n's stored copy of the thrown
	 * NodeApiError/NodeOperationError (message, description, httpCode, context, ...), as in the run data.
	 */
	error?: ExecutionError;
	run: IRun;
	nodeName: string;
}

/** Runs one node on the given items (Test Items -> node), with our credential holding the given data. */
export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	const typeName = options.nodeTypeName ?? OLLANG_NODE_TYPE;
	const nodeType = nodeTypes.getByName(typeName);
	const typeVersion = options.typeVersion ?? latestVersion(nodeType);
	const nodeName = options.nodeName ?? nodeType.description.displayName;
	const source = testItemsNode(await toTestInputItems(options.items ?? [{ json: {} }]), 'Test Items');
	const credential = ollangCredential(options.credentials);
	const node: INode = {
		id: 'node-under-test',
		name: nodeName,
		type: typeName,
		typeVersion,
		position: [200, 0],
		parameters: options.parameters,
		credentials: credential.nodeCredentials,
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(options.retryOnFail ? { retryOnFail: true, maxTries: options.retryOnFail.maxTries, waitBetweenTries: 0 } : {}),
	};
	const workflow: WorkflowDefinition = {
		nodes: [source, node],
		connections: {
			[source.name]: { [NodeConnectionTypes.Main]: [[{ node: nodeName, type: NodeConnectionTypes.Main, index: 0 }]] },
		},
		staticData: options.staticData,
	};
	const run = options.retryOf
		? await retryWorkflow(options.retryOf, workflow, credential.credentialsById)
		: await runWorkflow(workflow, { credentials: credential.credentialsById, mode: options.mode });
	const task = run.data.resultData.runData[nodeName]?.[0];
	const outputs = (task?.data?.[NodeConnectionTypes.Main] ?? []).map((output) => output ?? []);
	const error = task?.error ?? run.data.resultData.error;
	return { items: outputs[0] ?? [], outputs, error, run, nodeName };
}

/** Items a node produced in a run (first run of the node, given output). */
export function nodeOutput(run: IRun, nodeName: string, outputIndex = 0): INodeExecutionData[] {
	const task = run.data.resultData.runData[nodeName]?.[0];
	if (!task) throw new Error(`Node "${nodeName}" did not run`);
	return task.data?.[NodeConnectionTypes.Main]?.[outputIndex] ?? [];
}

/** The bytes of an item's binary property, wherever n8n stored them. */
export async function readBinary(item: INodeExecutionData, propertyName = 'data'): Promise<Buffer> {
	const binary = item.binary?.[propertyName];
	if (!binary) {
		const present = Object.keys(item.binary ?? {}).join(', ') || 'none';
		throw new Error(`Item has no binary property "${propertyName}" (present: ${present})`);
	}
	return await readBinaryData(binary);
}

async function readBinaryData(binary: IBinaryData): Promise<Buffer> {
	const runtime = await getRuntime();
	return await runtime.binaryData.getAsBuffer(binary);
}

async function toTestInputItems(items: INodeExecutionData[]): Promise<TestInputItem[]> {
	return await Promise.all(
		items.map(async (item) => {
			if (!item.binary) return { json: item.json };
			const binary: NonNullable<TestInputItem['binary']> = {};
			for (const [key, value] of Object.entries(item.binary)) {
				const bytes = await readBinaryData(value);
				binary[key] = { data: bytes.toString(BINARY_ENCODING), mimeType: value.mimeType, fileName: value.fileName };
			}
			return { json: item.json, binary };
		}),
	);
}

