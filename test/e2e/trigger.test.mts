// The Ollang Trigger in a real n8n: the example workflow "human review on AI delivery" published in a running
// `n8n start`, the sandbox's clock moved so orders are AI-delivered, and the executions n8n ran read back through its
// REST API: every matching event exactly once, the human reviews requested, the refused one on the error branch.
// The trigger polls three times a minute here (POLL_TIMES; the example's own is once a minute): this file spends most of
// its time waiting for polls.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { callProductionWebhook, listLoadedNodeTypes, readExecutions, signIn, type N8nExecution, type RunningN8n } from '../../scripts/n8n/runtime.mjs';
import {
	assertNoKeyLeft,
	exampleNode,
	jsonIfRan,
	jsonOf,
	N8nUserFolder,
	OLLANG_NODE,
	OLLANG_TRIGGER_NODE,
	PACKAGE_NAME,
	POLL_TIMES,
	pollTriggerWorkflow,
	readExample,
	SandboxClient,
	testCredentials,
	triggerItems,
	waitFor,
} from './harness.mts';
import { asWebhookWorkflow, createAndWaitWorkflow } from './workflows.mts';

type Json = Record<string, unknown>;

interface DeliveryEvent {
	type: string;
	occurredAt: string;
}

interface OrderDetail {
	id: string;
	type: string;
	level: number;
	status: string;
	createdAt: string;
	deliveryEvents: DeliveryEvent[];
}

const EXAMPLE_FILE = 'human-review-on-ai-delivery.json';
const TRIGGER_NODE = 'On AI delivery';
// A poll arrives within 20 s (POLL_TIMES), plus the time the poll and its execution take on a busy machine.
const POLL_WAIT_MS = 150_000;

const QC_TRIGGER_NODE = 'On QC evaluation finished';
/** The node of test/e2e/workflows.mts createAndWaitWorkflow. */
const CREATE_AND_WAIT_NODE = 'Create and wait';

const example = readExample(EXAMPLE_FILE);
// The example as a user who wants events sooner publishes it: its trigger polling three times a minute.
exampleNode(example, TRIGGER_NODE).parameters.pollTimes = POLL_TIMES;
const triggerParameters = exampleNode(example, TRIGGER_NODE).parameters as {
	eventTypes: string[];
	lookbackDays: number;
	filters: { types: string[] };
};

