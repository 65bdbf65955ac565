import type { IDataObject } from 'n8n-workflow';

import type { FileContext } from '../../../transport';
import { mapConcurrent } from '../../../transport';
import type { OrderProgress } from '../../../../shared/orderProgress';
import { orderProgress } from '../../../../shared/orderProgress';
import { readOrder } from '../../../../shared/readOrder';
import type { WaitState } from './state';

// The API's word on the orders a wait is for: each is read (Get Order) before the node waits, at each check, and on
// every request to the resume URL. A request is never believed (the API's callback is not signed; whoever holds the
// URL can POST to it): it only makes the node ask.

/** Get Order requests at once; the API's rate limit is per key. */
const READS_AT_ONCE = 4;

export interface ReadOrder {
	item: number;
	order: IDataObject;
	progress: OrderProgress;
}

/** Reads every order of the wait, in item order; a failed read (after the transport's retries) is thrown. */
export async function readOrders(ctx: FileContext, state: WaitState): Promise<ReadOrder[]> {
	const wanted = state.items.flatMap((entry) => entry.orders.map((orderId) => ({ entry, orderId })));
	return await mapConcurrent(wanted, READS_AT_ONCE, async ({ entry, orderId }) => {
		const order = await readOrder(ctx, orderId, { itemIndex: entry.item });
		return { item: entry.item, order, progress: orderProgress(order, entry.qc) };
	});
}

/** Whether no order is under way any more (each done or cancelled). */
export function allSettled(reads: ReadOrder[]): boolean {
	return reads.every((read) => read.progress !== 'underWay');
}
