import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { isGone, removeOnce, writeOnce } from '../common/writeOnce';
import { forPaidWrite, memoryLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName:
			'Deletes the memory and all its units permanently. Orders that use it no longer get matches from it.',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
	memoryLocator('The translation memory to delete'),
];

export const description = forPaidWrite('memory', 'delete', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const memoryId = readId(this, 'memoryId', 'Memory', itemIndex);
	const path = apiPath`/integration/memories/${memoryId}`;
	const json = await writeOnce(this, itemIndex, removeOnce(this, itemIndex, {
		path,
		isGone: async () => await isGone(this, path, itemIndex),
		applied: { success: true, memoryId, deleted: true },
	}));
	return toResults(json);
}
