import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { MultipartPart, OllangRequest } from '../../transport';
import { apiUploadMultipart, filePart, textPart } from '../../transport';
import { checkFileName, readInputFile } from '../common/binary';
import { binaryPropertyField, forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkOptionalId, checkText, readText } from '../common/parameters';
import { requireObject } from '../common/responses';
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
			{
				displayName: 'Notes',
				name: 'notes',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				placeholder: 'Add Note',
				default: {},
				options: [
					{
						displayName: 'Note',
						name: 'note',
						values: [
							{
								displayName: 'Details',
								name: 'details',
								type: 'string',
								default: '',
								description: 'Text of the note for the linguists',
							},
							{
								displayName: 'Time Stamp',
								name: 'timeStamp',
								type: 'string',
								default: '',
								placeholder: 'e.g. 00:01:23',
								description: 'Where in the media the note applies (optional)',
							},
						],
					},
				],
			},
		],
	},
];

export const description = forOperation('upload', 'uploadFile', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const sourceLanguage = readText(this, 'sourceLanguage', 'Source Language', itemIndex);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const folderId = checkOptionalId(this, extra.folderId, 'Folder ID', itemIndex);
	const notes = ((extra.notes as IDataObject | undefined)?.note as IDataObject[] | undefined) ?? [];
	const noteList = notes.map((note, position) => {
		const label = `Notes > note ${position + 1}`;
		const details = checkText(this, note.details, `${label} Details`, itemIndex, true) as string;
		const timeStamp = checkText(this, note.timeStamp, `${label} Time Stamp`, itemIndex, false);
		return { details, timeStamp: timeStamp ?? '' };
	});
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
	const answer = requireObject.call(this, request, await apiUploadMultipart.call(this, request), ['projectId']);
	return toResults({ ...answer, fileName, fileSize: file.data.length, sourceLanguage });
}
