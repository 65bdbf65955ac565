import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../transport';
import { folderListLocator, forPaidWrite } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkText, checkUrl, readId, readOption } from '../common/parameters';
import { writeOnce } from '../common/writeOnce';
import { isRecord } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';
import { documentSettlement } from './newDocument';
import { documentDetailsField, documentTypeField, documentTypes } from './values';

const properties: INodeProperties[] = [
	folderListLocator(
		'The folder to attach the document to; it applies to every project in the folder and to later ones',
	),
	{
		displayName: 'Document URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/style-guide.pdf',
		description: 'Public address the service downloads the document from',
	},
	documentTypeField,
	documentDetailsField,
];

export const description = forPaidWrite('folder', 'attachDocument', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderId = readId(this, 'folderId', 'Folder', itemIndex);
	const url = checkUrl(this, this.getNodeParameter('url', itemIndex), 'Document URL', itemIndex);
	const type = readOption(this, 'documentType', 'Document Type', itemIndex, documentTypes);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const body: IDataObject = { url, type };
	const name = checkText(this, extra.name, 'Name', itemIndex, false);
	const language = checkText(this, extra.language, 'Language', itemIndex, false);
	if (name !== undefined) body.name = name;
	if (language !== undefined) body.language = language;
	const path = apiPath`/integration/folder/${folderId}/docs`;
	const json = await writeOnce(this, itemIndex, {
		request: { path, body },
		send: async () => {
			const answer = await apiRequest.call(this, {
				method: 'POST',
				path,
				body,
				// Creates a document: a blind repeat could attach it twice.
				retry: 'once',
				expectBody: false,
				itemIndex,
			});
			return { success: true, folderId, ...(isRecord(answer) ? answer : {}) };
		},
		lostAnswer: documentSettlement(this, itemIndex, folderId, { type, name, language }, (document) => ({ success: true, folderId, ...document })),
		identity: { success: true, folderId },
	});
	return toResults(json);
}
