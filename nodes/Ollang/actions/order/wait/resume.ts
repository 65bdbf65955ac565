import type {
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { allSettled } from './confirm';
import { readForRequest } from './sharedRounds';
import { loadWaitState } from './state';

// The webhook of a waiting Create and Wait: n8n calls it for each request to the execution's resume URL (the API's
// completion callbacks, and anything else sent there). Every order of the wait is read from the API (requests
// arriving together share one read, at most one a second: sharedRounds.ts); once each is done (or cancelled), the
// first such request resumes the execution, and n8n runs the node again, which reads the orders and outputs them
// (nextCheck.ts). Otherwise the request is answered and n8n keeps the execution waiting.

/**
 * The waiting execution's resume URL (n8n's /webhook-waiting/<execution id>?signature=..., `$execution.resumeUrl`),
 * which the API's completion callbacks POST to. `restartWebhook`: n8n serves it only while an execution of this node
 * waits, never as a production or test webhook of the workflow, so there is nothing to register with the API (no
 * webhookMethods), as for n8n's own send-and-wait operations.
 */
export const waitingWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		// Empty: n8n answers with the webhookResponse webhook() returns ({"received": true}).
		responseData: '',
		path: '',
		restartWebhook: true,
	},
];

/** What the caller is told, whatever happened: nothing about the orders to whoever holds the URL. */
const RECEIVED = { received: true };

export async function receiveResumeRequest(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const state = loadWaitState(this);
	// Not an execution this node put to wait (its context holds no orders): nothing to confirm.
	if (state === undefined) return { webhookResponse: RECEIVED };
	const { resumes } = await readForRequest(this, state, allSettled);
	if (!resumes) return { webhookResponse: RECEIVED };
	// No items: the waiting node hands on nothing, and the node's next run outputs the orders.
	return { workflowData: [], webhookResponse: RECEIVED };
}
