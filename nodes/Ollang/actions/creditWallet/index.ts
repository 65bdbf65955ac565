import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as get from './get.operation';

export const operations: ResourceOperations<'creditWallet'> = { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['creditWallet'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get credit wallet',
				description: 'Get total, remaining and used credits with their USD equivalents',
			},
		],
		default: 'get',
	},
	...get.description,
];
