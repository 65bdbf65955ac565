import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as importOperation from './import.operation';

export const operations: ResourceOperations<'content'> = { import: importOperation };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['content'] } },
		options: [
			{
				name: 'Import',
				value: 'import',
				action: 'Import translation units into content',
				description:
					'Add or update translation units (source text, target text) in the content database, in batches',
			},
		],
		default: 'import',
	},
	...importOperation.description,
];
