import type { IDataObject, IExecuteFunctions, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest, unexpectedResponse } from '../../transport';
import { forReadOperation, languagesField } from '../common/fields';
import { checkLanguageList, checkTextList } from '../common/languages';
import { toResults } from '../common/outcomes';
import { readOption } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const outputs: INodePropertyOptions[] = [
	{
		name: 'One Item per Entry',
		value: 'entries',
		description: 'Each translation as its own item: { sourceText, targetText, targetLanguage }',
	},
	{
		name: 'Raw Map as One Item',
		value: 'map',
		description:
			"The API's answer as it is: { sourceText: targetText } for one language, { language: { sourceText: targetText } } for several",
	},
];

const properties: INodeProperties[] = [
	languagesField({
		name: 'targetLanguages',
		displayName: 'Target Language',
		description: 'Languages whose translations to export; only terms translated into them are returned',
		required: true,
	}),
	{
		displayName: 'Output',
		name: 'output',
		type: 'options',
		options: outputs,
		default: 'entries',
		description:
			'One item per translation is easiest to use in the next nodes (filter, write to a sheet); the raw map suits a JSON file for an app',
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Order IDs',
				name: 'orderIds',
				type: 'string',
				default: '',
				placeholder: 'e.g. 6650f1c2a4b3e2d1c0b9a8f7',
				description: 'Only terms that came from any of these orders (comma-separated IDs)',
			},
			{
				displayName: 'Tags',
				name: 'tags',
				type: 'string',
				default: '',
				placeholder: 'e.g. marketing, checkout',
				description: 'Only terms with any of these tags (comma-separated), as set in content management',
			},
		],
	},
];

export const description = forReadOperation('content', 'export', properties);

export const kind: OperationKind = 'read';

function isTextMap(value: unknown): value is Record<string, string> {
	return (
		value !== null &&
		typeof value === 'object' &&
		!Array.isArray(value) &&
		Object.values(value).every((entry) => typeof entry === 'string')
	);
}

/** One entry per translation, from the flat map (one language) or the nested one (several). */
function entriesOf(
	this: IExecuteFunctions,
	request: OllangRequest,
	answer: IDataObject,
	languages: string[],
): IDataObject[] {
	const maps: Array<[string, unknown]> = languages.length === 1 ? [[languages[0], answer]] : Object.entries(answer);
	const entries: IDataObject[] = [];
	for (const [targetLanguage, map] of maps) {
		if (!isTextMap(map)) {
			const expected =
				languages.length === 1 ? 'a map of source texts to target texts' : 'a map of languages to text maps';
			throw unexpectedResponse.call(this, request, expected, answer);
		}
		for (const [sourceText, targetText] of Object.entries(map))
			entries.push({ sourceText, targetText, targetLanguage });
	}
	return entries;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const languages = checkLanguageList(
		this,
		this.getNodeParameter('targetLanguages', itemIndex, ''),
		'Target Languages',
		itemIndex,
	);
	const output = readOption(this, 'output', 'Output', itemIndex, outputs);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const request: OllangRequest = {
		method: 'GET',
		path: '/integration/content/export',
		// Arrays in the bracket form the SDKs send (targetLanguages[]=de&targetLanguages[]=fr).
		qs: {
			...(languages.length === 1 ? { targetLanguage: languages[0] } : { 'targetLanguages[]': languages }),
			'tags[]': checkTextList(this, filters.tags, 'Tags', itemIndex),
			'orderIds[]': checkTextList(this, filters.orderIds, 'Order IDs', itemIndex),
		},
		retry: 'safe',
		itemIndex,
	};
	const answer = requireObject.call(this, request, await apiRequest.call(this, request));
	if (output === 'map') return toResults(answer);
	return toResults(entriesOf.call(this, request, answer, languages));
}
