// A test-only start node that emits the items given in its `items` parameter (n8n-nodes-base, with its
// Manual Trigger and Code nodes, is not installed). Inline binary data (base64 in `binary.<key>.data`) is
// stored through n8n's binary data service, so the next node sees binary exactly as a real upstream
// node such as Read File would hand it over.
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { BINARY_ENCODING, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

export const TEST_ITEMS_NODE_TYPE = 'harness.testItems';

/** An input item as tests write it: JSON, and optionally binary given inline as base64. */
export interface TestInputItem {
	json: IDataObject;
	binary?: Record<string, { data: string; mimeType?: string; fileName?: string }>;
}

function isTestInputItem(value: unknown): value is TestInputItem {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
	const { json, binary } = value as Record<string, unknown>;
	const jsonIsObject = typeof json === 'object' && json !== null && !Array.isArray(json);
	const binaryIsValid = binary === undefined || (typeof binary === 'object' && binary !== null);
	return jsonIsObject && binaryIsValid;
}

export class TestItems implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Test Items',
		name: 'testItems',
		group: ['trigger'],
		version: 1,
		description: 'Emits the items of its parameter (engine harness only)',
		defaults: { name: 'Test Items' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{
				displayName: 'Items',
				name: 'items',
				type: 'json',
				default: '[{"json":{}}]',
				description: 'JSON array of { json, binary? } items',
			},
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | unknown[];
		const parsed: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
		if (!Array.isArray(parsed)) {
			throw new NodeOperationError(this.getNode(), 'Parameter "items" must be a JSON array of items');
		}
		const output: INodeExecutionData[] = [];
		for (const [index, item] of parsed.entries()) {
			if (!isTestInputItem(item)) {
				throw new NodeOperationError(this.getNode(), `Item ${index} must be an object with a "json" object`);
			}
			const binary: Record<string, IBinaryData> = {};
			for (const [key, inline] of Object.entries(item.binary ?? {})) {
				binary[key] = await this.helpers.prepareBinaryData(
					Buffer.from(inline.data, BINARY_ENCODING),
					inline.fileName,
					inline.mimeType,
				);
			}
			output.push({
				json: item.json,
				...(item.binary ? { binary } : {}),
				pairedItem: { item: 0 },
			});
		}
		return [output];
	}
}

/** Builds the workflow node for a Test Items start node. */
export function testItemsNode(items: TestInputItem[], name = 'Test Items', position: [number, number] = [0, 0]): INode {
	return {
		id: `test-items-${name}`,
		name,
		type: TEST_ITEMS_NODE_TYPE,
		typeVersion: 1,
		position,
		parameters: { items: JSON.stringify(items) },
	};
}

/** An input item carrying a file, for operations that upload binary. */
export function binaryInputItem(
	content: Buffer | string,
	file: { fileName?: string; mimeType?: string; propertyName?: string; json?: IDataObject } = {},
): INodeExecutionData {
	const buffer = typeof content === 'string' ? Buffer.from(content) : content;
	return {
		json: file.json ?? {},
		binary: {
			[file.propertyName ?? 'data']: {
				data: buffer.toString(BINARY_ENCODING),
				mimeType: file.mimeType ?? 'application/octet-stream',
				...(file.fileName === undefined ? {} : { fileName: file.fileName }),
			},
		},
	};
}
