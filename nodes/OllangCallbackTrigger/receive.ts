import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { ReadRefused, withinReadLimits } from './admission';
import type { Callback } from './callback';
import { claimKey, isRefusal, readCallback } from './callback';
import type { Confirmation, OrderRead } from './confirm';
import { judge, readOrder } from './confirm';
import { ANSWER_KEEP_MS, rememberAnswer, rememberedAnswer, recordEmitted, sharedRead, triggerScope, wasEmitted } from './processed';

/** The API waits 10 s for an answer: the confirmation (a wait for a read included) gets 7, the rest is n8n's and the network's. */
export const CONFIRM_BUDGET_MS = 7_000;

const LOG = 'Ollang Callback Trigger:';

const RECEIVED = { received: true };
const SEND_AGAIN = 'Could not confirm the callback with the Ollang API yet; send it again later';

/** Answers on Node's own response API (what express's extends), so the status is ours, not n8n's 200. */
function answer(ctx: IWebhookFunctions, status: number, body: IDataObject, retryAfterSeconds?: number): IWebhookResponseData {
	const response = ctx.getResponseObject();
	response.statusCode = status;
	response.setHeader('content-type', 'application/json; charset=utf-8');
	if (retryAfterSeconds !== undefined) response.setHeader('retry-after', String(retryAfterSeconds));
	response.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}

function answerWith(ctx: IWebhookFunctions, status: number): IWebhookResponseData {
	return status === 200 ? answer(ctx, 200, RECEIVED) : answer(ctx, status, { message: SEND_AGAIN });
}

/** Steps in which the budget is waited out, so no timer outlives a confirmation by more than one step. */
const BUDGET_STEP_MS = 250;

/** The read, or an error once `deadline` passes (the read may go on; its result is not waited for). */
async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
	let settled = false;
	const tracked = work.finally(() => {
		settled = true;
	});
	const timeUp = (async () => {
		while (!settled && Date.now() < deadline) await sleep(Math.max(1, Math.min(BUDGET_STEP_MS, deadline - Date.now())));
		if (settled) return await tracked;
		throw new Error(`no answer from the API within ${CONFIRM_BUDGET_MS / 1000} s`);
	})();
	return await Promise.race([tracked, timeUp]);
}

/** Where an answer from a read is remembered: the order (unknown, or not completed yet) or the claim. */
function memoryKeys(callback: Callback): { unknownOrder: string; notYet: string; claim: string } {
	const claim = claimKey(callback);
	return {
		unknownOrder: `unknown-order:${callback.orderId}`,
		notYet: callback.event === 'orderCompleted' ? `not-completed:${callback.orderId}` : claim,
		claim,
	};
}

/** Remembers what the API's refusal means for later callbacks, so they are answered without a read. */
function rememberRefusal(ctx: IWebhookFunctions, callback: Callback, read: OrderRead, confirmation: Extract<Confirmation, { confirmed: false }>): void {
	const keys = memoryKeys(callback);
	const status = confirmation.later ? 503 : 200;
	const [key, keepMs] = confirmation.later
		? [keys.notYet, ANSWER_KEEP_MS.notYet]
		: 'refusedWith' in read
			? [keys.unknownOrder, ANSWER_KEEP_MS.refused]
			: [keys.claim, ANSWER_KEEP_MS.refused];
	rememberAnswer(ctx, key, { status, reason: confirmation.reason }, keepMs);
}

/**
 * One callback: refused when it is not one (nothing asked of the API); answered from this process's memory when a
 * read already settled it; else confirmed with the API (one read per order at a time, within the trigger's read
 * limits) and emitted once per completion the API shows. When the API cannot confirm it in time (slow, failing,
 * not showing it yet, or the read limits reached) the answer is 503, so the API calls again later (it retries
 * failed deliveries): the event is not lost, and n8n's log says why.
 */
export async function receiveCallback(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const deadline = Date.now() + CONFIRM_BUDGET_MS;
	const callback = readCallback.call(this, String(this.getNodeParameter('secretToken', '')));
	if (isRefusal(callback)) {
		this.logger.warn(`${LOG} refused a request (${callback.status}): ${callback.reason}`);
		return answer(this, callback.status, { message: 'Not an Ollang callback this trigger accepts' });
	}
	const events = this.getNodeParameter('events', []) as string[];
	if (!events.includes(callback.event)) {
		this.logger.info(`${LOG} ${callback.event} callback for order ${callback.orderId} ignored: the node does not watch this event`);
		return answer(this, 200, RECEIVED);
	}
	const keys = memoryKeys(callback);
	const remembered = rememberedAnswer(this, [keys.unknownOrder, keys.notYet, keys.claim]);
	if (remembered !== undefined) {
		this.logger.info(`${LOG} ${keys.claim} answered ${remembered.status} without a read, as a read found shortly before: ${remembered.reason}`);
		return answerWith(this, remembered.status);
	}
	let read: OrderRead;
	try {
		const scope = triggerScope(this);
		read = await beforeDeadline(
			sharedRead(this, callback.orderId, async () => await withinReadLimits(scope, deadline, async () => await readOrder.call(this, callback.orderId))),
			deadline,
		);
	} catch (error) {
		const why = error instanceof ReadRefused ? `the trigger's read limits: ${error.message}` : (error as Error).message;
		this.logger.warn(`${LOG} could not confirm ${keys.claim} with the Ollang API (${why}); answered 503 so the API sends it again`);
		return error instanceof ReadRefused ? answer(this, 503, { message: SEND_AGAIN }, error.retryAfterSeconds) : answerWith(this, 503);
	}
	const confirmation = judge(callback, read);
	if (!confirmation.confirmed) {
		rememberRefusal(this, callback, read, confirmation);
		const outcome = confirmation.later ? 'answered 503 so the API sends it again' : 'nothing emitted';
		this.logger.warn(`${LOG} callback not confirmed by the Ollang API (${keys.claim}): ${confirmation.reason}; ${outcome}`);
		return answerWith(this, confirmation.later ? 503 : 200);
	}
	const key = confirmation.completionKey;
	rememberAnswer(this, keys.claim, { status: 200, reason: `the API showed ${key}, emitted` }, ANSWER_KEEP_MS.repeat);
	if (wasEmitted(this, key)) {
		this.logger.info(`${LOG} repeated callback dropped (${keys.claim}): the API shows ${key}, emitted already`);
		return answer(this, 200, RECEIVED);
	}
	recordEmitted(this, key);
	return { workflowData: [[{ json: { ...confirmation.item, completionKey: key } }]], webhookResponse: RECEIVED };
}
