import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { completionKey, isRefusal, readCallback } from './callback';
import type { Confirmation } from './confirm';
import { confirmCallback } from './confirm';
import { claim, record, release } from './processed';

/** The API waits 10 s for an answer: the confirming read gets 7, the rest is n8n's and the network's. */
export const CONFIRM_BUDGET_MS = 7_000;

const LOG = 'Ollang Callback Trigger:';

/** Answers on Node's own response API (what express's extends), so the status is ours, not n8n's 200. */
function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	const response = ctx.getResponseObject();
	response.statusCode = status;
	response.setHeader('content-type', 'application/json; charset=utf-8');
	response.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}

/** Steps in which the budget is waited out, so no timer outlives a confirmation by more than one step. */
const BUDGET_STEP_MS = 250;

/** The confirmation, or an error once the budget is spent (the read may go on; its result is not waited for). */
async function withinBudget<T>(work: Promise<T>): Promise<T> {
	let settled = false;
	const tracked = work.finally(() => {
		settled = true;
	});
	const timeUp = (async () => {
		for (let waited = 0; waited < CONFIRM_BUDGET_MS && !settled; waited += BUDGET_STEP_MS) await sleep(BUDGET_STEP_MS);
		if (settled) return await tracked;
		throw new Error(`no answer from the API within ${CONFIRM_BUDGET_MS / 1000} s`);
	})();
	return await Promise.race([tracked, timeUp]);
}

/**
 * One callback: refused when it is not one (nothing asked of the API), dropped when its completion was emitted
 * already, confirmed with the API, then emitted once as the API's answer. When the API cannot confirm it in time
 * (slow, failing, or not showing it yet) the answer is 503, so the API calls again later (it retries failed
 * deliveries): the event is not lost, and n8n's log says why.
 */
export async function receiveCallback(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const callback = readCallback.call(this, String(this.getNodeParameter('secretToken', '')));
	if (isRefusal(callback)) {
		this.logger.warn(`${LOG} refused a request (${callback.status}): ${callback.reason}`);
		return answer(this, callback.status, { message: 'Not an Ollang callback this trigger accepts' });
	}
	const events = this.getNodeParameter('events', []) as string[];
	if (!events.includes(callback.event)) {
		this.logger.info(`${LOG} ${callback.event} callback for order ${callback.orderId} ignored: the node does not watch this event`);
		return answer(this, 200, { received: true });
	}
	const key = completionKey(callback);
	const claimed = claim(this, key);
	if (claimed.state === 'emitted') {
		this.logger.info(`${LOG} repeated callback dropped (${key}): this completion was emitted already`);
		return answer(this, 200, { received: true });
	}
	if (claimed.state === 'confirming') {
		// A copy arriving while another is confirmed gets that one's answer: dropped once it is emitted, asked to come
		// again when it is not (else a 503 lost on the way to the first sender would lose the event).
		const emitted = await withinBudget(claimed.outcome).catch(() => false);
		if (emitted) {
			this.logger.info(`${LOG} repeated callback dropped (${key}): a copy that arrived with it was emitted`);
			return answer(this, 200, { received: true });
		}
		this.logger.warn(`${LOG} ${key}: a copy that arrived with this callback was not emitted; answered 503 so the API sends it again`);
		return answer(this, 503, { message: 'Could not confirm the callback with the Ollang API yet; send it again later' });
	}
	let confirmation: Confirmation;
	try {
		confirmation = await withinBudget(confirmCallback.call(this, callback));
	} catch (error) {
		release(this, key);
		this.logger.warn(`${LOG} could not confirm ${key} with the Ollang API (${(error as Error).message}); answered 503 so the API sends it again`);
		return answer(this, 503, { message: 'Could not confirm the callback with the Ollang API yet; send it again later' });
	}
	if (!confirmation.confirmed) {
		release(this, key);
		const outcome = confirmation.later ? 'answered 503 so the API sends it again' : 'nothing emitted';
		this.logger.warn(`${LOG} callback not confirmed by the Ollang API (${key}): ${confirmation.reason}; ${outcome}`);
		return confirmation.later
			? answer(this, 503, { message: 'The Ollang API does not show this completion yet; send it again later' })
			: answer(this, 200, { received: true });
	}
	record(this, key);
	return { workflowData: [[{ json: { ...confirmation.item, completionKey: key } }]], webhookResponse: { received: true } };
}
