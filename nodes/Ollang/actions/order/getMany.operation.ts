import type { IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import {
	forReadOperation,
	getPagedList,
	optionalLocator,
	pagedListOptions,
	projectLocator,
	returnAllAndLimit,
} from '../common/fields';
import { checkDateRange, checkOption, checkOptions, checkText, readOptionalId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { allOrderTypes, orderStatuses } from './values';

const sortFields: INodePropertyOptions[] = [
	{ name: 'Created At', value: 'createdAt' },
	{ name: 'ID', value: 'id' },
	{ name: 'Name', value: 'name' },
	{ name: 'Status', value: 'status' },
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
				displayName: 'Created After',
				name: 'createdFrom',
				type: 'dateTime',
				default: '',
				description: 'Only orders created at or after this time (ISO 8601; without an offset, UTC)',
			},
			{
				displayName: 'Created Before',
				name: 'createdTo',
				type: 'dateTime',
				default: '',
				description: 'Only orders created at or before this time (ISO 8601; without an offset, UTC)',
				hint: 'Left empty or in the future: up to when the node starts reading. Orders created while it reads come in the next run.',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'Only orders whose name contains this text',
			},
			optionalLocator(projectLocator('Only orders of this project')),
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				description: 'Free search: orders whose name contains this text, or whose ID is this text',
			},
			{
				displayName: 'Statuses',
				name: 'statuses',
				type: 'multiOptions',
				options: orderStatuses,
				default: [],
				description: 'Only orders in one of these statuses',
			},
			{
				displayName: 'Type',
				name: 'type',
				type: 'options',
				options: allOrderTypes,
				default: 'subtitle',
				description: 'Only orders of this type',
			},
		],
	},
	pagedListOptions(sortFields, 'createdAt', 'orders'),
];

export const description = forReadOperation('order', 'getMany', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	return await getPagedList(this, itemIndex, '/integration/orders', sortFields, (filters) => {
		const range = checkDateRange(
			this,
			itemIndex,
			{ field: 'Created After', value: filters.createdFrom },
			{ field: 'Created Before', value: filters.createdTo },
		);
		const statuses = checkOptions(this, filters.statuses, 'Statuses', itemIndex, orderStatuses);
		return {
			'filter[status]': statuses.length > 0 ? statuses : undefined,
			'filter[type]': checkOption(this, filters.type, 'Type', itemIndex, allOrderTypes),
			'filter[name]': checkText(this, filters.name, 'Name', itemIndex, false),
			'filter[projectId]': readOptionalId(this, filters, 'filters.projectId', 'Project', itemIndex),
			'filter[createdAtRange][from]': range.from,
			'filter[createdAtRange][to]': range.to,
		};
	}, { pinTimeKey: 'filter[createdAtRange][to]', rowTimeKey: 'createdAt' });
}
