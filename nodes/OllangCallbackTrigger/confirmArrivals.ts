import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { OrderRead } from '../shared/readOrder';
import { readOrder } from '../shared/readOrder';
import { sharedRead } from '../shared/sharedReads';
import type { Arrival } from './arrival';
import { arrivalOf } from './arrival';
import { completionItem, CONFIRMING, judge } from './confirm';
import { ANSWER_KEEP_MS, confirmedByPush, noteForSweep, readsOf, rememberAnswer, triggerScope } from './processed';
import { memoryKeys } from './receive';
import { REFUSED_READS_PER_MINUTE, withinRefusalBudget } from './readBudget';

// What each arrival (a pushed callback, a completion the sweep found) comes to: confirmed with the API's order, or dropped.

const LOG = 'Ollang Callback Trigger:';

/**
 * A completion the API shows: its key in n8n's store, the item to emit, and (push) the claims answered without an
 * execution from then on: the callback's, and the one naming this completion.
 */
export interface ConfirmedCompletion {
	completionKey: string;
	json: IDataObject;
	claims: string[];
}

/** What an arrival came to: confirmed, or not (and whether that is an error the execution should fail with). */
type Outcome = { confirmed: ConfirmedCompletion } | { dropped: string; error?: Error };

/**
 * Get Order, shared by the callbacks of one order confirmed at the same time in this process. A swept completion's
 * order is the one this process's sweep read moments ago (sweep.ts keeps it), if it did (in queue mode a worker runs
 * the execution, and reads it).
 */
async function readShared(ctx: IExecuteFunctions, scope: string, arrival: Arrival): Promise<OrderRead | undefined> {
	const { orderId } = arrival.callback;
	const read = async () => await readOrder(ctx, orderId, CONFIRMING);
	if (arrival.arrivedBy === 'sweep') return await sharedRead(readsOf(scope), `sweep:${orderId}`, read);
	return await sharedRead(readsOf(scope), `push:${orderId}`, async () => await withinRefusalBudget(scope, read, (answer) => 'refusedWith' in answer));
}

/**
 * The claim (receive.ts's memory of answers) of the callback that names this completion: once it is emitted, that
 * callback's repeats need no execution. For an order, the callback naming the completion's instant, which is not
 * the one that brought it when a callback whose instant the order's log does not show was confirmed as the order's
 * current completion.
 */
function claimOfCompletion(callback: Arrival['callback'], completionKey: string): string {
	if (callback.event !== 'orderCompleted') return memoryKeys(callback).claim;
	const instant = completionKey.slice(`order:${callback.orderId}:`.length);
	return Number.isNaN(Date.parse(instant)) ? memoryKeys(callback).claim : memoryKeys({ ...callback, completedAt: instant }).claim;
}

/** A pushed callback: confirmed by the API's order, or dropped (remembered, so its repeats start no execution). */
async function confirmPush(ctx: IExecuteFunctions, scope: string, arrival: Extract<Arrival, { arrivedBy: 'push' }>): Promise<Outcome> {
	const { callback } = arrival;
	const keys = memoryKeys(callback);
	const read = await readShared(ctx, scope, arrival);
	if (read === undefined) {
		return { dropped: `${keys.claim} not read: ${REFUSED_READS_PER_MINUTE} reads the API refused in the last minute (forged callbacks?)` };
	}
	const confirmation = judge(callback, read);
	if (confirmation.confirmed) {
		confirmedByPush(scope, callback.orderId);
		// A completedAt the order's log does not show (forged, or an order without a log) stood for the current
		// completion: its repeats, and the current completion's own callbacks, are settled with it.
		const claims = [...new Set([keys.claim, claimOfCompletion(callback, confirmation.completionKey)])];
		return { confirmed: { completionKey: confirmation.completionKey, json: { ...confirmation.item, completionKey: confirmation.completionKey, arrivedBy: 'push' }, claims } };
	}
	if (!confirmation.later) {
		const key = 'refusedWith' in read ? keys.unknownOrder : keys.claim;
		rememberAnswer(scope, key, `an execution found: ${confirmation.reason}`, ANSWER_KEEP_MS.refused);
	}
	return { dropped: `callback not confirmed by the Ollang API (${keys.claim}): ${confirmation.reason}` };
}

/** A completion the sweep found: emitted with the API's full order (as the sweep read it, or read now), else with what the sweep's item showed. */
async function confirmSwept(ctx: IExecuteFunctions, scope: string, arrival: Extract<Arrival, { arrivedBy: 'sweep' }>): Promise<Outcome> {
	const { callback, completionKey, found } = arrival;
	let read: OrderRead | undefined;
	try {
		read = await readShared(ctx, scope, arrival);
	} catch (error) {
		ctx.logger.warn(`${LOG} ${completionKey}: the order could not be read again (${(error as Error).message}); emitted with what the sweep read`);
	}
	if (read === undefined || 'refusedWith' in read) return { confirmed: { completionKey, json: { event: callback.event, orderId: callback.orderId, ...found, completionKey, arrivedBy: 'sweep' }, claims: [] } };
	const latest = read.order.latestEvaluation as IDataObject | null | undefined;
	const evaluation = callback.event === 'qcEvaluationCompleted' && latest?.id === callback.evalId ? latest : (found.evaluation as IDataObject | undefined);
	return { confirmed: { completionKey, json: { ...completionItem(callback, read.order, evaluation), completionKey, arrivedBy: 'sweep' }, claims: [] } };
}

/**
 * The first step of every production execution this trigger starts: each arrival confirmed with the API (a push's
 * claim is only a claim until Get Order shows the completion), as the completion the API shows. What cannot be
 * confirmed now is logged and left to the sweep; with the sweep off, a failed read fails the execution (n8n's
 * retry of the execution reads again), as nothing else would find it.
 */
export async function confirmArrivals(this: IExecuteFunctions, items: INodeExecutionData[], sweepOn: boolean): Promise<ConfirmedCompletion[]> {
	const scope = triggerScope(this);
	const outcomes = await Promise.all(
		items.map(async (item): Promise<Outcome> => {
			const arrival = arrivalOf(item.json);
			if (arrival === undefined) return { dropped: 'an input item this trigger did not make (edited or pinned data?)' };
			if (arrival.arrivedBy === 'sweep') return await confirmSwept(this, scope, arrival);
			try {
				const outcome = await confirmPush(this, scope, arrival);
				if ('dropped' in outcome) noteForSweep(scope, arrival.callback.orderId);
				return outcome;
			} catch (error) {
				noteForSweep(scope, arrival.callback.orderId);
				const reason = `${memoryKeys(arrival.callback).claim} could not be confirmed with the Ollang API (${(error as Error).message})`;
				return { dropped: reason, error: error as Error };
			}
		}),
	);
	const failed = outcomes.find((outcome): outcome is { dropped: string; error: Error } => 'error' in outcome && outcome.error !== undefined);
	if (failed !== undefined && !sweepOn) throw failed.error;
	const confirmed: ConfirmedCompletion[] = [];
	for (const outcome of outcomes) {
		if ('confirmed' in outcome) confirmed.push(outcome.confirmed);
		else this.logger.warn(`${LOG} ${outcome.dropped}; ${sweepOn ? 'the sweep emits it once the API shows it completed' : 'nothing emitted (the sweep is off)'}`);
	}
	return confirmed;
}
