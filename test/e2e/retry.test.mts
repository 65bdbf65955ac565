// A retry is not a repeat, in a real n8n. A failed execution: ten orders through Request Human Review and ten through
// Run QC Evaluation, production executions (a Webhook in front), the sandbox applying the sixth item and then answering
// 500. The execution fails; it is retried through n8n's REST API as the executions list's Retry does
// (POST /rest/executions/:id/retry, "with the currently saved workflow" and "with the original workflow"), and with
// the node's Retry On Fail. Every order must end with exactly one human review / one evaluation, the credits spent
// must be those ten actions', and the retried execution must succeed. A deliberate second execution (Rerun, Run QC
// Evaluation, Order > Create) applies again; an Idempotency Key repeated by a second webhook applies once; Order >
// Create's lost answer is settled from the project's orders by the retry. One n8n process serves every case.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { callProductionWebhook, readExecutions, restRequest, signIn, type N8nExecution, type RunningN8n } from '../../scripts/n8n/runtime.mjs';
import { byId, N8nUserFolder, outputOf, SandboxClient, testCredentials, waitFor, type WorkflowJson } from './harness.mts';
import { itemsWorkflow } from './workflows.mts';

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
}

const ACTIONS: Action[] = [
	{ name: 'Request Human Review', operation: 'requestHumanReview', path: (id) => `/integration/orders/${id}/human-review`, ledgerKind: 'humanReview' },
	{ name: 'Run QC Evaluation', operation: 'runQcEvaluation', path: (id) => `/integration/orders/${id}/qc`, ledgerKind: 'qcEvaluation' },
];

type Recovery = 'retry (saved workflow)' | 'retry (original workflow)' | 'Retry On Fail';

/** Webhook (the orders in its body) -> Split Out (one item per order) -> the Ollang action. */
function actionWorkflow(id: string, action: Action, retryOnFail: boolean): { workflow: WorkflowJson; path: string } {
	return itemsWorkflow(
		id,
		`${action.name} x ${ORDERS_PER_RUN}${retryOnFail ? ' (Retry On Fail)' : ''}`,
		{ resource: 'order', operation: action.operation, orderId: byId('={{ $json.orderId }}') },
		{ retryOnFail },
	);
}

