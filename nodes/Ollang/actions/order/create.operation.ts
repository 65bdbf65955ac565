import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forPaidWrite, languageField, projectLocator } from '../common/fields';
import { checkLanguageCode } from '../common/languages';
import { toResults } from '../common/outcomes';
import { checkId, checkOption, checkUrl, invalidField, readId, readOption } from '../common/parameters';
import { requireList } from '../common/responses';
import { records } from '../common/simplify';
import type { WriteResult } from '../common/writeOnce';
import { byListing, writeOnce } from '../common/writeOnce';
import type { OperationKind, OperationResult } from '../node.type';
import { creatableOrderTypes, dubbingStyles, orderSubTypes } from './values';

/** The API accepts at most this many memories per order. */
export const MAX_SELECTED_MEMORIES = 20;

const callbackUrlField: INodeProperties = {
	displayName: 'Callback URL',
	name: 'callbackUrl',
	type: 'string',
	default: '',
	placeholder: 'e.g. https://example.com/ollang-callback',
	description:
		"Address Ollang calls when each order is completed, such as an Ollang Callback Trigger's production URL (which starts a workflow once per completion)",
	hint: 'To go on in this execution once every order completes, use Order > Create and Wait instead',
};

/**
 * The order's parameters, as Create and Create and Wait show them; Create and Wait sets the Callback URL itself
 * (this execution's resume URL), so it offers no such field.
 */
export function orderProperties(withCallbackUrl: boolean): INodeProperties[] {
	return [
	projectLocator('The project holding the source file: pick it, or map the projectId that an upload returned'),
	{
		displayName: 'Order Type',
		name: 'orderType',
		type: 'options',
		options: creatableOrderTypes,
		default: 'subtitle',
		required: true,
		description: 'What to produce from the source file',
	},
	{
		displayName: 'Level',
		name: 'level',
		type: 'options',
		options: [
			{ name: 'AI Only', value: 0, description: 'Fully AI generated' },
			{ name: 'AI + Human Review', value: 1, description: 'A human linguist reviews the AI result' },
		],
		default: 0,
		description: 'Whether a human reviews the AI result (costs more credits)',
	},
	{
		displayName: 'Target Languages',
		name: 'targetLanguages',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Target Language',
		default: { language: [{ code: '', isRush: false }] },
		required: true,
		description: 'One order is created per target language',
		options: [
			{
				displayName: 'Language',
				name: 'language',
				values: [
					languageField({
						name: 'code',
						displayName: 'Language',
						description: 'The language to translate into',
						required: true,
					}),
					{
						displayName: 'Rush',
						name: 'isRush',
						type: 'boolean',
						default: false,
						description: 'Whether to deliver this language faster, at a higher rate',
					},
				],
			},
		],
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Auto Quality Check',
				name: 'autoQc',
				type: 'boolean',
				default: false,
				description: 'Whether to run an automatic quality evaluation when the order is done',
			},
			...(withCallbackUrl ? [callbackUrlField] : []),
			{
				displayName: 'Dubbing Style',
				name: 'dubbingStyle',
				type: 'options',
				options: dubbingStyles,
				default: 'overdub',
				description: 'For dubbing orders: how the new voice is laid over the video',
			},
			{
				displayName: 'Memory Names or IDs',
				name: 'selectedMemories',
				type: 'multiOptions',
				typeOptions: { loadOptionsMethod: 'getMemories' },
				default: [],
				description:
					'Translation memories to draw matches from (at most 20). Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Subtype',
				name: 'orderSubType',
				type: 'options',
				options: orderSubTypes,
				default: 'closedCaption',
				description: 'For closed caption orders: the kind of captions',
			},
		],
	},
	];
}

export const description = forPaidWrite('order', 'create', orderProperties(true));

export const kind: OperationKind = 'paidWrite';

function readMemoryIds(ctx: IExecuteFunctions, value: unknown, itemIndex: number): string[] | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const list = typeof value === 'string' ? value.split(',') : Array.isArray(value) ? value : [value];
	const ids = list
		.filter((entry) => !(typeof entry === 'string' && entry.trim() === ''))
		.map((entry) => checkId(ctx, entry, 'Memory Names or IDs', itemIndex));
	if (ids.length > MAX_SELECTED_MEMORIES) {
		throw invalidField(
			ctx,
			itemIndex,
			'Memory Names or IDs',
			`at most ${MAX_SELECTED_MEMORIES} memories per order, got ${ids.length}`,
		);
	}
	return ids.length > 0 ? [...new Set(ids)] : undefined;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const callbackUrl =
		extra.callbackUrl !== undefined && extra.callbackUrl !== ''
			? checkUrl(this, extra.callbackUrl, 'Callback URL', itemIndex)
			: undefined;
	return toResults(await createOrders.call(this, itemIndex, { callbackUrl }));
}

