import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forReadOperation, returnAllAndLimit } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkText, readLocalLimit } from '../common/parameters';
import { requireList } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Title Contains',
				name: 'title',
				type: 'string',
				default: '',
				description: 'Only memories whose title contains this text (case-insensitive)',
			},
		],
	},
];

export const description = forReadOperation('memory', 'getMany', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const limit = readLocalLimit(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const title = checkText(this, filters.title, 'Title Contains', itemIndex, false)?.toLowerCase();
	// The API returns every memory in one answer (no paging), so filter and limit apply here.
	const request: OllangRequest = { method: 'GET', path: '/integration/memories', retry: 'safe', itemIndex };
	let memories = requireList.call(this, request, await apiRequest.call(this, request));
	if (title !== undefined) {
		memories = memories.filter((memory) => String(memory.title ?? '').toLowerCase().includes(title));
	}
	return toResults(limit === undefined ? memories : memories.slice(0, limit));
}
