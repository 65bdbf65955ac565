import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as create from './create.operation';
import * as deleteOperation from './delete.operation';
import * as getMany from './getMany.operation';

export const operations: ResourceOperations<'revision'> = {
	create,
	getMany,
	delete: deleteOperation,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['revision'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create revision request',
				description:
					'Ask for a fix at a point of a completed or delivered order (missing or wrong subtitle, sync or format error)',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete revision request',
				description: 'Withdraw a revision request of an order',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many revision requests',
				description: 'List the revision requests of an order',
			},
		],
		default: 'create',
	},
	...create.description,
	...getMany.description,
	...deleteOperation.description,
];
