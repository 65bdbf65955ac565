import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { MultipartPart, OllangRequest } from '../../transport';
import { apiUploadMultipart, filePart, textPart } from '../../transport';
import { checkFileName, readInputFile } from '../common/binary';
import { binaryPropertyField, forPaidWrite } from '../common/fields';
import { notesField, readNotes } from '../common/notes';
import { checkLanguageCode } from '../common/languages';
import { toResults } from '../common/outcomes';
import { checkText, readOptionalId } from '../common/parameters';
import { requireObject } from '../common/responses';
import { writeOnce } from '../common/writeOnce';
import { projectSettlement } from './newProject';
import type { OperationKind, OperationResult } from '../node.type';
import { fileNameField, folderIdField, sourceLanguageField, uploadErrorHints } from './values';

const properties: INodeProperties[] = [
	binaryPropertyField('The binary field of the input item that holds the file (video, audio, document or subtitle)'),
	sourceLanguageField,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			fileNameField("the binary's file name"),
			folderIdField,
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'Name of the new project. Default: the file name.',
			},
			notesField,
		],
	},
];

export const description = forPaidWrite('upload', 'uploadFile', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const sourceLanguage = checkLanguageCode(this, this.getNodeParameter('sourceLanguage', itemIndex), 'Source Language', itemIndex);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const folderId = readOptionalId(this, extra, 'additionalFields.folderId', 'Folder', itemIndex);
	const noteList = readNotes(this, extra.notes, itemIndex);
	const file = await readInputFile(this, itemIndex);
	const fileName = checkFileName(
		this,
		checkText(this, extra.fileName, 'File Name', itemIndex, false) ?? file.fileName,
		extra.fileName ? 'File Name' : 'Input Binary Field file name',
		itemIndex,
	);
	const name = checkText(this, extra.name, 'Name', itemIndex, false) ?? fileName;

	const parts: MultipartPart[] = [
		filePart('file', file.data, fileName, file.mimeType),
		textPart('name', name),
		textPart('sourceLanguage', sourceLanguage),
	];
	if (noteList.length > 0) parts.push(textPart('notes', JSON.stringify(noteList)));
	if (folderId !== undefined) parts.push(textPart('folderId', folderId));

	const request: OllangRequest & { parts: MultipartPart[] } = {
		method: 'POST',
		path: '/integration/upload/direct',
		parts,
		// Creates a project: a blind repeat could create two.
		retry: 'once',
		itemIndex,
		timeoutMs: 600_000,
		errorHints: uploadErrorHints,
	};
	const uploaded = { fileName, fileSize: file.data.length, sourceLanguage };
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, parts },
		send: async () => ({
			...requireObject.call(this, request, await apiUploadMultipart.call(this, request), ['projectId']),
			...uploaded,
		}),
		lostAnswer: projectSettlement(this, itemIndex, { name, sourceLanguage, folderId }, (project) => ({ projectId: project.id, ...uploaded })),
		identity: uploaded,
	});
	return toResults(json);
}
