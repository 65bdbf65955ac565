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
			'Cancels the order for good: only pending orders, or ongoing orders whose AI processing has not finished yet, can be cancelled. A cancelled order cannot be resumed.',
		name: 'cancelNotice',
		type: 'notice',
		default: '',
	},
	orderLocator('The order to cancel: its status must be pending, or ongoing with its AI processing not yet finished'),
];

export const description = forPaidWrite('order', 'cancel', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const applied = { success: true, orderId, cancelled: true };
	const json = await writeOnce(this, itemIndex, {
		request: { orderId },
		send: async () => {
			await cancelOrder.call(this, orderId, itemIndex);
			return applied;
		},
		// A repeat answers 409 (already cancelled).
		lostAnswer: byRefusal([400, 409], async () => ((await readOrder(this, orderId, { itemIndex })).status === 'cancelled' ? applied : undefined)),
	});
	return toResults(json);
}

async function cancelOrder(this: IExecuteFunctions, orderId: string, itemIndex: number): Promise<void> {
	await apiRequest.call(this, {
		method: 'POST',
		path: apiPath`/integration/orders/cancel/${orderId}`,
		// Changes the order for good: a repeat after an unclear failure would answer 409 and hide the outcome.
		retry: 'once',
		expectBody: false,
		itemIndex,
		errorHints: {
			ORDER_NOT_ELIGIBLE:
				'Only pending orders, or ongoing orders whose AI processing has not finished, can be cancelled. Get the order to see its status.',
			'400':
				'Only pending orders, or ongoing orders whose AI processing has not finished, can be cancelled. Get the order to see its status.',
			'409': 'The order is already cancelled: nothing more to do.',
		},
	});
}
