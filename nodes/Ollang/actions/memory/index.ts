import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as create from './create.operation';
import * as deleteOperation from './delete.operation';
import * as get from './get.operation';
import * as getImportJob from './getImportJob.operation';
import * as getMany from './getMany.operation';
import * as importItems from './importItems.operation';
import * as rename from './rename.operation';

export const operations: ResourceOperations<'memory'> = {
	create,
	get,
	getMany,
	rename,
	delete: deleteOperation,
	importItems,
	getImportJob,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['memory'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create translation memory',
				description: 'Create an empty translation memory',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete translation memory',
				description: 'Delete a translation memory and all its units permanently',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get translation memory',
				description: 'Get a translation memory with its unit count',
			},
			{
				name: 'Get Import Job',
				value: 'getImportJob',
				action: 'Get memory import job',
				description: 'Get the status and progress of a memory import job',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many translation memories',
				description: 'List translation memories',
			},
			{
				name: 'Import Items',
				value: 'importItems',
				action: 'Import units into translation memory',
				description:
					'Queue translation units for import (any number, sent in jobs of up to 1000) and optionally wait for them',
			},
			{
				name: 'Update',
				value: 'rename',
				action: 'Update translation memory title',
				description: 'Change the title of a translation memory (the only field the API can change)',
			},
		],
		default: 'get',
	},
	...create.description,
	...get.description,
	...getMany.description,
	...rename.description,
	...deleteOperation.description,
	...importItems.description,
	...getImportJob.description,
];
