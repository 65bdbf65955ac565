import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { MultipartPart, OllangRequest } from '../../transport';
import { apiPath, apiRequest, apiUploadMultipart, filePart, textPart } from '../../transport';
import { readInputFile } from '../common/binary';
import { binaryPropertyField, forPaidWrite, languageField, projectLocator } from '../common/fields';
import { checkOptionalLanguageOrAll } from '../common/languages';
import { toResults } from '../common/outcomes';
import { checkText, invalidField, readId, readText } from '../common/parameters';
import { requireObject } from '../common/responses';
import { records } from '../common/simplify';
import { byListing, writeOnce } from '../common/writeOnce';
import type { OperationKind, OperationResult } from '../node.type';
import { fileNameField } from './values';

/** The public docs' limit for a VTT file. */
export const MAX_VTT_BYTES = 1024 * 1024 * 1024;

const properties: INodeProperties[] = [
	projectLocator('The project the subtitles belong to'),
	binaryPropertyField('The binary field of the input item that holds the WebVTT subtitle file (.vtt, at most 1 GB)'),
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. Episode 1 subtitles',
		description: 'Name shown for the subtitle file in the project',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			fileNameField("the binary's file name; it must end with .vtt"),
			languageField(
				{
					name: 'sourceLanguage',
					displayName: 'Source Language',
					description: 'Language of the subtitles; left empty, the service detects it',
				},
				{ detect: true },
			),
		],
	},
];

export const description = forPaidWrite('upload', 'uploadVtt', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const projectId = readId(this, 'projectId', 'Project', itemIndex);
	const name = readText(this, 'name', 'Name', itemIndex);
	const extra = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const sourceLanguage = checkOptionalLanguageOrAll(this, extra.sourceLanguage, 'Source Language', itemIndex);
	const givenName = checkText(this, extra.fileName, 'File Name', itemIndex, false);
	const file = await readInputFile(this, itemIndex, MAX_VTT_BYTES);
	const fileName = givenName ?? file.fileName;
	const field = givenName !== undefined ? 'File Name' : 'Input Binary Field file name';
	if (fileName === undefined || !/^.+\.vtt$/i.test(fileName)) {
		throw invalidField(
			this,
			itemIndex,
			field,
			`${fileName === undefined ? 'the file has no name' : `"${fileName}" is not a .vtt file`}; this operation uploads WebVTT subtitles only (use Upload File for other files)`,
		);
	}

	const parts: MultipartPart[] = [
		filePart('file', file.data, fileName, 'text/vtt'),
		textPart('projectId', projectId),
		textPart('name', name),
	];
	if (sourceLanguage !== undefined) parts.push(textPart('sourceLanguage', sourceLanguage));

	const request: OllangRequest & { parts: MultipartPart[] } = {
		method: 'POST',
		path: '/integration/upload/vtt',
		parts,
		// Adds a file to the project: a blind repeat could add it twice.
		retry: 'once',
		itemIndex,
		timeoutMs: 600_000,
		errorHints: {
			'400': 'The service takes WebVTT files (.vtt) only, and a project ID of 24 hexadecimal characters.',
		},
	};
	const uploaded = { name, fileName, fileSize: file.data.length, ...(sourceLanguage ? { sourceLanguage } : {}) };
	// The project's documents (Get Project): a subtitle file named so, new since sending, was added by this request.
	const project: OllangRequest = { method: 'GET', path: apiPath`/integration/project/${projectId}`, retry: 'safe', itemIndex };
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, parts },
		send: async () => ({
			...requireObject.call(this, request, await apiUploadMultipart.call(this, request), ['projectId']),
			...uploaded,
		}),
		lostAnswer: byListing(
			async () => records(requireObject.call(this, project, await apiRequest.call(this, project)).projectDocs),
			(document) => document.name === name || document.name === fileName,
			() => ({ projectId, ...uploaded }),
		),
		identity: { projectId, ...uploaded },
	});
	return toResults(json);
}