export interface CreateOrdersOptions {
	/** Where the API calls when each order completes. */
	callbackUrl?: string;
	/**
	 * Whether the Callback URL is left out of the request that names the item across n8n's retries: Create and Wait's
	 * URL is this execution's resume URL, which n8n's Retry of a failed execution changes.
	 */
	callbackUrlOutsideKey?: boolean;
}

/**
 * Creates the item's orders (one per target language) through the write-once protocol, from the parameters Create
 * and Create and Wait share. Returns the API's answer (one entry per order) or what write-once says of the item.
 */
export async function createOrders(
	this: IExecuteFunctions,
	itemIndex: number,
	options: CreateOrdersOptions,
): Promise<WriteResult> {
	const projectId = readId(this, 'projectId', 'Project', itemIndex);
	const orderType = readOption(this, 'orderType', 'Order Type', itemIndex, creatableOrderTypes);
	const level = Number(this.getNodeParameter('level', itemIndex, 0));
	if (level !== 0 && level !== 1) {
		throw invalidField(this, itemIndex, 'Level', `must be 0 (AI only) or 1 (human review), got ${level}`);
	}
	const languages = (this.getNodeParameter('targetLanguages.language', itemIndex, []) as IDataObject[]) ?? [];
	if (languages.length === 0) {
		throw invalidField(this, itemIndex, 'Target Languages', 'add at least one target language');
	}
	const targetLanguageConfigs = languages.map((entry, position) => ({
		language: checkLanguageCode(this, entry.code, `Target Languages > Language #${position + 1}`, itemIndex),
		isRush: entry.isRush === true,
	}));
	const seen = new Set<string>();
	for (const config of targetLanguageConfigs) {
		const key = String(config.language).toLowerCase();
		if (seen.has(key)) {
			throw invalidField(this, itemIndex, 'Target Languages', `"${config.language}" is listed twice`);
		}
		seen.add(key);
	}

	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = { orderType, level, projectId, targetLanguageConfigs };
	const orderSubType = checkOption(this, extra.orderSubType, 'Subtype', itemIndex, orderSubTypes);
	const dubbingStyle = checkOption(this, extra.dubbingStyle, 'Dubbing Style', itemIndex, dubbingStyles);
	if (orderSubType !== undefined) body.orderSubType = orderSubType;
	if (dubbingStyle !== undefined) body.dubbingStyle = dubbingStyle;
	if (extra.autoQc !== undefined) body.autoQc = extra.autoQc === true;
	if (options.callbackUrl !== undefined) body.callbackUrl = options.callbackUrl;
	const memories = readMemoryIds(this, extra.selectedMemories, itemIndex);
	if (memories) body.selectedMemories = memories;

	const request: OllangRequest = {
		method: 'POST',
		path: '/integration/orders/create',
		body,
		// Creating an order spends credits: never repeated where the service may have acted.
		retry: 'once',
		itemIndex,
	};
	const languagesAsked = targetLanguageConfigs.map((config) => String(config.language));
	// The project's newest orders of this type: an order there that was not there before sending, of a language asked
	// for and made by no other item, was made by this request.
	const newestOrders = async (): Promise<IDataObject[]> =>
		records(
			(
				(await apiRequest.call(this, {
					method: 'GET',
					path: '/integration/orders',
					qs: {
						'filter[projectId]': projectId,
						'filter[type]': orderType,
						'pageOptions[orderBy]': 'createdAt',
						'pageOptions[orderDirection]': 'desc',
						'pageOptions[take]': 50,
					},
					retry: 'safe',
					itemIndex,
				})) as IDataObject
			)?.data,
		);
	const keyedBody = { ...body };
	if (options.callbackUrlOutsideKey === true) delete keyedBody.callbackUrl;
	return await writeOnce(this, itemIndex, {
		request: { path: request.path, body: keyedBody },
		send: async () => requireList.call(this, request, await apiRequest.call(this, request)),
		lostAnswer: byListing(
			newestOrders,
			(order) => languagesAsked.includes(String(order.targetLanguage)),
			(made) => languagesAsked.map((language) => made.find((order) => order.targetLanguage === language) ?? {}).map((order) => ({ orderId: order.id, orderType: order.type })),
			// One order per language asked, or which are this item's cannot be told.
			(made) => made.length === languagesAsked.length && languagesAsked.every((language) => made.some((order) => order.targetLanguage === language)),
		),
		identity: { projectId, orderType },
	});
}
