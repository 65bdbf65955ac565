import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forPaidWrite } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readText } from '../common/parameters';
import { requireList, requireObject } from '../common/responses';
import { byListing, writeOnce } from '../common/writeOnce';
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
];

export const description = forPaidWrite('memory', 'create', properties);

export const kind: OperationKind = 'paidWrite';

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
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, body: request.body },
		send: async () => requireObject.call(this, request, await apiRequest.call(this, request), ['id']),
		lostAnswer: byListing(
			async () => requireList.call(this, listing, await apiRequest.call(this, listing)),
			(memory) => typeof memory.title === 'string' && memory.title.trim() === title.trim(),
		),
		identity: { title },
	});
	return toResults(json);
}
