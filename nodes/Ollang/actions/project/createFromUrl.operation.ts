import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { checkFileName, lastPathSegment } from '../common/binary';
import { folderListLocator, forPaidWrite, languageField } from '../common/fields';
import { checkLanguageCode } from '../common/languages';
import { toResults } from '../common/outcomes';
import { checkOptionalId, checkUrl, readText } from '../common/parameters';
import { readLocatorId } from '../common/itemParameters';
import { notesField, readNotes } from '../common/notes';
import { requireObject } from '../common/responses';
import { writeOnce } from '../common/writeOnce';
import { projectSettlement } from '../upload/newProject';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName: 'File URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/media/episode-01.mp4',
		description:
			'Direct address the service downloads the source file from (e.g. a presigned S3 link). Its last part must be a file name with an extension such as .mp4 or .docx.',
	},
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Episode 1',
		description: 'Name of the new project',
	},
	languageField({
		name: 'sourceLanguage',
		displayName: 'Source Language',
		description: 'Language spoken or written in the file',
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
				...folderListLocator("Folder to put the new project in. Default: the account's default folder."),
				required: false,
			},
			notesField,
		],
	},
];

export const description = forPaidWrite('project', 'createFromUrl', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const url = checkUrl(this, this.getNodeParameter('url', itemIndex), 'File URL', itemIndex);
	checkFileName(this, lastPathSegment(url), 'File URL (file name taken from its last part)', itemIndex);
	const name = readText(this, 'name', 'Name', itemIndex);
	const sourceLanguage = checkLanguageCode(this, this.getNodeParameter('sourceLanguage', itemIndex), 'Source Language', itemIndex);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const folderId = checkOptionalId(
		this,
		extra.folderId === undefined ? undefined : readLocatorId(this, 'additionalFields.folderId', itemIndex),
		'Folder',
		itemIndex,
	);
	const notes = readNotes(this, extra.notes, itemIndex);
	const body: IDataObject = { url, name, sourceLanguage };
	if (folderId !== undefined) body.folderId = folderId;
	// A JSON array here, unlike the JSON string of a multipart upload.
	if (notes.length > 0) body.notes = notes;

	const request: OllangRequest = {
		method: 'POST',
		path: '/integration/project/create-by-url',
		body,
		// Creates a project: a blind repeat could create two.
		retry: 'once',
		itemIndex,
		errorHints: {
			'400':
				"The service reads the file type from the URL's last part: it must end with a supported extension (such as .mp4, .mov, .mp3, .docx, .pdf or .srt).",
		},
	};
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, body },
		send: async () => requireObject.call(this, request, await apiRequest.call(this, request), ['projectId']),
		// The answer is the new project as Get Project reads it, with its projectId.
		lostAnswer: projectSettlement(this, itemIndex, { name, sourceLanguage, folderId }, async (project) => {
			const read: OllangRequest = { method: 'GET', path: apiPath`/integration/project/${String(project.id)}`, retry: 'safe', itemIndex };
			return { projectId: project.id, ...requireObject.call(this, read, await apiRequest.call(this, read)) };
		}),
		identity: { name, sourceLanguage },
	});
	return toResults(json);
}
