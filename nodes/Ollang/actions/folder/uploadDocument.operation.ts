import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { MultipartPart } from '../../transport';
import { apiPath, apiUploadMultipart, filePart, textPart } from '../../transport';
import { readInputFile } from '../common/binary';
import { binaryPropertyField, folderListLocator, forPaidWrite } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkText, readId, readOption } from '../common/parameters';
import { writeOnce } from '../common/writeOnce';
import { isRecord } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';
import { documentSettlement } from './newDocument';
import { documentDetailsField, documentTypeField, documentTypes, MAX_FOLDER_DOCUMENT_BYTES } from './values';

const properties: INodeProperties[] = [
	folderListLocator('The folder to add the document to; it applies to every project in the folder and to later ones'),
	binaryPropertyField('The binary field of the input item that holds the document (at most 50 MB)'),
	documentTypeField,
	documentDetailsField,
];

export const description = forPaidWrite('folder', 'uploadDocument', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderId = readId(this, 'folderId', 'Folder', itemIndex);
	const type = readOption(this, 'documentType', 'Document Type', itemIndex, documentTypes);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const name = checkText(this, extra.name, 'Name', itemIndex, false);
	const language = checkText(this, extra.language, 'Language', itemIndex, false);
	const file = await readInputFile(this, itemIndex, MAX_FOLDER_DOCUMENT_BYTES);

	const parts: MultipartPart[] = [
		filePart('file', file.data, file.fileName ?? name ?? 'document', file.mimeType),
		textPart('type', type),
	];
	if (name !== undefined) parts.push(textPart('name', name));
	if (language !== undefined) parts.push(textPart('language', language));

	const path = apiPath`/integration/folder/${folderId}/docs/upload`;
	const uploaded = { success: true, folderId, fileName: file.fileName, fileSize: file.data.length };
	const json = await writeOnce(this, itemIndex, {
		request: { path, parts },
		send: async () => {
			const answer = await apiUploadMultipart.call(this, {
				method: 'POST',
				path,
				parts,
				// Creates a document: a blind repeat could add it twice.
				retry: 'once',
				expectBody: false,
				itemIndex,
				timeoutMs: 300_000,
			});
			return { ...uploaded, ...(isRecord(answer) ? answer : {}) };
		},
		lostAnswer: documentSettlement(this, itemIndex, folderId, { type, name, language }, (document) => ({ ...uploaded, ...document })),
		identity: uploaded,
	});
	return toResults(json);
}
