import type { INodePropertyOptions } from 'n8n-workflow';

/** What a revision request is about (the API's revision types). */
export const revisionTypes: INodePropertyOptions[] = [
	{ name: 'Format Error', value: 'formatError', description: 'The file or subtitle format is wrong' },
	{ name: 'Missing Subtitle', value: 'missingSubtitle', description: 'A line that is spoken has no subtitle' },
	{ name: 'Other', value: 'other', description: 'Anything else; explain it in the description' },
	{ name: 'Sync Error', value: 'syncError', description: 'A subtitle appears too early or too late' },
	{ name: 'Wrong Subtitle', value: 'wrongSubtitle', description: 'A subtitle is mistranslated or misspelt' },
];

/** Days after delivery during which revisions can be requested (the API's revision window). */
export const REVISION_WINDOW_DAYS = 14;

/** 403 on the revision endpoints: what the key's user lacks. */
export const REVISION_FORBIDDEN_HINT =
	"The API key's user has no access to this order, or only read access (creating or deleting revisions needs write access to the order's folder).";
