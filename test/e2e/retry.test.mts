// A failed execution retried in a real n8n: ten orders through Request Human Review and ten through Run QC
// Evaluation, production executions (a Webhook in front), the sandbox applying the sixth item and then answering
// 500. The execution fails; it is retried through n8n's REST API as the executions list's Retry does
// (POST /rest/executions/:id/retry, "with the currently saved workflow" and "with the original workflow"), and with
// the node's Retry On Fail. Every order must end with exactly one human review / one evaluation, the credits spent
// must be those ten actions', and the retried execution must succeed. One n8n process serves every case.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import { callProductionWebhook, readExecutions, restRequest, signIn, type N8nExecution, type RunningN8n } from '../../scripts/n8n/runtime.mjs';
import { byId, N8nUserFolder, OLLANG_NODE, outputOf, SANDBOX_CREDENTIALS, SandboxClient, testCredentials, waitFor, type WorkflowJson } from './harness.mts';

type Json = Record<string, unknown>;

const ORDERS_PER_RUN = 10;
const FAILING_ITEM = 5;
const NODE_NAME = 'Ollang';

interface Action {
	name: string;
	operation: string;
	/** The path of the request that applies the action to an order. */
	path: (orderId: string) => string;
	/** What the sandbox's ledger records for one application. */
	ledgerKind: string;
	/** A repeat is refused by the API and the order's state shows the effect (no memory of earlier runs needed). */
	settledByState: boolean;
}

const ACTIONS: Action[] = [
	{ name: 'Request Human Review', operation: 'requestHumanReview', path: (id) => `/integration/orders/${id}/human-review`, ledgerKind: 'humanReview', settledByState: true },
	{ name: 'Run QC Evaluation', operation: 'runQcEvaluation', path: (id) => `/integration/orders/${id}/qc`, ledgerKind: 'qcEvaluation', settledByState: false },
];

type Recovery = 'retry (saved workflow)' | 'retry (original workflow)' | 'Retry On Fail';

