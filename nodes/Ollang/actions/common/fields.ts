import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { OllangRequest, PagingStyle } from '../../transport';
import { apiRequestAllPages, DEFAULT_PAGE_CONCURRENCY, MAX_PAGE_CONCURRENCY, pagingKey } from '../../transport';
import type { OllangResource, OllangResourceMap, OperationResult } from '../node.type';
import { toResults } from './outcomes';
import { checkOption, checkText, readPaging } from './parameters';
import { readConcurrencyOption } from './readConcurrency';
import { retryProtectionOptions } from './retryProtection';

/** Shows properties only for one resource and operation. */
export function forOperation<R extends OllangResource>(
	resource: R,
	operation: OllangResourceMap[R],
	properties: INodeProperties[],
): INodeProperties[] {
	return updateDisplayOptions({ show: { resource: [resource], operation: [operation] } }, properties);
}

/**
 * Properties with `added` at the end of their Options collection, or in a new Options collection at the end: what a
 * user rarely changes (retries, how many items at once) stays off the main panel.
 */
export function withOptions(properties: INodeProperties[], added: INodeProperties[]): INodeProperties[] {
	const isOptions = (property: INodeProperties) => property.name === 'options' && property.type === 'collection';
	if (!properties.some(isOptions)) {
		return [...properties, { displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, options: added }];
	}
	return properties.map((property) =>
		isOptions(property) ? { ...property, options: [...((property.options ?? []) as INodeProperties[]), ...added] } : property,
	);
}

/**
 * Shows a paid write's properties (kind 'paidWrite', sent through writeOnce) for one resource and operation, with
 * Retry Protection and Idempotency Key at the end of their Options.
 */
export function forPaidWrite<R extends OllangResource>(
	resource: R,
	operation: OllangResourceMap[R],
	properties: INodeProperties[],
): INodeProperties[] {
	return forOperation(resource, operation, withOptions(properties, retryProtectionOptions));
}

/**
 * Shows a read operation's properties (kind 'read', whose items the router runs several at a time) for one resource
 * and operation, with the Read Concurrency option at the end of their Options. A read whose items all send the same
 * request (no field to fill) is described with forOperation: running its items at once gains nothing.
 */
export function forReadOperation<R extends OllangResource>(
	resource: R,
	operation: OllangResourceMap[R],
	properties: INodeProperties[],
): INodeProperties[] {
	return forOperation(resource, operation, withOptions(properties, [readConcurrencyOption]));
}

// An id never holds a slash; the API's ids look like MongoDB ObjectIds, but the node does not insist on it.
// n8n anchors the pattern at both ends.
const idValidation = [
	{
		type: 'regex' as const,
		properties: { regex: '\\s*[^/\\s]+\\s*', errorMessage: 'An ID is a single word without "/"' },
	},
];

const idMode = {
	displayName: 'By ID',
	name: 'id',
	type: 'string' as const,
	placeholder: 'e.g. 6650f1c2a4b3e2d1c0b9a8f7',
	validation: idValidation,
};

/** A locator for what the API can list: pick from a searchable list, or give the ID. */
function listLocator(
	name: string,
	displayName: string,
	searchListMethod: string,
	description: string,
): INodeProperties {
	return {
		displayName,
		name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod, searchable: true },
			},
			idMode,
		],
	};
}

export function orderLocator(description: string): INodeProperties {
	return listLocator('orderId', 'Order', 'searchOrders', description);
}

export function memoryLocator(description: string): INodeProperties {
	return listLocator('memoryId', 'Memory', 'searchMemories', description);
}

export function projectLocator(description: string): INodeProperties {
	return listLocator('projectId', 'Project', 'searchProjects', description);
}

/** A revision request of the order chosen in the same panel: listed once the order is chosen. */
export function revisionLocator(description: string): INodeProperties {
	return listLocator('revisionId', 'Revision', 'searchRevisions', description);
}

/** A document of the folder chosen in the same panel: listed once the folder is chosen. */
export function folderDocumentLocator(description: string): INodeProperties {
	return listLocator('documentId', 'Document', 'searchFolderDocuments', description);
}

export function customInstructionLocator(description: string): INodeProperties {
	return listLocator('instructionId', 'Custom Instruction', 'searchCustomInstructions', description);
}

/** A locator offered as an optional field of a collection (a filter, an additional field): nothing picked by default. */
export function optionalLocator(locator: INodeProperties): INodeProperties {
	return { ...locator, required: false };
}

const folderUrlMode = {
	displayName: 'By URL',
	name: 'url',
	type: 'string' as const,
	placeholder: 'e.g. https://app.ollang.com/folders/6650f1c2a4b3e2d1c0b9a8f7',
	validation: [
		{
			type: 'regex' as const,
			properties: {
				// n8n anchors this pattern at both ends.
				regex: 'https?://.+/folders?/[^/?#]+(?:[/?#].*)?',
				errorMessage: 'A folder link contains /folder/<ID> or /folders/<ID>',
			},
		},
	],
	extractValue: { type: 'regex' as const, regex: '/folders?/([^/?#]+)' },
};

