import type { IDataObject } from 'n8n-workflow';

import type { FileContext } from '../../../transport';
import { mapConcurrent } from '../../../transport';
import { isRecord } from '../../common/responses';
import { readOrder } from '../orderFiles';
import type { WaitState } from './state';

// The API's word on the orders a waiting execution created: each is read (Get Order) on every request to the resume
// URL, and when the node's own 'checkAgain' items come back into it. The request itself is never believed (the API's callback is not signed; whoever holds the URL can POST to
// it): it only makes the node ask.

/** Statuses at which an order is done; the reference's completion callback fires at the first. */
const DONE_STATUSES = ['completed', 'delivered'];
/** Statuses at which an order will not complete: waiting for it would never end. */
const ENDED_STATUSES = ['cancelled', 'canceled'];

/** Get Order requests at once; the API's rate limit is per key. */
const READS_AT_ONCE = 4;

export type Progress = 'done' | 'ended' | 'pending';

/** Where an order stands; with `qc`, a done order whose Auto QC evaluation has not finished is still pending. */
export function progressOf(order: IDataObject, qc: boolean): Progress {
	const status = String(order.status ?? '');
	if (ENDED_STATUSES.includes(status)) return 'ended';
	if (!DONE_STATUSES.includes(status)) return 'pending';
	if (!qc) return 'done';
	const evaluation = order.latestEvaluation;
	return isRecord(evaluation) && evaluation.isLoading === false ? 'done' : 'pending';
}

export interface ReadOrder {
	item: number;
	order: IDataObject;
	progress: Progress;
}

/** Reads every order the items created, in item order; a failed read (after the transport's retries) is thrown. */
export async function readOrders(ctx: FileContext, state: WaitState): Promise<ReadOrder[]> {
	const wanted = state.items.flatMap((entry) => entry.orders.map((orderId) => ({ entry, orderId })));
	return await mapConcurrent(wanted, READS_AT_ONCE, async ({ entry, orderId }) => {
		const order = await readOrder.call(ctx, orderId, entry.item);
		return { item: entry.item, order, progress: progressOf(order, entry.qc) };
	});
}
