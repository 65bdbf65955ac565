import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as getLanguages from './getLanguages.operation';
import * as search from './search.operation';
import * as validateTag from './validateTag.operation';

export const operations: ResourceOperations<'locale'> = { getLanguages, search, validateTag };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['locale'] } },
		options: [
			{
				name: 'Get Languages',
				value: 'getLanguages',
				action: 'Get supported languages',
				description:
					'List the languages Ollang supports: code, English and native name, and regional variants (pt-PT, es-MX, zh-Hant…)',
			},
			{
				name: 'Search Languages',
				value: 'search',
				action: 'Search languages',
				description: 'Find supported languages by name, native name or code, e.g. to turn "Portuguese" into its code',
			},
			{
				name: 'Validate Tag',
				value: 'validateTag',
				action: 'Validate language tag',
				description:
					'Check a language tag before ordering: whether Ollang accepts it, and the code, language and region it stands for',
			},
		],
		default: 'getLanguages',
	},
	...getLanguages.description,
	...search.description,
	...validateTag.description,
];
