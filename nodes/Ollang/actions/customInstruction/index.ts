import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as getSuggestions from './getSuggestions.operation';

export const operations: ResourceOperations<'customInstruction'> = { getSuggestions };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customInstruction'] } },
		options: [
			{
				name: 'Get Suggestions',
				value: 'getSuggestions',
				action: 'Get custom instruction suggestions',
				description: 'Get suggested custom instruction templates (key, text, description, default state)',
			},
		],
		default: 'getSuggestions',
	},
	...getSuggestions.description,
];
