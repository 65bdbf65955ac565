import type { IDataObject } from 'n8n-workflow';

import type { Callback } from './callback';

/** How a completion reached the trigger: a callback the API sent (push), or the API's listing read by the sweep. */
export type ArrivedBy = 'push' | 'sweep';

/**
 * What starts an execution. Push: the callback as its request claimed it (not yet confirmed: the execution reads
 * the order). Sweep: a completion the sweep read in the API, its key, and what the sweep's read showed (used when
 * the execution's own read of the full order fails).
 */
export type Arrival =
	| { arrivedBy: 'push'; callback: Callback }
	| { arrivedBy: 'sweep'; callback: Callback; completionKey: string; found: IDataObject };

/** The execution's input item for an arrival (n8n keeps it in the execution's data, so it stays small). */
export function arrivalItem(arrival: Arrival): IDataObject {
	const { callback } = arrival;
	const item: IDataObject = { arrivedBy: arrival.arrivedBy, ...callback };
	if (arrival.arrivedBy === 'sweep') {
		item.completionKey = arrival.completionKey;
		item.found = arrival.found;
	}
	return item;
}

function text(json: IDataObject, field: string): string | undefined {
	const value = json[field];
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The arrival an input item stands for, or undefined for an item this node's webhook or sweep did not make. */
export function arrivalOf(json: IDataObject): Arrival | undefined {
	const orderId = text(json, 'orderId');
	if (orderId === undefined) return undefined;
	let callback: Callback;
	if (json.event === 'orderCompleted' && text(json, 'completedAt') !== undefined) {
		callback = { event: 'orderCompleted', orderId, completedAt: String(json.completedAt) };
	} else if (json.event === 'qcEvaluationCompleted' && text(json, 'evalId') !== undefined) {
		callback = { event: 'qcEvaluationCompleted', orderId, evalId: String(json.evalId) };
	} else {
		return undefined;
	}
	if (json.arrivedBy === 'push') return { arrivedBy: 'push', callback };
	const completionKey = text(json, 'completionKey');
	if (json.arrivedBy !== 'sweep' || completionKey === undefined) return undefined;
	const found = json.found !== null && typeof json.found === 'object' && !Array.isArray(json.found) ? (json.found as IDataObject) : {};
	return { arrivedBy: 'sweep', callback, completionKey, found };
}
