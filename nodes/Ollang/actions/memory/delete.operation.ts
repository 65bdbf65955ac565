import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../transport';
import { isGone, sendOrConfirm } from '../common/alreadyApplied';
import { forOperation, memoryLocator } from '../common/fields';
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

export const description = forOperation('memory', 'delete', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const memoryId = readId(this, 'memoryId', 'Memory', itemIndex);
	const path = apiPath`/integration/memories/${memoryId}`;
	const json = await sendOrConfirm(this, itemIndex, {
		send: async () => {
			await apiRequest.call(this, {
				method: 'DELETE',
				path,
				// A repeat after an unclear failure would answer 404 and hide the deletion: not repeated blindly.
				retry: 'once',
				expectBody: false,
				itemIndex,
			});
			return { success: true, memoryId, deleted: true };
		},
		// A repeat answers 404: the thing is gone, as asked.
		refusals: [404],
		confirm: async () => ((await isGone(this, path, itemIndex)) ? { success: true, memoryId, deleted: true } : undefined),
	});
	return toResults(json);
}
