import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as exportOperation from './export.operation';
import * as importOperation from './import.operation';

export const operations: ResourceOperations<'content'> = { export: exportOperation, import: importOperation };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['content'] } },
		options: [
			{
				name: 'Export',
				value: 'export',
				action: 'Export translations from content',
				description:
					'Get the translations of the content database for one or more languages, optionally by tag or order',
			},
			{
				name: 'Import',
				value: 'import',
				action: 'Import translation units into content',
				description: 'Add or update translation units (source text, target text) in the content database, in batches',
			},
		],
		default: 'import',
	},
	...exportOperation.description,
	...importOperation.description,
];
