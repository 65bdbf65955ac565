import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { folderListLocator, forOperation, languageField } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkDate, checkId, checkText, readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	folderListLocator('The folder whose completed, unassigned orders get the translator'),
	{
		displayName: 'Translator ID',
		name: 'translatorId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 6650f1c2a4b3e2d1c0b9a8f7',
		description: 'ID of the translator (a member of your team) who reviews the orders',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description:
			'Without language filters, every eligible order (completed, no translator) in the folder is assigned. See Get Order Language Pairs for the pairs available.',
		options: [
			{
				displayName: 'Deadline',
				name: 'deadline',
				type: 'dateTime',
				default: '',
				description: 'When the translator must deliver (ISO 8601; without an offset, UTC)',
			},
			languageField({
				name: 'sourceLanguage',
				displayName: 'Source Language',
				description: 'Only orders with this source language',
			}),
			languageField({
				name: 'targetLanguage',
				displayName: 'Target Language',
				description: 'Only orders with this target language',
			}),
		],
	},
];

export const description = forOperation('folder', 'assignTranslator', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderId = readId(this, 'folderId', 'Folder', itemIndex);
	const translatorId = checkId(
		this,
		checkText(this, this.getNodeParameter('translatorId', itemIndex, ''), 'Translator ID', itemIndex, true),
		'Translator ID',
		itemIndex,
	);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = { translatorId };
	const deadline = checkDate(this, extra.deadline, 'Deadline', itemIndex);
	const sourceLanguage = checkText(this, extra.sourceLanguage, 'Source Language', itemIndex, false);
	const targetLanguage = checkText(this, extra.targetLanguage, 'Target Language', itemIndex, false);
	if (deadline !== undefined) body.deadline = deadline;
	if (sourceLanguage !== undefined) body.sourceLanguage = sourceLanguage;
	if (targetLanguage !== undefined) body.targetLanguage = targetLanguage;
	const request: OllangRequest = {
		method: 'POST',
		path: apiPath`/integration/folder/${folderId}/assign-translator-to-orders`,
		body,
		// Assigns work to a person and sets orders going: after an unclear failure, check before repeating.
		retry: 'once',
		itemIndex,
		errorHints: {
			'400': 'Check the Translator ID (a member of your team) and that the Deadline is an ISO 8601 date.',
		},
	};
	const answer = requireObject.call(this, request, await apiRequest.call(this, request), ['assignedCount']);
	return toResults({ folderId, translatorId, ...answer });
}
