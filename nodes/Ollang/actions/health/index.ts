import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as check from './check.operation';

export const operations: ResourceOperations<'health'> = { check };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['health'] } },
		options: [
			{
				name: 'Check',
				value: 'check',
				action: 'Check API health',
				description:
					'Check that the Ollang API is up: status OK (or NOK) and the service time as a millisecond timestamp',
			},
		],
		default: 'check',
	},
	...check.description,
];
