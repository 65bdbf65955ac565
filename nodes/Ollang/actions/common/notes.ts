import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkText } from './parameters';

export interface Note {
	details: string;
	timeStamp: string;
}

/** Notes for the linguists, each with its place in the media: Upload File and Project > Create From URL. */
export const notesField: INodeProperties = {
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
};

/** The notes of a Notes field's value, checked: details required, time stamp optional (empty text). */
export function readNotes(ctx: IExecuteFunctions, value: unknown, itemIndex: number): Note[] {
	const notes = ((value as IDataObject | undefined)?.note as IDataObject[] | undefined) ?? [];
	return notes.map((note, position) => {
		const label = `Notes > note ${position + 1}`;
		const details = checkText(ctx, note.details, `${label} Details`, itemIndex, true) as string;
		const timeStamp = checkText(ctx, note.timeStamp, `${label} Time Stamp`, itemIndex, false);
		return { details, timeStamp: timeStamp ?? '' };
	});
}
