import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as getMany from './getMany.operation';

export const operations: ResourceOperations<'consumption'> = { getMany };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['consumption'] } },
		options: [
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many consumption lines',
				description:
					'List AI credit consumption, one line per provider run, filtered by time, provider, order, requestor or tag',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
];
