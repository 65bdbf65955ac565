// Workflows of several nodes, run through the real engine against an in-process sandbox.
import { inspect } from 'node:util';
import type { IConnections, INode, INodeExecutionData, INodeParameters, IPairedItemData, IRun } from 'n8n-workflow';
import type { Sandbox } from '../../sandbox/index.cts';
import { HARNESS_CREDENTIAL, OLLANG_CREDENTIAL_TYPE, OLLANG_NODE_TYPE, runWorkflow, testItemsNode } from '../harness/engine.cts';
import type { RunWorkflowOptions } from '../harness/engine.cts';

// One sandbox per test file (faults and request log reset per test), and resource locators by ID: as the operation tests.
export { byId, useSandbox } from '../node/setup.cts';

/** An Ollang node as the editor saves it, using the credential the run provides. */
export function ollangNode(name: string, parameters: INodeParameters, extra: Partial<INode> = {}): INode {
	return {
		id: `node-${name}`,
		name,
		type: OLLANG_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [OLLANG_CREDENTIAL_TYPE]: { ...HARNESS_CREDENTIAL } },
		...extra,
	};
}

/** Connects the nodes one after the other on their first output. */
export function chain(nodes: INode[]): IConnections {
	const connections: IConnections = {};
	for (let index = 1; index < nodes.length; index++) {
		connections[nodes[index - 1].name] = { main: [[{ node: nodes[index].name, type: 'main', index: 0 }]] };
	}
	return connections;
}

/** Runs Test Items (with the given items) followed by the nodes, with the sandbox's key of that name or a literal key. */
export async function runChain(
	sandbox: Sandbox,
	items: INodeExecutionData[],
	nodes: INode[],
	options: { apiKey?: string; connections?: IConnections; mode?: RunWorkflowOptions['mode'] } = {},
): Promise<IRun> {
	const allNodes = [testItemsNode(items), ...nodes];
	const apiKey = options.apiKey ?? sandbox.keys.owner;
	const run = await runWorkflow(
		{ nodes: allNodes, connections: options.connections ?? chain(allNodes) },
		{
			credentials: {
				[HARNESS_CREDENTIAL.id]: { type: OLLANG_CREDENTIAL_TYPE, data: { baseUrl: sandbox.baseUrl, apiKey } },
			},
			mode: options.mode,
		},
	);
	expectNoKeyIn(run, [...Object.values(sandbox.keys), apiKey]);
	return run;
}

/** Fails when an API key appears anywhere in what the execution keeps (data, errors, their hidden properties). */
export function expectNoKeyIn(run: IRun, keys: string[]): void {
	const kept = [JSON.stringify(run), inspect(run, { depth: 14, showHidden: true })];
	const leaked = keys.filter((key) => key.length >= 6 && kept.some((text) => text.includes(key)));
	expect(leaked).toEqual([]);
}

/** The input item index each output item is paired with. */
export function pairedIndexes(items: INodeExecutionData[]): number[] {
	return items.map((item) => {
		const paired = item.pairedItem;
		const first: IPairedItemData | number | undefined = Array.isArray(paired) ? paired[0] : paired;
		if (first === undefined) throw new Error('An output item has no pairedItem');
		return typeof first === 'number' ? first : first.item;
	});
}

export function jsonOf(items: INodeExecutionData[]): Array<Record<string, unknown>> {
	return items.map((item) => item.json as Record<string, unknown>);
}
