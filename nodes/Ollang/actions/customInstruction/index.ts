import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as create from './create.operation';
import * as deleteOperation from './delete.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as getSuggestions from './getSuggestions.operation';
import * as update from './update.operation';

export const operations: ResourceOperations<'customInstruction'> = {
	create,
	delete: deleteOperation,
	get,
	getMany,
	getSuggestions,
	update,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['customInstruction'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				action: 'Create custom instruction',
				description:
					'Add an instruction (a unique machine-ID key and its text) that applies to every order of the account',
			},
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete custom instruction',
				description: 'Remove a custom instruction permanently, by its ID',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get custom instruction',
				description: 'Get one custom instruction by its ID',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many custom instructions',
				description: "List the account's custom instructions (key, text, active, description), oldest first",
			},
			{
				name: 'Get Suggestions',
				value: 'getSuggestions',
				action: 'Get custom instruction suggestions',
				description: 'Get suggested custom instruction templates (key, text, description, default state)',
			},
			{
				name: 'Update',
				value: 'update',
				action: 'Update custom instruction',
				description: 'Change the key, text, description of a custom instruction, or turn it on or off',
			},
		],
		default: 'getSuggestions',
	},
	...create.description,
	...deleteOperation.description,
	...get.description,
	...getMany.description,
	...getSuggestions.description,
	...update.description,
];
