import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { isUnlisted, removeOnce, writeOnce } from '../common/writeOnce';
import { forPaidWrite, orderLocator, revisionLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { REVISION_FORBIDDEN_HINT } from './values';

const properties: INodeProperties[] = [
	orderLocator('The order the revision request belongs to'),
	revisionLocator('The revision request to withdraw: listed once the order is chosen'),
];

export const description = forPaidWrite('revision', 'delete', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const revisionId = readId(this, 'revisionId', 'Revision', itemIndex);
	const json = await writeOnce(this, itemIndex, removeOnce(this, itemIndex, {
		path: apiPath`/integration/revision/${orderId}/${revisionId}`,
		errorHints: {
			'400': 'The revision belongs to another order: check that the Order and the Revision ID go together.',
			'403': REVISION_FORBIDDEN_HINT,
			'404': 'Check the IDs: the order or the revision does not exist (or was already deleted).',
		},
		// The order's revision requests no longer hold it.
		isGone: async () => await isUnlisted(this, apiPath`/integration/revision/${orderId}`, revisionId, itemIndex),
		applied: { success: true, orderId, revisionId, deleted: true },
	}));
	return toResults(json);
}
