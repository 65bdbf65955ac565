import type { INodeProperties } from 'n8n-workflow';

import type { ErrorHints } from '../../transport';
import { languageHint } from '../common/fields';

export const uploadErrorHints: ErrorHints = {
	'400':
		'The service refuses a file whose name has no supported extension (such as .mp4, .mov, .mp3, .wav, .docx, .pdf or .srt): check the file name.',
};

export const sourceLanguageField: INodeProperties = {
	displayName: 'Source Language',
	name: 'sourceLanguage',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. en',
	hint: languageHint,
	description: 'Language spoken or written in the file',
};

export function fileNameField(fallback: string): INodeProperties {
	return {
		displayName: 'File Name',
		name: 'fileName',
		type: 'string',
		default: '',
		placeholder: 'e.g. episode-01.mp4',
		description: `Name of the file with its extension (the service reads the file type from it). Default: ${fallback}.`,
	};
}

export const folderIdField: INodeProperties = {
	displayName: 'Folder ID',
	name: 'folderId',
	type: 'string',
	default: '',
	description: 'Folder to put the new project in',
};