const REPEAT_WORKFLOWS = {
	rerun: itemsWorkflow('e2eRepeatRerun00', 'Rerun on request', { resource: 'order', operation: 'rerun', orderId: byId('={{ $json.orderId }}') }),
	qc: itemsWorkflow('e2eRepeatQc00000', 'QC on request', { resource: 'order', operation: 'runQcEvaluation', orderId: byId('={{ $json.orderId }}') }),
	create: itemsWorkflow('e2eRepeatCreate0', 'Create on request', {
		resource: 'order',
		operation: 'create',
		projectId: '={{ $json.projectId }}',
		orderType: 'document',
		level: 0,
		targetLanguages: { language: [{ code: '={{ $json.language }}', isRush: false }] },
	}),
	keyedQc: itemsWorkflow('e2eRepeatKeyed00', 'QC once per event', {
		resource: 'order',
		operation: 'runQcEvaluation',
		orderId: byId('={{ $json.orderId }}'),
		options: { idempotencyKey: '={{ $json.eventId }}' },
	}),
};

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
		const all = [...workflows.values(), ...Object.values(REPEAT_WORKFLOWS)];
		await n8n.importWorkflows(all.map(({ workflow }) => workflow));
		for (const { workflow } of all) await n8n.publish(workflow.id);
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
				body: JSON.stringify({ items: orderIds.map((orderId) => ({ orderId })) }),
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

	/** Calls the workflow's webhook with these items and waits for its execution to finish. */
	const runItems = async (entry: { workflow: WorkflowJson; path: string }, items: Json[]): Promise<N8nExecution> => {
		const before = (await readExecutions(main!.url, cookie, entry.workflow.id)).length;
		const answer = await callProductionWebhook(main!.url, entry.path, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ items }),
		});
		assert.equal(answer.status, 200, `webhook ${entry.path}: ${answer.status} ${answer.text.slice(0, 300)}`);
		return (await finishedExecutions(entry.workflow.id, before + 1))[before];
	};
	const completedOrders = async (count: number) =>
		(await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count, type: 'subtitle', level: 0, status: 'completed', progress: false })).map((row) => row.orderId);
	/** Requests to a path the service answered with success: how often it applied the action. */
	const succeeded = async (path: string) => (await sandbox.requests()).filter((record) => record.method === 'POST' && record.path === path && (record.status ?? 500) < 300).length;

	for (const [label, key, path] of [
		['Rerun', 'rerun', (id: string) => `/integration/orders/${id}/rerun`],
		['Run QC Evaluation', 'qc', (id: string) => `/integration/orders/${id}/qc`],
	] as const) {
		it(`${label} asked again on purpose (a second webhook execution, after the first is delivered) is applied again`, async () => {
			const entry = REPEAT_WORKFLOWS[key];
			const orderIds = await completedOrders(3);
			const items = orderIds.map((orderId) => ({ orderId }));

			const first = await runItems(entry, items);
			await sandbox.advanceClock(7 * 24 * 60);
			const second = await runItems(entry, items);

			assert.equal(first.status, 'success');
			assert.equal(second.status, 'success', JSON.stringify(second.data.resultData.error ?? {}));
			assert.deepEqual(outputOf(second, NODE_NAME).map((item) => (item.json as Json).alreadyApplied), [undefined, undefined, undefined]);
			const perOrder = await Promise.all(orderIds.map(async (id) => await succeeded(path(id))));
			assert.deepEqual(perOrder, [2, 2, 2], `${label} applied per order`);
			figures.push(`${label}, asked again on purpose: applied ${perOrder.reduce((a, b) => a + b, 0)} for 3 orders x 2 executions`);
		});
	}

	it('Order > Create asked again on purpose (the same project and language, a second webhook execution) creates again', async () => {
		const { projects } = await sandbox.fixtures();
		const items = ['de', 'fr'].map((language) => ({ projectId: projects.writable, language }));
		const count = async () => (await sandbox.requests()).filter((record) => record.method === 'POST' && record.path === '/integration/orders/create' && record.status === 201).length;
		const before = await count();

		const first = await runItems(REPEAT_WORKFLOWS.create, items);
		const second = await runItems(REPEAT_WORKFLOWS.create, items);

		assert.equal(first.status, 'success');
		assert.equal(second.status, 'success', JSON.stringify(second.data.resultData.error ?? {}));
		assert.equal((await count()) - before, 4, 'two orders per execution');
		figures.push(`Order > Create, asked again on purpose: ${(await count()) - before} orders for 2 items x 2 executions`);
	});

	it('an Idempotency Key repeated by a second webhook (a source re-delivering its event) applies once', async () => {
		const orderIds = await completedOrders(2);
		const items = orderIds.map((orderId, index) => ({ orderId, eventId: `evt-${orderId}-${index}` }));

		await runItems(REPEAT_WORKFLOWS.keyedQc, items);
		const redelivered = await runItems(REPEAT_WORKFLOWS.keyedQc, items);

		assert.equal(redelivered.status, 'success');
		assert.deepEqual(outputOf(redelivered, NODE_NAME).map((item) => (item.json as Json).alreadyApplied), [true, true]);
		const perOrder = await Promise.all(orderIds.map(async (id) => await succeeded(`/integration/orders/${id}/qc`)));
		assert.deepEqual(perOrder, [1, 1]);
		figures.push(`Run QC Evaluation with an Idempotency Key, delivered twice: applied ${perOrder.reduce((a, b) => a + b, 0)} for 2 events`);
	});

	it("Order > Create for six languages, the fourth's answer lost after the API created it: n8n's Retry ends with six orders, one per language", async () => {
		const { projects } = await sandbox.fixtures();
		const languages = ['ja', 'ko', 'pt', 'it', 'nl', 'sv'];
		const entry = REPEAT_WORKFLOWS.create;
		const projectOrders = async () =>
			(await sandbox.requests()).filter((record) => record.method === 'POST' && record.path === '/integration/orders/create' && record.status === 201).length;
		const createdBefore = await projectOrders();
		await sandbox.admin('POST', 'faults', { method: 'POST', path: '/integration/orders/create', kind: 'status', status: 500, when: 'after', skip: 3, times: 1 });

		const failed = await runItems(entry, languages.map((language) => ({ projectId: projects.writable, language })));
		assert.equal(failed.status, 'error');
		const before = (await readExecutions(main!.url, cookie, entry.workflow.id)).length;
		const retried = (await restRequest(main!.url, cookie, 'POST', `/rest/executions/${failed.id}/retry`, { loadWorkflow: true })) as Json;
		const finished = (await finishedExecutions(entry.workflow.id, before + 1))[before];
		assert.equal(finished.id, String(retried.id));

		assert.equal(finished.status, 'success', JSON.stringify(finished.data.resultData.error ?? {}));
		const output = outputOf(finished, NODE_NAME).map((item) => item.json as Json);
		assert.deepEqual(output.map((json) => json.alreadyApplied === true), [true, true, true, true, false, false]);
		const orders = await sandbox.get<{ data: Array<{ id: string; targetLanguage: string }> }>('/integration/orders', {
			query: { 'filter[projectId]': projects.writable, 'filter[type]': 'document', 'pageOptions[take]': 50 },
		});
		const made = orders.data.filter((order) => languages.includes(order.targetLanguage));
		assert.deepEqual(made.map((order) => order.targetLanguage).sort(), [...languages].sort(), 'one order per language');
		// The fourth's answer was a 500, yet the API made it: six creates reached the service, none twice.
		assert.equal((await projectOrders()) - createdBefore, 5, 'five 201 answers (the fourth was answered 500)');
		assert.equal(output[3].orderId, made.find((order) => order.targetLanguage === 'it')?.id);
		figures.push(`Order > Create x 6 languages, the fourth's answer lost, Retry (saved workflow): ${made.length} orders, one per language, retried execution ${finished.status}`);
	});

	/** n8n's Retry (saved workflow) of a failed execution; the retried execution, finished. */
	const retrySaved = async (entry: { workflow: WorkflowJson }, failed: N8nExecution): Promise<N8nExecution> => {
		const before = (await readExecutions(main!.url, cookie, entry.workflow.id)).length;
		const retried = (await restRequest(main!.url, cookie, 'POST', `/rest/executions/${failed.id}/retry`, { loadWorkflow: true })) as Json;
		const finished = (await finishedExecutions(entry.workflow.id, before + 1))[before];
		assert.equal(finished.id, String(retried.id));
		return finished;
	};

	it("Run QC Evaluation on three evaluated orders, the second's baseline read failing past retries (HTTP 500): n8n's Retry evaluates each once, the new evalId in the output", async () => {
		const orderIds = await completedOrders(3);
		const latestEvaluation = async (id: string) => (await sandbox.get<{ latestEvaluation?: { id: string } }>(`/integration/orders/${id}`)).latestEvaluation?.id;
		// As every order made with Auto QC: an evaluation already.
		for (const id of orderIds) assert.ok((await sandbox.call('POST', `/integration/orders/${id}/qc`, { body: { accuracy: true } })).status < 300);
		const earlier = await Promise.all(orderIds.map(latestEvaluation));
		await sandbox.admin('POST', 'faults', { method: 'GET', path: `/integration/orders/${orderIds[1]}`, kind: 'status', status: 500, retryAfterSeconds: 0, times: 4 });

		const failed = await runItems(REPEAT_WORKFLOWS.qc, orderIds.map((orderId) => ({ orderId })));
		assert.equal(failed.status, 'error');
		const finished = await retrySaved(REPEAT_WORKFLOWS.qc, failed);

		assert.equal(finished.status, 'success', JSON.stringify(finished.data.resultData.error ?? {}));
		const perOrder = (await ledger()).filter((entry) => entry.kind === 'qcEvaluation');
		assert.deepEqual(orderIds.map((id) => perOrder.filter((entry) => entry.orderId === id).length), [2, 2, 2], 'the earlier evaluation plus one, per order');
		const output = outputOf(finished, NODE_NAME).map((item) => item.json as Json);
		assert.equal(output[1].alreadyApplied, undefined, 'the second order was evaluated by the retry, not taken as done');
		assert.notEqual(output[1].evalId, earlier[1]);
		assert.equal(output[1].evalId, await latestEvaluation(orderIds[1]));
		figures.push(`Run QC Evaluation, the second's baseline read failing (500 x4), Retry (saved workflow): evaluations per order 2, 2, 2 (earlier + one), output evalId the new one`);
	});

	it("Order > Create whose baseline listing fails past retries (HTTP 500) for the second item: n8n's Retry creates that order once", async () => {
		const { projects } = await sandbox.fixtures();
		const languages = ['el', 'tr', 'pl'];
		const listed = async () =>
			(
				await sandbox.get<{ data: Array<{ targetLanguage: string }> }>('/integration/orders', {
					query: { 'filter[projectId]': projects.writable, 'filter[type]': 'document', 'pageOptions[take]': 50 },
				})
			).data.filter((order) => languages.includes(order.targetLanguage));
		const before = (await listed()).length;
		// The first item's listing passes; the second's fails on every try (1 + 3 retries).
		await sandbox.admin('POST', 'faults', { method: 'GET', path: '/integration/orders', kind: 'status', status: 500, retryAfterSeconds: 0, skip: 1, times: 4 });

		const failed = await runItems(REPEAT_WORKFLOWS.create, languages.map((language) => ({ projectId: projects.writable, language })));
		assert.equal(failed.status, 'error');
		assert.match(String((failed.data.resultData.runData[NODE_NAME]?.[0]?.error as Json | undefined)?.description), /not sent/);
		const finished = await retrySaved(REPEAT_WORKFLOWS.create, failed);

		assert.equal(finished.status, 'success', JSON.stringify(finished.data.resultData.error ?? {}));
		const made = await listed();
		assert.deepEqual(made.map((order) => order.targetLanguage).sort(), [...languages].sort(), 'one order per language');
		assert.equal(made.length - before, 3);
		assert.deepEqual(outputOf(finished, NODE_NAME).map((item) => (item.json as Json).alreadyApplied === true), [true, false, false]);
		figures.push(`Order > Create x 3 languages, the second's baseline listing failing (500 x4), Retry (saved workflow): ${made.length - before} orders, one per language`);
	});
});
