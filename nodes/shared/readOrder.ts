import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { OllangContext, OllangRequest } from '../Ollang/transport';
import { apiPath, apiRequest } from '../Ollang/transport';
import { requireObject } from '../Ollang/actions/common/responses';
import { asNodeError } from '../OllangTrigger/pollSession';

// Get Order, the one way the package reads an order to act on it: Order > Get, Download Files (and its read for
// fresh links), Create and Wait's checks, the checks of an order action's effect (write-once), the Callback
// Trigger's confirmations and sweeps (the Ollang Trigger's poll reads the answer's headers too, for its clock). What
// it decides: the request (safe to repeat, so the transport retries it), that the answer is an order (an object with
// its id), and what a failure is: a node error naming the item it was for, or, for a caller judging an order id
// someone else gave (`refusal: 'answer'`), the API's lasting refusal (an unknown order, another account's).

/** Get Order's answer, or the API's lasting refusal of it. */
export type OrderRead = { order: IDataObject } | { refusedWith: number };

/** `itemIndex`: the item the read is for, named in its errors; `refusal: 'answer'`: a lasting refusal answered, not thrown. */
export type OrderReading = { itemIndex?: number; timeoutMs?: number; refusal?: 'answer' };

export async function readOrder(ctx: OllangContext, orderId: string, reading: OrderReading & { refusal: 'answer' }): Promise<OrderRead>;
export async function readOrder(ctx: OllangContext, orderId: string, reading?: OrderReading): Promise<IDataObject>;
export async function readOrder(ctx: OllangContext, orderId: string, reading: OrderReading = {}): Promise<OrderRead | IDataObject> {
	const { itemIndex, timeoutMs, refusal } = reading;
	const request: OllangRequest = { method: 'GET', path: apiPath`/integration/orders/${orderId}`, retry: 'safe', itemIndex, timeoutMs };
	try {
		const order = requireObject.call(ctx, request, await apiRequest.call(ctx, request), ['id']);
		return refusal === 'answer' ? { order } : order;
	} catch (error) {
		// A 4xx (an unknown order, not this key's) is a lasting answer, not a failure to retry.
		const status = error instanceof NodeApiError ? Number(error.httpCode) : NaN;
		if (refusal === 'answer' && status >= 400 && status < 500 && status !== 408 && status !== 429) return { refusedWith: status };
		throw asNodeError(ctx.getNode(), error);
	}
}
