import { readOrder } from '../../../shared/readOrder';
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { byRefusal, writeOnce } from '../common/writeOnce';
import { forPaidWrite, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	orderLocator(
		'The order whose human review to cancel: a level 1 order still in progress (ongoing). The human review part of the price is refunded.',
	),
];

export const description = forPaidWrite('order', 'cancelHumanReview', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const request: OllangRequest = {
		method: 'POST',
		path: apiPath`/integration/orders/${orderId}/cancel-human-review`,
		// Changes the order and refunds credits: a second attempt after an unclear failure would be refused anyway.
		retry: 'once',
		itemIndex,
		errorHints: {
			'400':
				'Only a level 1 (human review) order that is still ongoing can be cancelled; once the translator has completed the review it cannot.',
		},
	};
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path },
		send: async () => ({ orderId, ...requireObject.call(this, request, await apiRequest.call(this, request), ['success']) }),
		// A repeat is refused as "not level 1": the review was cancelled, the order is level 0 again.
		lostAnswer: byRefusal([400], async () => (((await readOrder(this, orderId, { itemIndex })).level === 0) ? { orderId, success: true } : undefined)),
	});
	return toResults(json);
}