/** Webhook (the orders in its body) -> Split Out (one item per order) -> the Ollang action. */
function actionWorkflow(id: string, action: Action, retryOnFail: boolean): { workflow: WorkflowJson; path: string } {
	const path = `retry-${id}`;
	const workflow: WorkflowJson = {
		id,
		name: `${action.name} x ${ORDERS_PER_RUN}${retryOnFail ? ' (Retry On Fail)' : ''}`,
		nodes: [
			{
				id: `${id}-hook`,
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				webhookId: randomUUID(),
				position: [0, 0],
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			{
				id: `${id}-split`,
				name: 'Split Out',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [240, 0],
				parameters: { fieldToSplitOut: 'body.orders', options: {} },
			},
			{
				id: `${id}-ollang`,
				name: NODE_NAME,
				type: OLLANG_NODE,
				typeVersion: 2,
				position: [480, 0],
				parameters: { resource: 'order', operation: action.operation, orderId: byId('={{ $json.orderId }}') },
				credentials: { ollangApi: SANDBOX_CREDENTIALS.owner },
				...(retryOnFail ? { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } : {}),
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
		pinData: {},
	};
	return { workflow, path };
}

describe('a failed execution retried in a real n8n applies nothing twice', { timeout: 15 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let n8n: N8nUserFolder;
	let main: RunningN8n | undefined;
	let cookie: string;
	const workflows = new Map<string, { workflow: WorkflowJson; path: string }>();
	const workflowKey = (action: Action, retryOnFail: boolean) => `${action.operation}:${retryOnFail}`;
	const figures: string[] = [];

	before(async () => {
		sandbox = await SandboxClient.start();
		n8n = N8nUserFolder.create('retry');
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		ACTIONS.forEach((action, index) => {
			for (const retryOnFail of [false, true]) {
				workflows.set(workflowKey(action, retryOnFail), actionWorkflow(`e2eRetry${index}${retryOnFail ? 'Rof' : 'Lst'}0000`, action, retryOnFail));
			}
		});
		await n8n.importWorkflows([...workflows.values()].map(({ workflow }) => workflow));
		for (const { workflow } of workflows.values()) await n8n.publish(workflow.id);
		main = await n8n.start();
		cookie = await signIn(main.url);
	});

	after(async () => {
		console.log(`Retried executions in n8n:\n${figures.map((line) => `  ${line}`).join('\n')}`);
		await main?.stop();
		await sandbox?.stop();
		n8n?.remove();
	});

	const ledger = async () => await sandbox.admin<Array<{ kind: string; orderId: string; credits: number }>>('GET', 'ledger');
	const usedCredits = async () => (await sandbox.get<{ usedCredits: number }>('/integration/credits')).usedCredits;

	/** Waits until the workflow has `count` executions, all finished; oldest first. */
	const finishedExecutions = async (workflowId: string, count: number): Promise<N8nExecution[]> =>
		await waitFor(
			`${count} finished executions of ${workflowId}`,
			async () => {
				const executions = await readExecutions(main!.url, cookie, workflowId);
				return executions.length === count && executions.every((execution) => !['new', 'running', 'waiting'].includes(execution.status)) ? executions : undefined;
			},
			{ timeoutMs: 180_000, intervalMs: 1000 },
		);

	const cases: Array<[Action, Recovery]> = ACTIONS.flatMap((action) =>
		(['retry (saved workflow)', 'retry (original workflow)', 'Retry On Fail'] as Recovery[]).map((recovery): [Action, Recovery] => [action, recovery]),
	);

	for (const [action, recovery] of cases) {
		it(`${action.name}, the sixth item applied then failed, recovered by ${recovery}: one action per order, ten charged`, async () => {
			const retryOnFail = recovery === 'Retry On Fail';
			const { workflow, path } = workflows.get(workflowKey(action, retryOnFail))!;
			const orderIds = (
				await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: ORDERS_PER_RUN, type: 'subtitle', level: 0, status: 'completed', progress: false })
			).map((row) => row.orderId);
			const before = (await readExecutions(main!.url, cookie, workflow.id)).length;
			const creditsBefore = await usedCredits();
			await sandbox.admin('POST', 'faults', { method: 'POST', path: action.path(orderIds[FAILING_ITEM]), kind: 'status', status: 500, when: 'after', times: 1 });

			// n8n answers 404 (and starts nothing) until it has registered the published workflows' webhooks.
			const answer = await callProductionWebhook(main!.url, path, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ orders: orderIds.map((orderId) => ({ orderId })) }),
			});
			assert.equal(answer.status, 200, `webhook ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);

			let finished: N8nExecution;
			let executions: number;
			if (retryOnFail) {
				[finished] = (await finishedExecutions(workflow.id, before + 1)).slice(before);
				executions = 1;
			} else {
				const [failed] = (await finishedExecutions(workflow.id, before + 1)).slice(before);
				assert.equal(failed.status, 'error');
				const error = failed.data.resultData.runData[NODE_NAME]?.[0]?.error as Json | undefined;
				assert.match(String(error?.description), new RegExp(`Applied before the node stopped \\(${FAILING_ITEM} items\\): item 0 \\(orderId ${orderIds[0]}`));
				const appliedSoFar = (await ledger()).filter((entry) => entry.kind === action.ledgerKind && orderIds.includes(entry.orderId));
				assert.equal(appliedSoFar.length, FAILING_ITEM + 1, 'the first run applied the items before the failing one, and that one');

				const retried = (await restRequest(main!.url, cookie, 'POST', `/rest/executions/${failed.id}/retry`, {
					loadWorkflow: recovery === 'retry (saved workflow)',
				})) as Json;
				[finished] = (await finishedExecutions(workflow.id, before + 2)).slice(before + 1);
				assert.equal(finished.id, String(retried.id));
				assert.equal(finished.mode, 'retry');
				executions = 2;
			}

			assert.equal(finished.status, 'success', `the ${retryOnFail ? 'execution' : 'retried execution'} ended ${finished.status}: ${JSON.stringify(finished.data.resultData.error ?? {})}`);
			const output = outputOf(finished, NODE_NAME).map((item) => item.json as Json);
			assert.deepEqual(
				output.map((json) => json.orderId),
				orderIds,
			);
			const entries = (await ledger()).filter((entry) => entry.kind === action.ledgerKind && orderIds.includes(entry.orderId));
			const perOrder = orderIds.map((orderId) => entries.filter((entry) => entry.orderId === orderId).length);
			if (recovery === 'retry (original workflow)' && !action.settledByState) {
				// Not protected: n8n runs this retry with the static data stored when the failed execution started,
				// which cannot hold what that execution applied; the first six are sent again (README, Retries).
				assert.deepEqual(perOrder, orderIds.map((_, index) => (index <= FAILING_ITEM ? 2 : 1)), `${action.ledgerKind} per order`);
				figures.push(`${action.name}, ${recovery}: NOT protected, actions applied ${entries.length} for ${ORDERS_PER_RUN} orders, executions 2`);
				return;
			}
			assert.deepEqual(perOrder, Array(ORDERS_PER_RUN).fill(1), `${action.ledgerKind} per order`);
			const spent = (await usedCredits()) - creditsBefore;
			const charged = entries.reduce((sum, entry) => sum + entry.credits, 0);
			assert.equal(spent, charged, 'the credits spent are those of the ten actions, nothing more');
			if (!retryOnFail) {
				// The retry found the first six applied (five remembered or refused, the sixth checked against the order).
				assert.deepEqual(
					output.map((json) => json.alreadyApplied === true),
					orderIds.map((_, index) => index <= FAILING_ITEM),
				);
			}
			figures.push(`${action.name}, ${recovery}: actions applied ${entries.length} for ${ORDERS_PER_RUN} orders, credits spent ${spent} (= the ten actions' ${charged}), executions ${executions}, final status ${finished.status}`);
		});
	}
});
