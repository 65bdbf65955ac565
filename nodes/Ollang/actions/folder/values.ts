import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { languageField } from '../common/fields';

/** Maximum size of a folder document upload. */
export const MAX_FOLDER_DOCUMENT_BYTES = 50 * 1024 * 1024;

export const documentTypes: INodePropertyOptions[] = [
	{ name: 'Character List', value: 'character_list' },
	{ name: 'Glossary', value: 'glossary' },
	{ name: 'Guideline', value: 'guideline' },
];

export const documentTypeField: INodeProperties = {
	displayName: 'Document Type',
	name: 'documentType',
	type: 'options',
	options: documentTypes,
	default: 'guideline',
	required: true,
	description: 'What the document gives translators: guidance, fixed terms, or the characters of a story',
};

export const documentDetailsField: INodeProperties = {
	displayName: 'Additional Fields',
	name: 'additionalFields',
	type: 'collection',
	placeholder: 'Add Field',
	default: {},
	options: [
		languageField({ name: 'language', displayName: 'Language', description: 'Language the document applies to' }),
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			description: 'Name shown for the document',
		},
	],
};

/** Get Order Language Pairs: the orders a translator can be assigned to, or those with one. */
export const assignmentStatuses: INodePropertyOptions[] = [
	{
		name: 'Assigned (Translator Assigned, Ongoing)',
		value: 'assigned',
		description: 'Orders Unassign Translator would act on',
	},
	{
		name: 'Unassigned (Completed, No Translator)',
		value: 'unassigned',
		description: 'Orders Assign Translator would act on',
	},
];
