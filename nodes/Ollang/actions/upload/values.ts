import type { INodeProperties } from 'n8n-workflow';

import type { ErrorHints } from '../../transport';
import { folderListLocator, languageField, optionalLocator } from '../common/fields';

export const uploadErrorHints: ErrorHints = {
	'400':
		'The service refuses a file whose name has no supported extension (such as .mp4, .mov, .mp3, .wav, .docx, .pdf or .srt): check the file name.',
};

export const sourceLanguageField: INodeProperties = languageField({
	name: 'sourceLanguage',
	displayName: 'Source Language',
	description: 'Language spoken or written in the file',
	required: true,
});

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

export const folderIdField: INodeProperties = optionalLocator(folderListLocator('Folder to put the new project in'));
