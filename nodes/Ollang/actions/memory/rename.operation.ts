import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forOperation, memoryLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId, readText } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	memoryLocator('The translation memory to rename; its stored units are unaffected'),
	{
		displayName: 'New Title',
		name: 'title',
		type: 'string',
		default: '',
		required: true,
		description: 'The new name of the memory',
	},
];

export const description = forOperation('memory', 'rename', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const memoryId = readId(this, 'memoryId', 'Memory', itemIndex);
	const title = readText(this, 'title', 'New Title', itemIndex);
	const request: OllangRequest = {
		method: 'PATCH',
		path: apiPath`/integration/memories/${memoryId}`,
		body: { title },
		// Setting the same title twice has the same effect as once.
		retry: 'safe',
		itemIndex,
	};
	return toResults(requireObject.call(this, request, await apiRequest.call(this, request), ['id']));
}
