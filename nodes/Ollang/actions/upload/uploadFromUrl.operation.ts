import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { checkFileName, lastPathSegment } from '../common/binary';
import { forPaidWrite } from '../common/fields';
import { checkLanguageCode } from '../common/languages';
import { toResults } from '../common/outcomes';
import { checkNumberInRange, checkText, checkUrl, readOptionalId } from '../common/parameters';
import { requireObject } from '../common/responses';
import { writeOnce } from '../common/writeOnce';
import { projectSettlement } from './newProject';
import type { OperationKind, OperationResult } from '../node.type';
import { fileNameField, folderIdField, sourceLanguageField, uploadErrorHints } from './values';

const properties: INodeProperties[] = [
	{
		displayName: 'File URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/media/episode-01.mp4',
		description: 'Address the service downloads the file from',
	},
	{
		displayName: 'File Size (Bytes)',
		name: 'size',
		type: 'number',
		default: 0,
		required: true,
		typeOptions: { minValue: 1 },
		description: 'Size of the file in bytes, as the service requires it up front',
	},
	sourceLanguageField,
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [fileNameField('the last part of the URL'), folderIdField],
	},
];

export const description = forPaidWrite('upload', 'uploadFromUrl', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const url = checkUrl(this, this.getNodeParameter('url', itemIndex), 'File URL', itemIndex);
	const size = checkNumberInRange(this, this.getNodeParameter('size', itemIndex), 'File Size (Bytes)', itemIndex, {
		min: 1,
	});
	const sourceLanguage = checkLanguageCode(this, this.getNodeParameter('sourceLanguage', itemIndex), 'Source Language', itemIndex);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const givenName = checkText(this, extra.fileName, 'File Name', itemIndex, false);
	const originalname = checkFileName(
		this,
		givenName ?? lastPathSegment(url),
		givenName !== undefined ? 'File Name' : 'File URL (file name taken from its last part)',
		itemIndex,
	);
	const folderId = readOptionalId(this, extra, 'additionalFields.folderId', 'Folder', itemIndex);
	const body: IDataObject = { url, originalname, size, sourceLanguage };
	if (folderId !== undefined) body.folderId = folderId;

	const request: OllangRequest = {
		method: 'POST',
		path: '/integration/upload/direct-url',
		body,
		// Creates a project: a blind repeat could create two.
		retry: 'once',
		itemIndex,
		errorHints: uploadErrorHints,
	};
	const uploaded = { fileName: originalname, sourceLanguage };
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, body },
		send: async () => ({
			...requireObject.call(this, request, await apiRequest.call(this, request), ['projectId']),
			...uploaded,
		}),
		// The service names the project after the file (without its extension, or with it).
		lostAnswer: projectSettlement(this, itemIndex, { name: originalname.replace(/\.[^.]+$/, ''), sourceLanguage, folderId }, (project) => ({
			projectId: project.id,
			...uploaded,
		})),
		identity: uploaded,
	});
	return toResults(json);
}