/** A folder picked from the searchable list (GET /integration/folder), by ID, or by a link that contains it. */
export function folderListLocator(description: string): INodeProperties {
	const locator = listLocator('folderId', 'Folder', 'searchFolders', description);
	return { ...locator, modes: [...(locator.modes ?? []), folderUrlMode] };
}

/** Return All / Limit, the n8n way. */
export const returnAllAndLimit: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1 },
		displayOptions: { show: { returnAll: [false] } },
		description: 'Max number of results to return',
	},
];

const sortDirections: INodePropertyOptions[] = [
	{ name: 'Ascending', value: 'asc' },
	{ name: 'Descending', value: 'desc' },
];

/**
 * The Options of a paged listing: page size (the query's take, 1 to 50), how many pages load at once, and the sort
 * (orderBy, orderDirection); getPagedList sends them in the listing's paging style.
 */
export function pagedListOptions(sortFields: INodePropertyOptions[], defaultSort: string, rows: string): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Page Size',
				name: 'pageSize',
				type: 'number',
				default: 50,
				typeOptions: { minValue: 1, maxValue: 50 },
				description: 'How many results to fetch with each request (1 to 50). Larger pages mean fewer requests.',
			},
			{
				displayName: 'Parallel Page Requests',
				name: 'pageConcurrency',
				type: 'number',
				default: DEFAULT_PAGE_CONCURRENCY,
				typeOptions: { minValue: 1, maxValue: MAX_PAGE_CONCURRENCY },
				description: 'How many pages to fetch at the same time when the results fill several pages',
			},
			{
				displayName: 'Sort By',
				name: 'orderBy',
				type: 'options',
				options: sortFields,
				default: defaultSort,
				description: `Field to sort the ${rows} by`,
			},
			{
				displayName: 'Sort Direction',
				name: 'orderDirection',
				type: 'options',
				options: sortDirections,
				default: 'desc',
			},
		],
	};
}

/**
 * How a listing pages: its query style, the query key of its upper time bound (pinned at page 1's time), and the
 * field of its rows' creation time.
 */
export interface ListingShape {
	style?: PagingStyle;
	pinTimeKey?: string;
	rowTimeKey?: string;
}

/**
 * One item's paged listing, in the listing's paging style (nested pageOptions[...] or flat): Return All / Limit, page
 * size, parallel pages, sort and the free search (the Search filter) are read and checked here, once for every
 * listing; `filterQuery` maps the operation's own filters to query keys. The pages are read as one consistent
 * listing (transport/paging.ts).
 */
export async function getPagedList(
	ctx: IExecuteFunctions,
	itemIndex: number,
	path: string,
	sortFields: INodePropertyOptions[],
	filterQuery: (filters: IDataObject) => IDataObject,
	{ style = 'nested', pinTimeKey, rowTimeKey }: ListingShape = {},
): Promise<OperationResult[]> {
	const filters = ctx.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const paging = { ...readPaging(ctx, itemIndex, options), style, pinTimeKey, rowTimeKey };
	const request: OllangRequest = {
		method: 'GET',
		path,
		qs: {
			...filterQuery(filters),
			[pagingKey(style, 'orderBy')]: checkOption(ctx, options.orderBy, 'Sort By', itemIndex, sortFields),
			[pagingKey(style, 'orderDirection')]: checkOption(
				ctx,
				options.orderDirection,
				'Sort Direction',
				itemIndex,
				sortDirections,
			),
			[pagingKey(style, 'search')]: checkText(ctx, filters.search, 'Search', itemIndex, false),
		},
		retry: 'safe',
		itemIndex,
	};
	return toResults((await apiRequestAllPages.call(ctx, request, paging)) as IDataObject[]);
}

export function binaryPropertyField(description: string): INodeProperties {
	return {
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		placeholder: 'e.g. data',
		hint: 'The name of the input binary field containing the file to be uploaded',
		description,
	};
}

export const languageHint = 'A language code such as en, de or pt-BR';

/** A dynamic choice's description: what it is for, then n8n's wording for picking or giving it by expression. */
function dynamicChoiceDescription(what: string): string {
	return `${what}. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.`;
}

/**
 * A language picked from the catalogue the API lists (Locale > Get Languages), or given as a code by an expression.
 * `detect` adds "Detect Automatically" (the value all) first.
 */
export function languageField(
	field: { name: string; displayName: string; description: string; required?: boolean },
	{ detect = false }: { detect?: boolean } = {},
): INodeProperties {
	return {
		displayName: `${field.displayName} Name or ID`,
		name: field.name,
		type: 'options',
		typeOptions: { loadOptionsMethod: detect ? 'getLanguagesOrDetect' : 'getLanguages' },
		default: '',
		...(field.required ? { required: true } : {}),
		description: dynamicChoiceDescription(field.description),
	};
}

/**
 * Several languages picked from the catalogue, or codes given by an expression (a list, or comma-separated); what
 * they are for shows below the field.
 */
export function languagesField(field: {
	name: string;
	displayName: string;
	description: string;
	required?: boolean;
}): INodeProperties {
	return {
		displayName: `${field.displayName} Names or IDs`,
		name: field.name,
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getLanguages' },
		default: [],
		...(field.required ? { required: true } : {}),
		description:
			'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		hint: field.description,
	};
}
