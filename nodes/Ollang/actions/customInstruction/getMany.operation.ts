import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { forReadOperation, returnAllAndLimit } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkOption, checkText, readLocalLimit } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { fetchInstructions } from './instructions';

const states: INodePropertyOptions[] = [
	{ name: 'Active and Inactive', value: 'all' },
	{ name: 'Active Only', value: 'active' },
	{ name: 'Inactive Only', value: 'inactive' },
];

const properties: INodeProperties[] = [
	...returnAllAndLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'State',
				name: 'state',
				type: 'options',
				options: states,
				default: 'all',
				description: 'Only active (applied to orders) or only inactive instructions',
			},
			{
				displayName: 'Text Contains',
				name: 'search',
				type: 'string',
				default: '',
				description: 'Only instructions whose key, text or description contains this (case-insensitive)',
			},
		],
	},
];

export const description = forReadOperation('customInstruction', 'getMany', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const limit = readLocalLimit(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const state = checkOption(this, filters.state, 'State', itemIndex, states) ?? 'all';
	const search = checkText(this, filters.search, 'Text Contains', itemIndex, false)?.toLowerCase();
	// The API answers every instruction at once (no paging), so filters and the limit apply here.
	let instructions = await fetchInstructions.call(this, itemIndex);
	if (state !== 'all')
		instructions = instructions.filter((instruction) => (instruction.active === true) === (state === 'active'));
	if (search !== undefined) {
		instructions = instructions.filter((instruction) =>
			[instruction.key, instruction.value, instruction.description].some((field) =>
				String(field ?? '')
					.toLowerCase()
					.includes(search),
			),
		);
	}
	return toResults(limit === undefined ? instructions : instructions.slice(0, limit));
}
