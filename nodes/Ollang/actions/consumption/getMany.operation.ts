import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import {
	forReadOperation,
	getPagedList,
	optionalLocator,
	orderLocator,
	pagedListOptions,
	returnAllAndLimit,
} from '../common/fields';
import { checkDateRange, checkOption, checkText, readOptionalId } from '../common/parameters';
import { isRecord } from '../common/responses';
import { isSimplified, pick, simplifyField } from '../common/simplify';
import type { OperationKind, OperationResult } from '../node.type';
import { allOrderTypes } from '../order/values';

const sortFields: INodePropertyOptions[] = [
	{ name: 'Credits Used', value: 'creditsUsed' },
	{ name: 'ID', value: 'id' },
	{ name: 'Occurred At', value: 'occurredAt' },
	{ name: 'Order Name', value: 'orderName' },
	{ name: 'Order Type', value: 'orderType' },
	{ name: 'Provider', value: 'provider' },
	{ name: 'Service', value: 'service' },
	{ name: 'USD Equivalent', value: 'usdEquivalent' },
];

const properties: INodeProperties[] = [
	{
		displayName:
			'Needs an API key whose user has the client_owner or client_accessBillings role. Credits convert to USD at 1000 credits = 1 USD.',
		name: 'consumptionNotice',
		type: 'notice',
		default: '',
	},
	...returnAllAndLimit,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'From',
				name: 'from',
				type: 'dateTime',
				default: '',
				description: 'Only lines at or after this time (inclusive; ISO 8601, without an offset UTC)',
			},
			optionalLocator(orderLocator('Only lines of this order')),
			{
				displayName: 'Order Name Contains',
				name: 'orderName',
				type: 'string',
				default: '',
				description: 'Only lines whose order name contains this text (case-insensitive)',
			},
			{
				displayName: 'Order Type',
				name: 'orderType',
				type: 'options',
				options: allOrderTypes,
				default: 'subtitle',
				description: 'Only lines of orders of this type',
			},
			{
				displayName: 'Provider',
				name: 'provider',
				type: 'string',
				default: '',
				placeholder: 'e.g. elevenlabs',
				description: 'Only lines of this provider key (providerKey), such as openai, gemini, elevenlabs or deepl',
			},
			{
				displayName: 'Requested By',
				name: 'createdBy',
				type: 'string',
				default: '',
				placeholder: 'e.g. name@example.com',
				description: 'Only lines requested by this user: a user ID or an email address',
			},
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				description: 'Free search across the relevant fields of a line',
			},
			{
				displayName: 'Tag',
				name: 'tag',
				type: 'string',
				default: '',
				description: 'Only lines carrying this program tag of the requestor',
			},
			{
				displayName: 'To',
				name: 'to',
				type: 'dateTime',
				default: '',
				description: 'Only lines at or before this time (inclusive; ISO 8601, without an offset UTC)',
				hint: 'Left empty or in the future: up to when the node starts reading. Lines that arrive while it reads come in the next run.',
			},
		],
	},
	pagedListOptions(sortFields, 'occurredAt', 'lines'),
	simplifyField(
		'Simplified: per line its ID, the order (ID, name, type), the service and provider, credits used, the USD equivalent, when, and who requested it (name).',
	),
];

/** The line's fields Simplify keeps (test/contract checks each against the contract), and createdBy.name. */
export const LINE_FIELDS = [
	'id',
	'orderId',
	'orderName',
	'orderType',
	'service',
	'provider',
	'creditsUsed',
	'usdEquivalent',
	'occurredAt',
] as const;

function simplifyLine(line: IDataObject): IDataObject {
	return {
		...pick(line, LINE_FIELDS),
		requestedBy: isRecord(line.createdBy) ? (line.createdBy.name ?? null) : null,
	};
}

export const description = forReadOperation('consumption', 'getMany', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const lines = await getPagedList(this, itemIndex, '/integration/consumption', sortFields, (filters) => {
		const range = checkDateRange(
			this,
			itemIndex,
			{ field: 'From', value: filters.from },
			{ field: 'To', value: filters.to },
		);
		return {
			'filter[from]': range.from,
			'filter[to]': range.to,
			'filter[provider]': checkText(this, filters.provider, 'Provider', itemIndex, false),
			'filter[orderType]': checkOption(this, filters.orderType, 'Order Type', itemIndex, allOrderTypes),
			'filter[createdBy]': checkText(this, filters.createdBy, 'Requested By', itemIndex, false),
			'filter[tag]': checkText(this, filters.tag, 'Tag', itemIndex, false),
			'filter[search]': checkText(this, filters.orderName, 'Order Name Contains', itemIndex, false),
			'filter[orderId]': readOptionalId(this, filters, 'filters.orderId', 'Order', itemIndex),
		};
	}, { pinTimeKey: 'filter[to]', rowTimeKey: 'occurredAt' });
	return isSimplified(this, itemIndex) ? lines.map((line) => ({ ...line, json: simplifyLine(line.json) })) : lines;
}
