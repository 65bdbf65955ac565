import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readText } from '../common/parameters';
import { requireList, requireObject } from '../common/responses';
import { retryProtectionFields, sendOnce } from '../common/retryGuard';
import { settleByListing } from '../common/settleByListing';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName: 'Title',
		name: 'title',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Product UI glossary',
		description: 'Human-readable name of the new translation memory',
	},
	...retryProtectionFields,
];

export const description = forOperation('memory', 'create', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const title = readText(this, 'title', 'Title', itemIndex);
	const request: OllangRequest = {
		method: 'POST',
		path: '/integration/memories',
		body: { title },
		// Creates a memory: a blind repeat could create two.
		retry: 'once',
		itemIndex,
	};
	// The memories (all at once): one of that title, new since sending, was made by this request.
	const listing: OllangRequest = { method: 'GET', path: request.path, retry: 'safe', itemIndex };
	const json = await sendOnce(this, itemIndex, 'memory.create', {
		request: { path: request.path, body: request.body },
		send: async () => requireObject.call(this, request, await apiRequest.call(this, request), ['id']),
		...settleByListing(
			async () => requireList.call(this, listing, await apiRequest.call(this, listing)),
			(memory) => typeof memory.title === 'string' && memory.title.trim() === title.trim(),
		),
		identity: { title },
	});
	return toResults(json);
}
