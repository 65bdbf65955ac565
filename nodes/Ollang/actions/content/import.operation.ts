import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forOperation, languageField } from '../common/fields';
import { readItemParameter } from '../common/itemParameters';
import { asNodeError, parseEachItem } from '../common/outcomes';
import { checkNumberInRange, checkText } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { UnitField } from '../common/units';
import { batchUnits, readUnits, unitProperties } from '../common/units';
import type { BatchOutcome } from '../node.type';

export const DEFAULT_CONTENT_BATCH_SIZE = 5000;
export const MAX_CONTENT_BATCH_SIZE = 5000;
/**
 * Batches are also cut at this much JSON, so long texts stay well within what a service takes in one body
 * (the API documents no limit; 5 MB leaves room under the common 10 MB).
 */
export const MAX_CONTENT_BATCH_BYTES = 5 * 1024 * 1024;

const unitFields: UnitField[] = [
	{
		key: 'sourceText',
		displayName: 'Source Text',
		required: true,
		keepWhitespace: true,
		description: 'Original text; the key that matches and deduplicates content terms across languages',
	},
	{
		key: 'targetText',
		displayName: 'Target Text',
		required: true,
		keepWhitespace: true,
		description: 'The translation of the source text in the target language',
	},
	{
		key: 'elementId',
		displayName: 'Element ID',
		required: false,
		description: 'Where the text comes from, such as a DOM element ID or a JSON key path (optional)',
	},
	{
		key: 'type',
		displayName: 'Type',
		required: false,
		description: 'Kind of text: text (default), ui, subtitle or navigation (optional)',
	},
];

const properties: INodeProperties[] = [
	languageField({
		name: 'targetLanguage',
		displayName: 'Target Language',
		description: 'Language of the target texts. Items may differ: one request is sent per language and batch',
		required: true,
	}),
	...unitProperties(
		unitFields,
		'[{ "sourceText": "Save", "targetText": "Speichern", "elementId": "button.save", "type": "ui" }]',
	),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Batch Size',
				name: 'batchSize',
				type: 'number',
				default: DEFAULT_CONTENT_BATCH_SIZE,
				typeOptions: { minValue: 1, maxValue: MAX_CONTENT_BATCH_SIZE },
				description:
					'Most units to send in one request. The units of all input items go together in requests of this size, each under about 5 MB of JSON, so long texts go in smaller ones.',
			},
		],
	},
];

export const description = forOperation('content', 'import', properties);

// Safe to repeat: saving the same translations again leaves the same content.
export const kind = 'write' as const;

interface ItemUnits {
	targetLanguage: string;
	units: IDataObject[];
}

/**
 * Sends the units of all input items in batches: one request per target language and batch, not one per
 * item. Re-importing the same source text and language updates it, so a batch is safe to repeat.
 */
export async function executeBatch(this: IExecuteFunctions, itemCount: number): Promise<BatchOutcome[]> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const batchSize = checkNumberInRange(
		this,
		options.batchSize ?? DEFAULT_CONTENT_BATCH_SIZE,
		'Batch Size',
		0,
		{ min: 1, max: MAX_CONTENT_BATCH_SIZE },
	);

	const { parsed, failures } = await parseEachItem<ItemUnits>(this, itemCount, (itemIndex) => ({
		targetLanguage: checkText(
			this,
			readItemParameter(this, 'targetLanguage', itemIndex, ''),
			'Target Language',
			itemIndex,
			true,
		) as string,
		units: readUnits(this, itemIndex, unitFields),
	}));

	const failedItems = new Map<number, Error>();
	const requestsPerItem = new Map<number, number>();
	const continueOnFail = this.continueOnFail();
	const limits = { units: batchSize, bytes: MAX_CONTENT_BATCH_BYTES };
	for (const batch of batchUnits(parsed, (value) => value.targetLanguage, limits)) {
		const request: OllangRequest = {
			method: 'POST',
			path: '/integration/content/import',
			body: { targetLanguage: batch.key, translations: batch.units },
			retry: 'safe',
			itemIndex: batch.pairedItems[0],
		};
		try {
			requireObject.call(this, request, await apiRequest.call(this, request));
			for (const itemIndex of batch.pairedItems) {
				requestsPerItem.set(itemIndex, (requestsPerItem.get(itemIndex) ?? 0) + 1);
			}
		} catch (error) {
			for (const itemIndex of batch.pairedItems) {
				if (!failedItems.has(itemIndex)) failedItems.set(itemIndex, asNodeError(this, error, itemIndex));
			}
			// Without "continue on fail" the node stops at the first failure: send nothing more.
			if (!continueOnFail) break;
		}
	}

	const outcomes: BatchOutcome[] = [...failures];
	for (const { itemIndex, value } of parsed) {
		const error = failedItems.get(itemIndex);
		if (error) {
			outcomes.push({ pairedItems: [itemIndex], error });
		} else if (requestsPerItem.has(itemIndex)) {
			outcomes.push({
				pairedItems: [itemIndex],
				result: {
					json: {
						success: true,
						targetLanguage: value.targetLanguage,
						unitsContributed: value.units.length,
						requests: requestsPerItem.get(itemIndex) ?? 0,
					},
				},
			});
		}
	}
	return outcomes;
}
