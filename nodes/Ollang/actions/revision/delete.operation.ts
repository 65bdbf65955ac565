import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { isUnlisted, removeOnce, writeOnce } from '../common/writeOnce';
import { forPaidWrite, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkId, readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { REVISION_FORBIDDEN_HINT } from './values';

const properties: INodeProperties[] = [
	orderLocator('The order the revision request belongs to'),
	{
		displayName: 'Revision ID',
		name: 'revisionId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 6650f1c2a4b3e2d1c0b9a8f7',
		description: 'The revision request to withdraw, as returned by Create or Get Many (ID)',
	},
];

export const description = forPaidWrite('revision', 'delete', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const revisionId = checkId(this, this.getNodeParameter('revisionId', itemIndex, ''), 'Revision ID', itemIndex);
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
