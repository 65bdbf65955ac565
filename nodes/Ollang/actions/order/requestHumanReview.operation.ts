import { readOrder } from '../../../shared/readOrder';
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../transport';
import { byRefusal, writeOnce } from '../common/writeOnce';
import { forPaidWrite, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName:
			'Adds a human linguist review to a completed or delivered AI order. This spends credits (the level 1 price minus the level 0 price).',
		name: 'humanReviewNotice',
		type: 'notice',
		default: '',
	},
	orderLocator('The order to review: its status must be completed or delivered'),
];

export const description = forPaidWrite('order', 'requestHumanReview', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const applied = { success: true, orderId, humanReviewRequested: true };
	const json = await writeOnce(this, itemIndex, {
		request: { orderId },
		send: async () => {
			await apiRequest.call(this, {
				method: 'POST',
				path: apiPath`/integration/orders/${orderId}/human-review`,
				// Spends credits: repeated only where the service cannot have acted.
				retry: 'once',
				expectBody: false,
				itemIndex,
			});
			return applied;
		},
		// A repeat (n8n Retry) is refused as not eligible: the order is level 1 now, its review under way or done.
		lostAnswer: byRefusal([400], async () => ((await readOrder(this, orderId, { itemIndex })).level === 1 ? applied : undefined)),
	});
	return toResults(json);
}
