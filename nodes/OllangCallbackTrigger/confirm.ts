import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { apiPath, apiRequest } from '../Ollang/transport';
import { asNodeError } from '../OllangTrigger/pollSession';
import type { Callback } from './callback';

/**
 * What the API says about a callback: confirmed with the item to emit, or not and why. `later`: the API may not show
 * it yet (the order not completed, the evaluation still running), so the API is asked to call again.
 */
export type Confirmation = { confirmed: true; item: IDataObject } | { confirmed: false; reason: string; later: boolean };

/** Per read; the whole confirmation is bounded by the receiver's budget besides (receive.ts). */
const READ_TIMEOUT_MS = 5_000;

const DONE_STATUSES = ['completed', 'delivered'];

/** A 4xx from the API (unknown order, not this key's): a lasting answer, not a failure to retry. */
function isLastingRefusal(error: unknown): error is NodeApiError {
	const status = error instanceof NodeApiError ? Number(error.httpCode) : NaN;
	return status >= 400 && status < 500 && status !== 408 && status !== 429;
}

/**
 * Asks the API whether the callback is true (Get Order, the reference's advice): the order is completed or
 * delivered; for QC, its latest evaluation is this one and finished. The item is the API's answer, never the
 * callback's body. A failed read (after the transport's retries) is thrown: the caller answers so the API calls again.
 */
export async function confirmCallback(this: IWebhookFunctions, callback: Callback): Promise<Confirmation> {
	let order: IDataObject;
	try {
		order = (await apiRequest.call(this, {
			method: 'GET',
			path: apiPath`/integration/orders/${callback.orderId}`,
			retry: 'safe',
			timeoutMs: READ_TIMEOUT_MS,
		})) as IDataObject;
	} catch (error) {
		if (isLastingRefusal(error)) return { confirmed: false, reason: `the API answered ${error.httpCode} for order ${callback.orderId}`, later: false };
		throw asNodeError(this.getNode(), error);
	}
	const status = String(order.status);
	if (callback.event === 'orderCompleted') {
		if (!DONE_STATUSES.includes(status)) return { confirmed: false, reason: `order ${callback.orderId} is ${status}, not completed`, later: true };
		return { confirmed: true, item: { event: callback.event, orderId: callback.orderId, order } };
	}
	const evaluation = order.latestEvaluation as IDataObject | null | undefined;
	if (!evaluation || evaluation.id !== callback.evalId) {
		return { confirmed: false, reason: `evaluation ${callback.evalId} is not the latest of order ${callback.orderId}`, later: false };
	}
	if (evaluation.isLoading === true) return { confirmed: false, reason: `evaluation ${callback.evalId} is still running`, later: true };
	return { confirmed: true, item: { event: callback.event, orderId: callback.orderId, evalId: callback.evalId, evaluation, order } };
}