describe('the Ollang Trigger in a real n8n (n8n start)', { timeout: 15 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let n8n: N8nUserFolder;
	let server: RunningN8n | undefined;
	let cookie: string;
	/** The service time of the trigger's first poll (the HTTP Date header: whole seconds): events after it are new. */
	let baseline: number;
	let qcOrderId: string;
	let qcWorkflow: ReturnType<typeof pollTriggerWorkflow>;
	/** Order > Create and Wait behind a production Webhook: its wait and resumption on each n8n version (1.x too). */
	let createAndWait: ReturnType<typeof asWebhookWorkflow>;

	before(async () => {
		sandbox = await SandboxClient.start();
		n8n = N8nUserFolder.create('trigger');
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		// A completed order the clock leaves alone, watched by a QC Evaluation Finished trigger of its own workflow (a
		// document order: the example's trigger watches subtitle and closed-caption orders, and would review this one).
		[qcOrderId] = (await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: 1, type: 'document', level: 0, status: 'completed', progress: false })).map(
			(order) => order.orderId,
		);
		qcWorkflow = pollTriggerWorkflow('TriggerQcEvals1', 'E2E: QC evaluations', QC_TRIGGER_NODE, { event: 'qcEvaluationFinished', watch: 'orderIds', orderIds: qcOrderId });
		createAndWait = asWebhookWorkflow(createAndWaitWorkflow(await sandbox.fixtures()), 'trigger');
		await n8n.importWorkflows([example, qcWorkflow, createAndWait.workflow]);
		await n8n.publish(example.id);
		await n8n.publish(qcWorkflow.id);
		await n8n.publish(createAndWait.workflow.id);
		baseline = Math.floor((await sandbox.now()).getTime() / 1000) * 1000;
		await sandbox.clearRequests();
		server = await n8n.start();
		cookie = await signIn(server.url);
		// Activation polls once at once: that poll sets the trigger's baseline.
		await waitFor('the trigger\'s first poll', async () => (await sandbox.requests()).some((request) => request.path === '/integration/orders'), {
			timeoutMs: 60_000,
		});
	});

	after(async () => {
		await server?.stop();
		await sandbox?.stop();
		n8n?.remove();
	});

	async function createOrders(input: Json): Promise<string[]> {
		const created = await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: 1, ...input });
		return created.map((order) => order.orderId);
	}

	/** From the API: every event the trigger should emit by now, as `orderId:eventIndex`, sorted. */
	async function expectedEvents(): Promise<string[]> {
		const now = (await sandbox.now()).getTime();
		const rows = await sandbox.getAllPages<OrderDetail>('/integration/orders');
		const watched = rows.filter(
			(row) => triggerParameters.filters.types.includes(row.type) && Date.parse(row.createdAt) >= now - triggerParameters.lookbackDays * 86_400_000,
		);
		const eventIds: string[] = [];
		for (const row of watched) {
			const order = await sandbox.get<OrderDetail>(`/integration/orders/${row.id}`);
			order.deliveryEvents.forEach((event, index) => {
				if (triggerParameters.eventTypes.includes(event.type) && Date.parse(event.occurredAt) > baseline) eventIds.push(`${order.id}:${index}`);
			});
		}
		return eventIds.sort();
	}

	async function finishedExecutions(): Promise<N8nExecution[]> {
		const executions = await readExecutions(server!.url, cookie, example.id);
		return executions.every((execution) => execution.status !== 'running' && execution.status !== 'new') ? executions : [];
	}

	function emittedEventIds(executions: N8nExecution[]): string[] {
		return executions.flatMap((execution) => jsonOf(execution, TRIGGER_NODE).map((item) => String(item.eventId)));
	}

	/** Waits until n8n has run executions for all of `eventIds` (and returns them all). */
	async function executionsCovering(eventIds: string[]): Promise<N8nExecution[]> {
		return await waitFor(
			`executions of events ${eventIds.join(', ')}`,
			async () => {
				const executions = await finishedExecutions();
				const emitted = new Set(emittedEventIds(executions));
				return eventIds.every((id) => emitted.has(id)) ? executions : undefined;
			},
			{ timeoutMs: POLL_WAIT_MS, intervalMs: 2000 },
		);
	}

	it('n8n has loaded both node types of the package, with no module missing', async () => {
		const loaded = await listLoadedNodeTypes(server!.url, cookie);
		assert.ok(loaded.includes(OLLANG_NODE) && loaded.includes(OLLANG_TRIGGER_NODE), `n8n lists ${loaded.filter((type) => type.startsWith(PACKAGE_NAME)).join(', ') || 'none'} of the package`);
		const problems = n8n.serverLog.filter((line) => /cannot find module|error loading|failed to load/i.test(line));
		assert.deepEqual(problems, []);
	});

	// Filled by the first test, read by the next ones.
	const scenario = {
		executions: [] as N8nExecution[],
		eligible: [] as string[],
		levelOne: '',
		frozen: '',
	};

	it('emits every AI delivery of the watched orders exactly once, over two polls', async () => {
		// Events stamped at the baseline second would count as history: move on first.
		await sandbox.advanceClock(1);
		scenario.eligible = [
			...(await createOrders({ type: 'subtitle', level: 0, status: 'completed', count: 2 })),
			...(await createOrders({ type: 'cc', level: 0, status: 'delivered' })),
		];
		[scenario.levelOne] = await createOrders({ type: 'subtitle', level: 1, status: 'qualityCheck' });
		const [otherType] = await createOrders({ type: 'document', level: 0, status: 'completed' });
		// An AI delivery on an order still ongoing (and kept there): the API will refuse its human review.
		[scenario.frozen] = await createOrders({ type: 'subtitle', level: 0, status: 'ongoing', progress: false });
		await sandbox.admin('POST', `orders/${scenario.frozen}/events`, { type: 'ai_delivered' });

		const first = await expectedEvents();
		for (const orderId of [...scenario.eligible, scenario.levelOne, scenario.frozen]) {
			assert.ok(first.some((id) => id.startsWith(`${orderId}:`)), `no AI delivery expected for order ${orderId}`);
		}
		assert.ok(!first.some((id) => id.startsWith(`${otherType}:`)), 'an order of another type is expected');
		const afterFirstPoll = await executionsCovering(first);

		// More orders, and an hour of the service's time: the next poll finds what is new, and only that.
		const later = await createOrders({ type: 'subtitle', level: 0, count: 2 });
		await sandbox.advanceClock(60);
		const second = await expectedEvents();
		for (const orderId of later) assert.ok(second.some((id) => id.startsWith(`${orderId}:`)), `order ${orderId} was not AI-delivered`);
		scenario.eligible.push(...later);
		scenario.executions = await executionsCovering(second);
		assert.ok(scenario.executions.length > afterFirstPoll.length, 'the second batch of events came in no later execution');

		assert.deepEqual(emittedEventIds(scenario.executions).sort(), second);
		assert.deepEqual(
			scenario.executions.map(({ mode, status }) => `${mode} ${status}`),
			scenario.executions.map(() => 'trigger success'),
		);
	});

	it('requests human review for the AI-only orders among them', async () => {
		const triggered = scenario.executions.flatMap((execution) => jsonOf(execution, TRIGGER_NODE));
		assert.ok(triggered.some((item) => item.orderId === scenario.levelOne), 'the level 1 order was not emitted');
		const aiOnly = triggered.filter((item) => (item.order as Json).level === 0).map((item) => String(item.orderId));
		assert.ok(!aiOnly.includes(scenario.levelOne), 'the level 1 order was not filtered out');
		const reviewed = scenario.executions.flatMap((execution) => jsonIfRan(execution, 'Review requested'));
		assert.deepEqual(reviewed.map((item) => String(item.orderId)).sort(), aiOnly.filter((id) => id !== scenario.frozen).sort());
		for (const orderId of scenario.eligible) assert.ok(reviewed.some((item) => item.orderId === orderId), `no human review for ${orderId}`);
		// The service took each request: the orders now include human review.
		for (const item of reviewed) {
			const order = await sandbox.get<OrderDetail>(`/integration/orders/${String(item.orderId)}`);
			assert.equal(order.level, 1, `order ${order.id} has no human review`);
		}
	});

	it('sends the order the API refuses down the error branch, with the API\'s message', async () => {
		const refused = scenario.executions.flatMap((execution) => jsonIfRan(execution, 'Not eligible'));
		const refusal = await sandbox.call<Json>('POST', `/integration/orders/${scenario.frozen}/human-review`);
		assert.equal(refusal.body.code, 'ORDER_NOT_ELIGIBLE');
		assert.equal(refused.length, 1, JSON.stringify(refused));
		assert.deepEqual([refused[0].orderId, refused[0].orderStatus], [scenario.frozen, 'ongoing']);
		assert.ok(String(refused[0].reason).includes(String(refusal.body.message)), `reason "${refused[0].reason}"`);
	});

	it('emits a finished QC evaluation once (QC Evaluation Finished)', async () => {
		await sandbox.advanceClock(1);
		const requested = await sandbox.call<{ evalId: string }>('POST', `/integration/orders/${qcOrderId}/qc`, { body: {} });
		assert.equal(requested.status, 200, JSON.stringify(requested.body));
		await sandbox.advanceClock(10);
		const eventId = `${qcOrderId}:qc:${requested.body.evalId}`;
		const emitted = async () => (await readExecutions(server!.url, cookie, qcWorkflow.id)).flatMap((execution) => triggerItems(execution, QC_TRIGGER_NODE));
		await waitFor('the QC evaluation\'s execution', async () => (await emitted()).some((item) => item.eventId === eventId), { timeoutMs: POLL_WAIT_MS, intervalMs: 2000 });
		// One more poll of that trigger: nothing again.
		const reads = async () => (await sandbox.requests()).filter((request) => request.path === `/integration/orders/${qcOrderId}`).length;
		const readsBefore = await reads();
		await waitFor('another poll of the QC trigger', async () => (await reads()) > readsBefore, { timeoutMs: POLL_WAIT_MS, intervalMs: 2000 });
		await waitFor('its executions to settle', async () => (await readExecutions(server!.url, cookie, qcWorkflow.id)).every((execution) => !['new', 'running'].includes(execution.status)), {
			timeoutMs: 30_000,
			intervalMs: 1000,
		});
		const items = await emitted();
		assert.deepEqual(items.map((item) => item.eventId), [eventId]);
		const order = await sandbox.get<{ latestEvaluation: Json }>(`/integration/orders/${qcOrderId}`);
		assert.deepEqual([items[0].evaluationId, items[0].scores, items[0].textSummary], [order.latestEvaluation.id, order.latestEvaluation.scores, order.latestEvaluation.textSummary]);
	});

	/** Starts the create-and-wait workflow and reads its execution until it waits; the order it waits for. */
	async function startCreateAndWait(): Promise<{ waiting: N8nExecution; created: string; ended: () => Promise<N8nExecution> }> {
		const before = new Set((await readExecutions(server!.url, cookie, createAndWait.workflow.id)).map((run) => run.id));
		const answer = await callProductionWebhook(server!.url, createAndWait.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		assert.equal(answer.status, 200, answer.text);
		const execution = async (statuses: string[], timeoutMs = 120_000) =>
			await waitFor(
				`the create-and-wait execution to be ${statuses.join(' or ')}`,
				async () => {
					const run = (await readExecutions(server!.url, cookie, createAndWait.workflow.id)).find((each) => !before.has(each.id));
					return run && statuses.includes(run.status) ? run : undefined;
				},
				{ timeoutMs, intervalMs: 500 },
			);
		const waiting = await execution(['waiting']);
		const [created] = jsonOf(waiting, CREATE_AND_WAIT_NODE).map((item) => String(item.orderId));
		// n8n checks for due waits once a minute: Check Every (1 minute) plus up to a minute, plus the run.
		return { waiting, created, ended: async () => await execution(['success', 'error', 'crashed', 'canceled'], 240_000) };
	}

	function assertCarriedOn(ended: N8nExecution, waiting: N8nExecution, created: string): void {
		assert.equal(ended.id, waiting.id);
		assert.equal(ended.status, 'success', JSON.stringify(ended.data.resultData.error ?? {}));
		const [order] = jsonOf(ended, CREATE_AND_WAIT_NODE);
		assert.deepEqual({ id: order.orderId, done: order.done, status: ['completed', 'delivered'].includes(String(order.status)) }, { id: created, done: true, status: true });
		assert.equal(ended.data.resultData.runData[CREATE_AND_WAIT_NODE].length, 1, 'the node has one run');
	}

	it('Order > Create and Wait: the execution waits in n8n\'s waiting state and the order\'s callback resumes it', async () => {
		const { waiting, created, ended } = await startCreateAndWait();
		// The order completes (AI-delivered 11 simulated minutes after it was made) and the sandbox calls back at once.
		await sandbox.advanceClock(11);
		assertCarriedOn(await ended(), waiting, created);
	});

	it('Order > Create and Wait, its callback lost: n8n runs the node again at its next check, which reads the order and carries on', async () => {
		const { waiting, created, ended } = await startCreateAndWait();
		await sandbox.admin('PUT', 'callbacks/settings', { dropNext: 1 });
		await sandbox.advanceClock(11);
		const completedAt = Date.now();
		const execution = await ended();
		assertCarriedOn(execution, waiting, created);
		const [delivery] = (await sandbox.admin<{ deliveries: Array<{ orderId: string; status: string }> }>('GET', 'callbacks')).deliveries.filter((each) => each.orderId === created);
		assert.equal(delivery?.status, 'dropped');
		console.log(`Create and Wait, callback lost (Check Every 1 min): carried on ${((Date.now() - completedAt) / 1000).toFixed(0)} s after the order completed`);
	});

	it('leaves no API key in n8n\'s database, user folder or output', async () => {
		// Stop n8n first: its database is complete once it has shut down.
		await server?.stop();
		server = undefined;
		assertNoKeyLeft(n8n, sandbox.info.keys);
		assert.ok(n8n.serverLog.length > 10, `n8n start printed only ${n8n.serverLog.length} lines`);
	});
});
