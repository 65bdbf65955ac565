import type {
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { readOutput } from './outputs';
import { readForRequest } from './sharedRounds';
import { loadWaitState } from './state';

// The webhook of a waiting Create and Wait: n8n calls it for each request to the execution's resume URL (the API's
// completion callbacks, and anything else sent there). Every order the items created is read from the API (requests
// arriving together share one read, at most one a second: sharedRounds.ts); the execution resumes only when each is
// done (or cancelled), with the orders as the API shows them. Otherwise the request is answered and nothing is
// returned to run: n8n keeps the execution waiting.

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
	const { reads, resumes } = await readForRequest(this, state, (orders) => !orders.some((read) => read.progress === 'pending'));
	if (!resumes) return { webhookResponse: RECEIVED };
	return { workflowData: [await readOutput(this, state, reads, 'confirmed')], webhookResponse: RECEIVED };
}
