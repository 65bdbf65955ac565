import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { arrivalItem } from './arrival';
import type { Callback } from './callback';
import { claimKey, isRefusal, readCallback } from './callback';
import { noteForSweep, rememberedAnswer, triggerScope } from './processed';
import { DEFAULT_SWEEP_MINUTES, sweepIntervalMs } from './sweep';

const LOG = 'Ollang Callback Trigger:';

const RECEIVED = { received: true };

/** Answers on Node's own response API (what express's extends), so the status is ours, not n8n's 200. */
function answer(ctx: IWebhookFunctions, status: number, body: IDataObject): IWebhookResponseData {
	const response = ctx.getResponseObject();
	response.statusCode = status;
	response.setHeader('content-type', 'application/json; charset=utf-8');
	response.end(JSON.stringify(body));
	return { noWebhookResponse: true };
}

/** Where an execution's finding about a callback is remembered: the order (unknown to the API) or the claim. */
export function memoryKeys(callback: Callback): { unknownOrder: string; claim: string } {
	return { unknownOrder: `unknown-order:${callback.orderId}`, claim: claimKey(callback) };
}

/**
 * One callback, answered at n8n's speed: refused when it is not one (no execution, nothing asked of the API);
 * answered without an execution when this process's executions already settled it (a repeat of an emitted
 * completion, an order the API does not know); else answered {"received": true} at once and handed to an execution,
 * whose first step (the node's execute()) confirms it with the API and emits each completion once. What that step
 * cannot confirm (the API slow or down, the order not showing completed yet, the forged-read bound reached) the
 * sweep emits once the API shows it: nothing waits on the API's 10 s, and no retry of the API is needed.
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
		return answer(this, 200, RECEIVED);
	}
	const keys = memoryKeys(callback);
	const remembered = rememberedAnswer(triggerScope(this), [keys.unknownOrder, keys.claim]);
	if (remembered !== undefined) {
		this.logger.info(`${LOG} ${keys.claim} answered without an execution: ${remembered.reason}`);
		return answer(this, 200, RECEIVED);
	}
	noteForSweep(triggerScope(this), callback.orderId);
	const workflowData = [[{ json: arrivalItem({ arrivedBy: 'push', callback }) }]];
	// n8n answers a webhook once it has recorded and started its execution, behind the executions already running: a
	// burst waits on them. With the sweep on, the answer goes now (the sweep emits a completion whose execution n8n
	// then fails to start); with it off, n8n's answer after the start is what makes the API send again on a failure.
	if (sweepIntervalMs(this.getNodeParameter('options.sweepMinutes', DEFAULT_SWEEP_MINUTES)) === 0) return { workflowData, webhookResponse: RECEIVED };
	answer(this, 200, RECEIVED);
	return { noWebhookResponse: true, workflowData };
}
