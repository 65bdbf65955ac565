import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { binaryOutputField, downloadXlsx } from '../common/binary';
import { forReadOperation, languagesField } from '../common/fields';
import { checkId, checkText, invalidField } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName: 'Folder Names or IDs',
		name: 'folderIds',
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getFolders' },
		default: [],
		required: true,
		description:
			'The folders to export (at least one); every order with segment data in them becomes a sheet. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	languagesField({
		name: 'targetLanguages',
		displayName: 'Target Language',
		description: 'Only orders translated into these languages. Empty: every language.',
	}),
	binaryOutputField('XLSX file (one sheet per order and language, named "{Order Name} - {language}")'),
];

export const description = forReadOperation('folder', 'exportXlsx', properties);

export const kind: OperationKind = 'read';

/** A list field's values: a list, or text with values separated by commas; blanks are dropped. */
function readList(ctx: IExecuteFunctions, name: string, field: string, itemIndex: number): string[] {
	const value = ctx.getNodeParameter(name, itemIndex, []) as unknown;
	const entries: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
	return entries
		.flatMap((entry) => (typeof entry === 'string' ? entry.split(',') : [entry]))
		.map((entry) => checkText(ctx, entry, field, itemIndex, false))
		.filter((entry): entry is string => entry !== undefined);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderIds = readList(this, 'folderIds', 'Folder Names or IDs', itemIndex).map((id) =>
		checkId(this, id, 'Folder Names or IDs', itemIndex),
	);
	if (folderIds.length === 0) throw invalidField(this, itemIndex, 'Folder Names or IDs', 'give at least one folder');
	const targetLanguages = readList(this, 'targetLanguages', 'Target Languages', itemIndex);
	return await downloadXlsx(
		this,
		itemIndex,
		{
			method: 'POST',
			path: '/integration/folder/export-xlsx',
			body: { folderIds, targetLanguages },
			// Reads only (a POST for its body): safe to repeat.
			retry: 'safe',
			itemIndex,
			timeoutMs: 300_000,
			errorHints: {
				'500':
					'No order in these folders has segment data in these languages yet. The export works once the AI pipeline has produced segments.',
			},
			// The answer for folders without segment data: asking again gives the same.
			lastingErrors: [{ status: 500, message: /no segment data found/i }],
		},
		`bulk_export_${new Date().toISOString().slice(0, 10)}.xlsx`,
		{ folderIds, targetLanguages },
	);
}
