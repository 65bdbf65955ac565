import type { IDataObject } from 'n8n-workflow';

import type { OrderRead, OrderReading } from '../shared/readOrder';
import { isDoneStatus, isFinishedEvaluation } from '../shared/orderProgress';
import type { Callback } from './callback';

// Whether the API's order confirms a callback, which completion it is (its key in n8n's store), and what is emitted.

/**
 * What the API says about a callback: confirmed with the completion it is (`completionKey`) and the item to emit, or
 * not and why. `later`: the API may not show it yet (the order not completed, the evaluation still running): the
 * sweep emits it once the API does.
 */
export type Confirmation =
	| { confirmed: true; completionKey: string; item: IDataObject }
	| { confirmed: false; reason: string; later: boolean };

/**
 * How the trigger reads an order to confirm a callback: the API's refusal (an unknown order, another account's) as
 * an answer, and each read bounded (after the transport's own retries, the execution leaves the callback to the sweep).
 */
export const CONFIRMING: OrderReading & { refusal: 'answer' } = { refusal: 'answer', timeoutMs: 5_000 };

/**
 * The delivery events that complete an order (the reference's DeliveryEvent types): the AI pipeline's delivery for
 * an AI-only order, the LSP's approval for a reviewed one. A rerun adds a new one; the order's later delivery to
 * the client (order_delivered) and a translator's delivery do not complete it.
 */
export const COMPLETING_EVENTS = ['ai_delivered', 'lsp_approved'] as const;

/**
 * Which completion of the order the API shows: its latest completing delivery event, `order:<orderId>:<occurredAt>`.
 * The log is append-only (oldest first, never backfilled), so repeats and forged variants of one completion find
 * the same event and a rerun finds a new one. The key has the shape the node used before (`completedAt` from the
 * callback), and the API's callback names the same instant, so n8n's store keeps recognising what it recorded.
 * An order whose log shows no completing event (made before the log existed) is one completion per order.
 */
export function orderCompletionKey(orderId: string, order: IDataObject): string {
	const latest = completingEvents(order).at(-1);
	return latest === undefined ? `order:${orderId}:no-delivery-log` : completionKeyOf(orderId, latest);
}

function completionKeyOf(orderId: string, event: IDataObject): string {
	return `order:${orderId}:${String(event.occurredAt)}`;
}

/** The order's completing delivery events, oldest first. */
function completingEvents(order: IDataObject): IDataObject[] {
	const events = Array.isArray(order.deliveryEvents) ? (order.deliveryEvents as IDataObject[]) : [];
	return events.filter((event) => (COMPLETING_EVENTS as readonly string[]).includes(String(event.type)) && typeof event.occurredAt === 'string');
}

/** The completing event of the order's delivery log at this instant (any writing of it), if the log shows one. */
function completionAt(order: IDataObject, instant: string): IDataObject | undefined {
	const at = Date.parse(instant);
	return Number.isNaN(at) ? undefined : completingEvents(order).find((event) => Date.parse(String(event.occurredAt)) === at);
}

/**
 * Whether the API's answer confirms the callback. An order's callback is the completion it names when the order's
 * delivery log shows a completing event at that instant, whatever happened since (a rerun under way, or completed
 * again): the log is the API's word, and a late callback of an earlier completion is that completion. Any other
 * `completedAt` (forged, or an order without a log) chooses nothing: the callback stands for the completion the API
 * shows, once the order is completed or delivered. For QC, the order's latest evaluation is this one and finished.
 * The item is the API's answer, never the callback's body.
 */
export function judge(callback: Callback, read: OrderRead): Confirmation {
	if ('refusedWith' in read) return { confirmed: false, reason: `the API answered ${read.refusedWith} for order ${callback.orderId}`, later: false };
	const { order } = read;
	const status = String(order.status);
	if (callback.event === 'orderCompleted') {
		const named = completionAt(order, callback.completedAt);
		if (named !== undefined) return { confirmed: true, completionKey: completionKeyOf(callback.orderId, named), item: completionItem(callback, order) };
		if (!isDoneStatus(status)) return { confirmed: false, reason: `order ${callback.orderId} is ${status}, not completed`, later: true };
		return { confirmed: true, completionKey: orderCompletionKey(callback.orderId, order), item: completionItem(callback, order) };
	}
	const evaluation = order.latestEvaluation as IDataObject | null | undefined;
	if (!evaluation || evaluation.id !== callback.evalId) {
		return { confirmed: false, reason: `evaluation ${callback.evalId} is not the latest of order ${callback.orderId}`, later: false };
	}
	if (!isFinishedEvaluation(evaluation)) return { confirmed: false, reason: `evaluation ${callback.evalId} is still running`, later: true };
	return { confirmed: true, completionKey: `qc:${callback.evalId}`, item: completionItem(callback, order, evaluation) };
}

/** The item a completion emits: the API's order (and evaluation), never a callback's body. */
export function completionItem(callback: Callback, order: IDataObject, evaluation?: IDataObject): IDataObject {
	return callback.event === 'orderCompleted'
		? { event: callback.event, orderId: callback.orderId, order }
		: { event: callback.event, orderId: callback.orderId, evalId: callback.evalId, evaluation: evaluation ?? null, order };
}
