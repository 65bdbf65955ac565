import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { folderListLocator, forOperation, languageField } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkText, readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	folderListLocator('The folder whose orders lose their assigned translator'),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		description: 'Without filters, every eligible order (assigned and ongoing) in the folder is unassigned',
		options: [
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

export const description = forOperation('folder', 'unassignTranslator', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderId = readId(this, 'folderId', 'Folder', itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	const sourceLanguage = checkText(this, filters.sourceLanguage, 'Source Language', itemIndex, false);
	const targetLanguage = checkText(this, filters.targetLanguage, 'Target Language', itemIndex, false);
	if (sourceLanguage !== undefined) body.sourceLanguage = sourceLanguage;
	if (targetLanguage !== undefined) body.targetLanguage = targetLanguage;
	const request: OllangRequest = {
		method: 'POST',
		path: apiPath`/integration/folder/${folderId}/unassign-translator-from-orders`,
		body,
		// Unassigning twice leaves the same state as once.
		retry: 'safe',
		itemIndex,
	};
	const answer = requireObject.call(this, request, await apiRequest.call(this, request), ['unassignedCount']);
	return toResults({ folderId, ...answer });
}
