import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { forReadOperation, getPagedList, pagedListOptions, returnAllAndLimit } from '../common/fields';
import type { OperationKind, OperationResult } from '../node.type';

const sortFields: INodePropertyOptions[] = [
	{ name: 'Created At', value: 'createdAt' },
	{ name: 'ID', value: 'id' },
	{ name: 'Name', value: 'name' },
	{ name: 'Source Language', value: 'sourceLanguage' },
];

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
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				description: 'Only projects whose name contains this text (not case-sensitive)',
			},
		],
	},
	pagedListOptions(sortFields, 'createdAt', 'projects'),
];

export const description = forReadOperation('project', 'getMany', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	return await getPagedList(this, itemIndex, '/integration/project', sortFields, () => ({}), { style: 'flat', rowTimeKey: 'createdAt' });
}
