import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { folderListLocator, forPaidWrite, languageField, languagesField, optionalLocator } from '../common/fields';
import { checkLanguageCode, checkLanguageList } from '../common/languages';
import { toResults } from '../common/outcomes';
import { readOptionalId } from '../common/parameters';
import { requireList, requireObject } from '../common/responses';
import { byListing, writeOnce } from '../common/writeOnce';
import type { OperationKind, OperationResult } from '../node.type';
import { checkFigmaUrl, checkFileKey } from './figma';

const properties: INodeProperties[] = [
	{
		displayName: 'File URL',
		name: 'fileUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://www.figma.com/design/AbC123xyz/Marketing-Site',
		description: 'Link to the Figma file to translate; it must be on figma.com',
	},
	languageField({
		name: 'sourceLanguage',
		displayName: 'Source Language',
		description: 'Language of the texts in the Figma file',
		required: true,
	}),
	languagesField({
		name: 'targetLanguages',
		displayName: 'Target Language',
		description: 'One order is created per target language',
		required: true,
	}),
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'File Key',
				name: 'fileKey',
				type: 'string',
				default: '',
				placeholder: 'e.g. AbC123xyz',
				description: 'The Figma file key; by default it is taken from the File URL (the part after /design/ or /file/)',
			},
			optionalLocator(
				folderListLocator("Ollang folder for the new project and orders; by default the account's first folder"),
			),
		],
	},
];

export const description = forPaidWrite('figmaOrder', 'create', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const fileUrl = checkFigmaUrl(this, this.getNodeParameter('fileUrl', itemIndex, ''), 'File URL', itemIndex);
	const sourceLanguage = checkLanguageCode(
		this,
		this.getNodeParameter('sourceLanguage', itemIndex, ''),
		'Source Language',
		itemIndex,
	);
	const targetLanguages = checkLanguageList(
		this,
		this.getNodeParameter('targetLanguages', itemIndex, ''),
		'Target Languages',
		itemIndex,
	);
	const additionalFields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const fileKey = checkFileKey(this, additionalFields.fileKey, 'File Key', itemIndex, fileUrl);
	const body: IDataObject = { fileKey, fileUrl, sourceLanguage, targetLanguages };
	const folderId = readOptionalId(this, additionalFields, 'additionalFields.folderId', 'Folder', itemIndex);
	if (folderId !== undefined) body.folderId = folderId;
	const request: OllangRequest = {
		method: 'POST',
		path: '/integration/orders/figma/create',
		body,
		// Creates orders that spend credits: never repeated where the service may have acted.
		retry: 'once',
		itemIndex,
		errorHints: {
			'409':
				'An order for this file and language is still in progress: wait for it (Get Status) or leave that language out.',
		},
	};
	// The file's orders (all at once, newest first): an order of each language asked that was not there before sending,
	// and that no other item made, was made by this request.
	const listing: OllangRequest = { method: 'GET', path: '/integration/orders/figma', qs: { fileKey }, retry: 'safe', itemIndex };
	const asked = new Set(targetLanguages.map((language) => language.toLowerCase()));
	const ordersAsked = async () =>
		requireList
			.call(this, listing, await apiRequest.call(this, listing))
			.filter((order) => asked.has(String(order.targetLanguage).toLowerCase()));
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, body },
		send: async () => requireObject.call(this, request, await apiRequest.call(this, request), ['projectId', 'orders']),
		// The service makes every language's order or none: one new order per language asked is this item's.
		lostAnswer: byListing(
			ordersAsked,
			() => true,
			async (made) => {
				const orders = targetLanguages.map((language) => {
					const order = made.find((candidate) => String(candidate.targetLanguage).toLowerCase() === language.toLowerCase()) ?? {};
					return { orderId: order.id, targetLanguage: order.targetLanguage, status: order.status };
				});
				// The project and import of the orders, as the answer would have named them.
				const status: OllangRequest = { method: 'GET', path: apiPath`/integration/orders/figma/${String(orders[0].orderId)}/status`, retry: 'safe', itemIndex };
				const { projectId, importId } = requireObject.call(this, status, await apiRequest.call(this, status));
				return { ...(projectId !== undefined ? { projectId } : {}), ...(importId !== undefined ? { importId } : {}), orders };
			},
			(made) => made.length === targetLanguages.length && targetLanguages.every((language) => made.some((order) => String(order.targetLanguage).toLowerCase() === language.toLowerCase())),
		),
		identity: { fileKey, targetLanguages },
	});
	return toResults(json);
}
