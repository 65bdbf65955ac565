// The Ollang Callback Trigger in-process: the sandbox's real callbacks (at least once, repeated, retried, lost) reach
// the node's webhook through n8n-core's WebhookContext behind a real HTTP server, and its trigger() (the sweep) runs
// on n8n-core's TriggerContext beside it (test/harness/webhook.cts). Each well-formed callback is answered
// {"received":true} at once; the execution it starts confirms it with the API; the sweep finds what push missed; each
// completion is emitted once, whichever brought it; what is not a confirmed completion emits nothing.
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../../sandbox/index.cts';
import { createWebhookReceiver, OLLANG_CALLBACK_TRIGGER_NODE_TYPE, type WebhookReceiver, type WebhookReceiverOptions } from '../harness/webhook.cts';
import { call } from '../sandbox/helpers.cts';
import { Container, deduplicationStore } from '../harness/runtime.cts';
import { dirname } from 'node:path';
import { REFUSED_READS_PER_MINUTE } from '../../nodes/OllangCallbackTrigger/readBudget';

// n8n-core's copy of @n8n/backend-common holds the Logger a node's `this.logger` writes to.
const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [dirname(require.resolve('n8n-core'))] })) as {
	Logger: new (...args: never[]) => { warn(message: string): void; info(message: string): void };
};

/** What the node told n8n's log (warnings and infos) from here on. */
function captureLog(): string[] {
	const logger = Container.get(Logger as never) as InstanceType<typeof Logger>;
	const lines: string[] = [];
	for (const level of ['warn', 'info'] as const) {
		jest.spyOn(logger, level).mockImplementation((message: unknown) => {
			lines.push(`${level}: ${String(message)}`);
		});
	}
	return lines;
}

let sandbox: Sandbox;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ quiet: true, seed: 21, callbacks: { allowLoopback: true, repeatProbability: 0 } });
});
afterAll(async () => {
	await sandbox.close();
});
afterEach(async () => {
	jest.restoreAllMocks();
	deduplicationStore.raceLikeDatabase = false;
	sandbox.faults.clear();
	Object.assign(sandbox.callbacks.settings, { repeatProbability: 0, dropNext: 0, retries: 'three' });
	await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
	// Deliveries still waiting for a retry must not reach a later test's receiver (a restart listens on a freed port).
	sandbox.clock.advance(30);
	await sandbox.callbacks.settled();
});

/**
 * A trigger of a published workflow: its webhook, and its sweep activated beside it. The sweep's own loop runs every
 * hour here (longer than any test), so the tests sweep when they say (`receiver.sweep()`), except where the loop
 * itself is under test.
 */
async function receiver(parameters: IDataObject = {}, options: Pick<WebhookReceiverOptions, 'restartOf' | 'mode' | 'role'> = {}): Promise<WebhookReceiver> {
	const created = await createWebhookReceiver({
		parameters: { events: ['orderCompleted', 'qcEvaluationCompleted'], options: { sweepMinutes: 60 }, ...parameters },
		credentials: { baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.owner },
		...options,
	});
	receivers.push(created);
	return created;
}

/** n8n stopped and started again: the receiver closed, the same workflow's trigger activated afresh on its port. */
async function restart(running: WebhookReceiver, parameters: IDataObject = {}): Promise<WebhookReceiver> {
	await running.close();
	return await receiver(parameters, { restartOf: running });
}

async function createOrders(count: number, callbackUrl: string): Promise<string[]> {
	const response = await call(sandbox, 'POST', '/integration/orders/create', {
		body: {
			orderType: 'document',
			level: 0,
			projectId: sandbox.fixtures.projects.writable,
			targetLanguageConfigs: ['de', 'fr', 'es', 'it', 'nl', 'pt', 'ja', 'ko'].slice(0, count).map((language) => ({ language })),
			callbackUrl,
		},
	});
	expect(response.status).toBe(201);
	return response.body.map((created: { orderId: string }) => created.orderId);
}

/** Every executions the receivers started has ended. */
async function idle(): Promise<void> {
	await Promise.all(receivers.map(async (each) => await each.idle()));
}

/** The sandbox's clock moved on: the callbacks it sends answered, and the executions they started ended. */
async function advance(minutes: number): Promise<void> {
	sandbox.clock.advance(minutes);
	await sandbox.callbacks.settled();
	await idle();
}

async function post(url: string, body: string | Buffer, contentType = 'application/json', method = 'POST') {
	const response = await fetch(url, { method, headers: { 'content-type': contentType }, body: method === 'GET' ? undefined : body });
	return { status: response.status, body: await response.text() };
}

const RECEIVED = { status: 200, body: '{"received":true}' };

const orderReads = () => sandbox.requests.count({ method: 'GET', path: '/integration/orders/:orderId' });
const readsOf = (orderId: string) => sandbox.requests.count({ method: 'GET', path: `/integration/orders/${orderId}` });
const getOrder = async (orderId: string): Promise<IDataObject> => (await call(sandbox, 'GET', `/integration/orders/${orderId}`)).body;

/**
 * The emitted items of these orders. A sweep emits every completion of the account since its baseline (the
 * sandbox's seeded orders go on completing as its clock moves), not only a test's.
 */
const ours = (emissions: IDataObject[][], orderIds: string[]) => emissions.flat().filter((item) => orderIds.includes(String(item.orderId)));

/** Expected, emitted, missed and duplicated completions of the expected orders, by orderId. */
function tally(expected: string[], emissions: IDataObject[][]) {
	const emitted = ours(emissions, expected).map((item) => String(item.orderId));
	return {
		expected: expected.length,
		emitted: emitted.length,
		missed: expected.filter((id) => !emitted.includes(id)).length,
		duplicated: emitted.length - new Set(emitted).size,
	};
}

/** How the emitted items arrived. */
const arrivedBy = (emissions: IDataObject[][]) => emissions.flat().map((item) => item.arrivedBy);

/** The next completions' callbacks are recorded by the sandbox (real bodies) and never sent: the API lost them. */
async function completeQuietly(count: number, action: () => Promise<string[]>): Promise<string[]> {
	sandbox.callbacks.settings.dropNext = count;
	const before = sandbox.callbacks.list().length;
	const orderIds = await action();
	for (let minute = 0; minute < 60 && sandbox.callbacks.list().length < before + count; minute++) await advance(1);
	expect(sandbox.callbacks.list().length).toBe(before + count);
	sandbox.callbacks.settings.dropNext = 0;
	return orderIds;
}
const deliveriesOf = (orderId: string) => sandbox.callbacks.list().filter((each) => each.orderId === orderId);
const bodyOf = (orderId: string, nth = 0): IDataObject => deliveriesOf(orderId)[nth].body as IDataObject;

/** The item the trigger emits for an order's completion, as Get Order answers now. */
async function orderItem(orderId: string, how: 'push' | 'sweep'): Promise<IDataObject> {
	const order = await getOrder(orderId);
	return { event: 'orderCompleted', orderId, order, completionKey: `order:${orderId}:${String(bodyOf(orderId, deliveriesOf(orderId).length - 1).completedAt)}`, arrivedBy: how };
}

/** The completion's callback sent again to the same workflow after n8n started again: one execution, nothing emitted. */
async function expectRepeatDroppedAfterRestart(first: WebhookReceiver, orderId: string): Promise<void> {
	const restarted = await restart(first);
	const [delivery] = deliveriesOf(orderId);
	expect(await post(restarted.url, JSON.stringify(delivery.body))).toEqual(RECEIVED);
	await restarted.idle();
	expect(restarted.executionsStarted).toBe(1);
	// Neither the callback's execution nor the sweep's at activation (which found the completion) emitted it.
	expect(restarted.executions.filter((execution) => execution.startedBy === 'webhook').map((execution) => execution.emitted)).toEqual([[]]);
	expect(ours(restarted.emissions, [orderId])).toEqual([]);
}

describe('Ollang Callback Trigger: the sandbox calling back (push)', () => {
	it('answers each callback {"received":true} at once (before n8n starts its execution) and emits each completion once, as the API answers Get Order, with every delivery repeated', async () => {
		const trigger = await receiver();
		sandbox.callbacks.settings.repeatProbability = 1;
		const orderIds = await createOrders(4, trigger.url);
		const reads = orderReads();
		await advance(11);
		await advance(2);
		const deliveries = sandbox.callbacks.list().filter((delivery) => orderIds.includes(delivery.orderId));
		expect(deliveries).toHaveLength(8);
		expect(deliveries.every((delivery) => delivery.status === 'delivered' && delivery.attempts.every((attempt) => attempt.statusCode === 200))).toBe(true);
		expect(tally(orderIds, trigger.emissions)).toEqual({ expected: 4, emitted: 4, missed: 0, duplicated: 0 });
		// A repeat arriving beside its original starts an execution of its own (sharing its read when they meet); one
		// arriving after its completion was emitted starts none. At most one confirming read per execution.
		expect(trigger.executionsStarted).toBeGreaterThanOrEqual(4);
		expect(trigger.executionsStarted).toBeLessThanOrEqual(8);
		// The node answered each before n8n started its execution (the sweep is on): a burst waits on no execution.
		expect(trigger.answeredBeforeStart).toBe(trigger.executionsStarted);
		expect(orderReads() - reads).toBeGreaterThanOrEqual(4);
		expect(orderReads() - reads).toBeLessThanOrEqual(trigger.executionsStarted);
		for (const orderId of orderIds) expect(trigger.emissions.flat().find((item) => item.orderId === orderId)).toEqual(await orderItem(orderId, 'push'));
		// Every delivery sent again now: answered from the process's memory, no read, no execution.
		const started = trigger.executionsStarted;
		const readsBefore = orderReads();
		for (const delivery of deliveries) expect(await post(trigger.url, JSON.stringify(delivery.body))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executionsStarted).toBe(started);
		expect(orderReads()).toBe(readsBefore);
	});

	it('a confirming read that fails: answered {"received":true} at once, the completion dropped with a log, and the next sweep emits it once (arrivedBy sweep)', async () => {
		const trigger = await receiver();
		const log = captureLog();
		const [orderId] = await createOrders(1, trigger.url);
		// More failures than the transport's retries: the execution cannot confirm it.
		sandbox.faults.add({ kind: 'status', status: 503, retryAfterSeconds: 0, path: `/integration/orders/${orderId}`, times: 4 });
		await advance(11);
		expect(deliveriesOf(orderId).map((delivery) => delivery.attempts.map((attempt) => attempt.statusCode))).toEqual([[200]]);
		expect(trigger.executions).toEqual([expect.objectContaining({ startedBy: 'webhook', emitted: [] })]);
		expect(trigger.executions[0].error).toBeUndefined();
		expect(trigger.emissions).toEqual([]);
		expect(log).toContainEqual(expect.stringMatching(new RegExp(`^warn: .*order:${orderId}@.* could not be confirmed with the Ollang API .*; the sweep emits it once the API shows it completed$`)));
		// The API does not send it again (it was answered 200): the sweep finds it.
		await advance(30);
		expect(deliveriesOf(orderId)[0].attempts).toHaveLength(1);
		const found = await trigger.sweep();
		expect(ours([found], [orderId])).toEqual([expect.objectContaining({ arrivedBy: 'sweep', orderId, completionKey: `order:${orderId}:${String(bodyOf(orderId).completedAt)}` })]);
		expect(ours(trigger.emissions, [orderId])).toEqual([await orderItem(orderId, 'sweep')]);
		// A later sweep finds nothing new of it.
		expect(ours([await trigger.sweep()], [orderId])).toEqual([]);
		expect(tally([orderId], trigger.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
	});

	it('with the sweep off (Sweep Every 0), a confirming read that fails fails the execution (nothing else would find the completion); the callback was answered {"received":true} by n8n after the execution started', async () => {
		const trigger = await receiver({ options: { sweepMinutes: 0 } });
		const [orderId] = await createOrders(1, trigger.url);
		sandbox.faults.add({ kind: 'status', status: 503, retryAfterSeconds: 0, path: `/integration/orders/${orderId}`, times: 4 });
		await advance(11);
		expect(deliveriesOf(orderId)[0].attempts.map((attempt) => attempt.statusCode)).toEqual([200]);
		expect(trigger.executions).toEqual([expect.objectContaining({ startedBy: 'webhook', emitted: [], error: expect.stringMatching(/503|unavailable|service/i) })]);
		expect(trigger.emissions).toEqual([]);
		// n8n answered it, once the execution had started (nothing would find a completion whose execution never started).
		expect(trigger.answeredBeforeStart).toBe(0);
		// trigger() started no sweep.
		await expect(trigger.sweep()).rejects.toThrow(/runs no sweep/);
		// The failed callback is not remembered: the next delivery of it (an API retry, a repeat) is confirmed and emitted.
		expect(await post(trigger.url, JSON.stringify(bodyOf(orderId)))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.emissions).toEqual([[await orderItem(orderId, 'push')]]);
	});

	it('a confirming read that hangs: the callback is answered {"received":true} at once (well within the API\'s 10 s); the execution gives up on the read, logs, and the sweep emits it', async () => {
		const trigger = await receiver();
		const log = captureLog();
		const [orderId] = await createOrders(1, trigger.url);
		sandbox.faults.add({ kind: 'delay', delayMs: 30_000, path: `/integration/orders/${orderId}` });
		sandbox.clock.advance(11);
		await sandbox.callbacks.settled();
		const [attempt] = deliveriesOf(orderId)[0].attempts;
		expect(attempt).toEqual(expect.objectContaining({ statusCode: 200, error: null }));
		expect(attempt.durationMs).toBeLessThan(1_000);
		await trigger.idle();
		expect(trigger.emissions).toEqual([]);
		expect(log).toContainEqual(expect.stringMatching(new RegExp(`^warn: .*order:${orderId}@.* could not be confirmed with the Ollang API .*; the sweep emits it`)));
		sandbox.faults.clear();
		await trigger.sweep();
		expect(ours(trigger.emissions, [orderId])).toEqual([await orderItem(orderId, 'sweep')]);
	}, 60_000);

	it('emits a finished QC evaluation once, with the API\'s latest evaluation', async () => {
		const trigger = await receiver();
		const [order] = sandbox.simulate.createOrders(1, { type: 'document', level: 0, status: 'completed', progress: false });
		const started = await call(sandbox, 'POST', `/integration/orders/${order.id}/qc`, { body: { callbackUrl: trigger.url } });
		expect(started.status).toBe(200);
		await advance(5);
		const latest = await getOrder(order.id);
		expect(trigger.emissions).toEqual([
			[
				{
					event: 'qcEvaluationCompleted',
					orderId: order.id,
					evalId: started.body.evalId,
					evaluation: latest.latestEvaluation,
					order: latest,
					completionKey: `qc:${started.body.evalId}`,
					arrivedBy: 'push',
				},
			],
		]);
	});

	it('drops a later repeat while n8n runs, and after n8n started again (n8n\'s deduplication store): one emission', async () => {
		const first = await receiver();
		const [orderId] = await createOrders(1, first.url);
		await advance(11);
		expect(first.emissions).toEqual([[await orderItem(orderId, 'push')]]);
		const [delivery] = deliveriesOf(orderId);
		const reads = orderReads();
		// While n8n runs: answered from the process's memory, no read, no execution.
		expect(await post(first.url, JSON.stringify(delivery.body))).toEqual(RECEIVED);
		await first.idle();
		expect(first.emissions).toHaveLength(1);
		expect(first.executionsStarted).toBe(1);
		expect(orderReads()).toBe(reads);
		// After a restart the memory is empty: the callback starts an execution, whose first step confirms it and finds
		// the completion in n8n's database: nothing emitted.
		const restarted = await restart(first);
		await restarted.idle();
		// The sweep at activation found the completion too (after the first activation's baseline): dropped as well.
		expect(restarted.executions.map((execution) => [execution.startedBy, ours([execution.input], [orderId]).length, ours([execution.emitted], [orderId]).length])).toEqual([['trigger', 1, 0]]);
		const log = captureLog();
		expect(await post(restarted.url, JSON.stringify(delivery.body))).toEqual(RECEIVED);
		await restarted.idle();
		expect(log).toEqual([expect.stringMatching(`^info: .*repeated completion dropped \\(${String(first.emissions[0][0].completionKey)}\\): it started a workflow before`)]);
		expect(restarted.executionsStarted).toBe(1);
		expect(ours(restarted.emissions, [orderId])).toEqual([]);
		// A completion the restarted n8n has not seen is emitted as usual.
		const [other] = await createOrders(1, restarted.url);
		await advance(11);
		expect(ours(restarted.emissions, [orderId, other])).toEqual([await orderItem(other, 'push')]);
	});

	it('a test event (the editor\'s test URL) is neither dropped as a repeat nor recorded, so production still emits it', async () => {
		const production = await receiver();
		const [orderId] = await createOrders(1, production.url);
		const testing = await receiver({}, { restartOf: production, mode: 'manual' });
		const body = () => JSON.stringify(bodyOf(orderId));
		await advance(11);
		expect(production.emissions.flat().map((item) => item.orderId)).toEqual([orderId]);
		// The same completion sent to the test URL: emitted (nothing recorded in manual mode), and again.
		expect(await post(testing.url, body())).toEqual(RECEIVED);
		await testing.idle();
		expect(testing.emissions.flat().map((item) => item.orderId)).toEqual([orderId]);
		expect(testing.emissions.flat().map((item) => item.arrivedBy)).toEqual(['push']);
		const [later] = await createOrders(1, testing.url);
		await advance(11);
		expect(testing.emissions.flat().map((item) => item.orderId)).toEqual([orderId, later]);
		// Production never saw `later`: a callback of it there is emitted.
		expect(await post(production.url, JSON.stringify(bodyOf(later)))).toEqual(RECEIVED);
		await production.idle();
		expect(production.emissions.flat().map((item) => item.orderId)).toEqual([orderId, later]);
	});

	it('when n8n\'s deduplication store cannot be read, the completion is emitted (at least once), the item says it may be a repeat and n8n\'s log says so', async () => {
		const trigger = await receiver();
		const log = captureLog();
		jest.spyOn(deduplicationStore, 'checkProcessedAndRecord').mockRejectedValue(new Error('database is locked'));
		const [orderId] = await createOrders(1, trigger.url);
		await advance(11);
		expect(tally([orderId], trigger.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
		expect(trigger.emissions.flat().map((item) => item.possibleRepeat)).toEqual([true]);
		expect(log).toContainEqual(expect.stringMatching(/^warn: .*deduplication store could not be read \(database is locked\); emitting without the check/));
	});

	it("n8n's store reading and writing each row far apart (a loaded database): three copies of a callback at once, emitted once, a repeat after a restart dropped", async () => {
		const first = await receiver();
		deduplicationStore.raceLikeDatabase = true;
		deduplicationStore.raceDelayMs = () => 50 + 150 * Math.random();
		const [orderId] = await completeQuietly(1, async () => await createOrders(1, first.url));
		const body = JSON.stringify(bodyOf(orderId));
		expect(await Promise.all([post(first.url, body), post(first.url, body), post(first.url, body)])).toEqual([RECEIVED, RECEIVED, RECEIVED]);
		await first.idle();
		expect(tally([orderId], first.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
		deduplicationStore.raceLikeDatabase = false;
		await expectRepeatDroppedAfterRestart(first, orderId);
	});

	it("a claim leaves only the completion: the section's row is gone after the emission, the node's row holds the completion's key and nothing else of the claim", async () => {
		const first = await receiver();
		const [orderId] = await createOrders(1, first.url);
		await advance(11);
		expect(tally([orderId], first.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
		expect(await deduplicationStore.getProcessedDataCount('workflow', { workflow: { id: first.workflowId } } as never)).toBe(0);
		const recorded = deduplicationStore.calls.filter((call) => call.kind === 'check').flatMap((call) => call.items);
		expect(new Set(recorded.filter((name) => name.includes(orderId)))).toEqual(new Set([expect.stringMatching(new RegExp(`^order:${orderId}:[^|]+$`))]));
		expect(deduplicationStore.calls.filter((call) => call.kind === 'remove')).toEqual([]);
	});

	it('a store call refused once (two workers inserting the node\'s first record at once) is tried again: recorded, and a repeat after a restart dropped', async () => {
		const first = await receiver();
		const log = captureLog();
		const record = deduplicationStore.checkProcessedAndRecord.bind(deduplicationStore);
		let calls = 0;
		jest.spyOn(deduplicationStore, 'checkProcessedAndRecord').mockImplementation(async (...args) => {
			if (calls++ === 0) throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
			return await record(...args);
		});
		const [orderId] = await createOrders(1, first.url);
		await advance(11);
		expect(tally([orderId], first.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
		expect(log.filter((line) => line.startsWith('warn:'))).toEqual([]);
		jest.restoreAllMocks();
		await expectRepeatDroppedAfterRestart(first, orderId);
	});

	it('two copies of one callback at once: one emission', async () => {
		const trigger = await receiver();
		const [orderId] = await completeQuietly(1, async () => await createOrders(1, trigger.url));
		const body = JSON.stringify(bodyOf(orderId));
		const answers = await Promise.all([post(trigger.url, body), post(trigger.url, body), post(trigger.url, body)]);
		expect(answers).toEqual([RECEIVED, RECEIVED, RECEIVED]);
		await trigger.idle();
		expect(trigger.emissions).toEqual([[await orderItem(orderId, 'push')]]);
	});

	it('two copies at once while the confirming read fails: both answered {"received":true}, they share the failing read, nothing emitted; the next sweep emits it once and later copies emit nothing', async () => {
		const trigger = await receiver();
		const [orderId] = await completeQuietly(1, async () => await createOrders(1, trigger.url));
		const body = JSON.stringify(bodyOf(orderId));
		// The confirming read fails (more often than the transport retries it), slowly enough for the copies to meet.
		sandbox.faults.add({ kind: 'status', status: 500, path: `/integration/orders/${orderId}`, times: 4, delayMs: 150 });
		const reads = readsOf(orderId);
		// The second copy is sent once the first is being confirmed (its first read has reached the API).
		const first = post(trigger.url, body);
		while (readsOf(orderId) === reads) await new Promise((resolve) => setTimeout(resolve, 5));
		expect(await Promise.all([first, post(trigger.url, body)])).toEqual([RECEIVED, RECEIVED]);
		await trigger.idle();
		expect(trigger.executionsStarted).toBe(2);
		expect(trigger.emissions).toEqual([]);
		// The copies shared one confirmation (its four tries).
		expect(readsOf(orderId) - reads).toBe(4);
		sandbox.faults.clear();
		await trigger.sweep();
		expect(ours(trigger.emissions, [orderId])).toEqual([await orderItem(orderId, 'sweep')]);
		// Copies sent now are confirmed (they were not settled) and dropped: the sweep's execution claimed the completion.
		expect(await Promise.all([post(trigger.url, body), post(trigger.url, body)])).toEqual([RECEIVED, RECEIVED]);
		await trigger.idle();
		expect(trigger.executions.slice(-2).map((execution) => [execution.startedBy, execution.emitted])).toEqual([
			['webhook', []],
			['webhook', []],
		]);
		expect(tally([orderId], trigger.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
	});
});

describe('Ollang Callback Trigger: what is not a confirmed callback', () => {
	it('emits nothing for forged or unconfirmed callbacks, refuses what is not a callback without asking the API, and keeps working', async () => {
		const trigger = await receiver();
		const completedAt = new Date().toISOString();
		const [pending] = sandbox.simulate.createOrders(1, { type: 'document', level: 0, progress: false });
		const [completed] = sandbox.simulate.createOrders(1, { type: 'document', level: 0, status: 'completed', progress: false });
		const qc = await call(sandbox, 'POST', `/integration/orders/${completed.id}/qc`, { body: {} });
		await advance(5);

		const log = captureLog();
		const asked: Array<[string, number, number, number]> = [];
		const send = async (what: string, body: string | Buffer, contentType?: string, method?: string) => {
			const reads = orderReads();
			const started = trigger.executionsStarted;
			const answer = await post(trigger.url, body, contentType, method);
			await trigger.idle();
			asked.push([what, answer.status, trigger.executionsStarted - started, orderReads() - reads]);
		};
		await send('unknown order', JSON.stringify({ orderId: '0123456789abcdef01234567', status: 'completed', completedAt }));
		await send('order not completed', JSON.stringify({ orderId: pending.id, status: 'completed', completedAt }));
		await send('wrong evalId', JSON.stringify({ orderId: completed.id, evalId: 'eval_forged', status: 'completed', textSummary: '', scores: [], segmentEvals: [] }));
		await send('not JSON', `orderId=${completed.id}&status=completed`, 'text/plain');
		await send('1 MB body', JSON.stringify({ orderId: completed.id, status: 'completed', completedAt, padding: 'x'.repeat(1024 * 1024) }));
		await send('GET', '', 'application/json', 'GET');
		await send('no completedAt', JSON.stringify({ orderId: completed.id, status: 'completed' }));
		await send('status not completed', JSON.stringify({ orderId: completed.id, status: 'ongoing', completedAt }));
		await send('malformed JSON', '{"orderId": ', 'application/json');
		// Answered again: the unknown order (any claim of it) and the wrong evaluation were settled by their executions (no
		// execution, no read); the order not completed yet may complete, so a callback of it is read again.
		await send('unknown order again', JSON.stringify({ orderId: '0123456789abcdef01234567', status: 'completed', completedAt: new Date(Date.now() - 60_000).toISOString() }));
		await send('wrong evalId again', JSON.stringify({ orderId: completed.id, evalId: 'eval_forged', status: 'completed' }));
		await send('order not completed again', JSON.stringify({ orderId: pending.id, status: 'completed', completedAt }));
		await send('order not completed, another claim', JSON.stringify({ orderId: pending.id, status: 'completed', completedAt: new Date(Date.parse(completedAt) + 1_000).toISOString() }));
		// [what, status, executions started, reads]
		expect(asked).toEqual([
			['unknown order', 200, 1, 1],
			['order not completed', 200, 1, 1],
			['wrong evalId', 200, 1, 1],
			['not JSON', 415, 0, 0],
			['1 MB body', 413, 0, 0],
			['GET', 404, 0, 0],
			['no completedAt', 400, 0, 0],
			['status not completed', 400, 0, 0],
			['malformed JSON', 400, 0, 0],
			['unknown order again', 200, 0, 0],
			['wrong evalId again', 200, 0, 0],
			['order not completed again', 200, 1, 1],
			['order not completed, another claim', 200, 1, 1],
		]);
		expect(trigger.emissions).toEqual([]);
		// Each says why in n8n's log (GET and malformed JSON never reach the node: n8n answers them itself).
		expect(log).toEqual([
			expect.stringMatching(/^warn: .*not confirmed .*: the API answered 404 for order 0123456789abcdef01234567; the sweep emits it once the API shows it completed$/),
			expect.stringMatching(new RegExp(`^warn: .*not confirmed .*: order ${pending.id} is \\w+, not completed; the sweep emits it once the API shows it completed$`)),
			expect.stringMatching(new RegExp(`^warn: .*not confirmed .*: evaluation eval_forged is not the latest of order ${completed.id}; the sweep emits it`)),
			expect.stringMatching(/^warn: .*refused a request \(415\): content type "text\/plain"/),
			expect.stringMatching(/^warn: .*refused a request \(413\): a body of \d+ bytes/),
			expect.stringMatching(/^warn: .*refused a request \(400\): .*completedAt is missing or not a date$/),
			expect.stringMatching(/^warn: .*refused a request \(400\): .*status is not "completed"$/),
			expect.stringMatching(/^info: .*answered without an execution: an execution found: the API answered 404 for order 0123456789abcdef01234567$/),
			expect.stringMatching(/^info: .*qc:eval_forged answered without an execution: an execution found: evaluation eval_forged is not the latest/),
			expect.stringMatching(new RegExp(`^warn: .*not confirmed .*: order ${pending.id} is \\w+, not completed`)),
			expect.stringMatching(new RegExp(`^warn: .*not confirmed .*: order ${pending.id} is \\w+, not completed`)),
		]);

		// Still working: the real QC callback's body and a real completion are emitted.
		const evaluation = (await getOrder(completed.id)).latestEvaluation;
		expect(await post(trigger.url, JSON.stringify({ orderId: completed.id, evalId: qc.body.evalId, status: 'completed' }))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.emissions.flat()).toEqual([expect.objectContaining({ event: 'qcEvaluationCompleted', evalId: qc.body.evalId, evaluation, arrivedBy: 'push' })]);
	});

	it('checks the secret token first: without it nothing else is read; with it the callback goes through', async () => {
		const trigger = await receiver({ secretToken: 's3cret-token' });
		const [orderId] = await createOrders(1, `${trigger.url}?token=s3cret-token`);
		expect((await post(trigger.url, 'not json at all', 'text/plain')).status).toBe(401);
		expect((await post(`${trigger.url}?token=wrong`, JSON.stringify({ orderId, status: 'completed', completedAt: new Date().toISOString() }))).status).toBe(401);
		expect((await post(`${trigger.url}?token=s3cret-token-and-more`, '{}')).status).toBe(401);
		await advance(11);
		expect(trigger.executionsStarted).toBe(1);
		expect(trigger.emissions.flat().map((item) => [item.orderId, item.arrivedBy])).toEqual([[orderId, 'push']]);
		const refused = await post(trigger.url, 'x');
		expect(refused.body).not.toContain('s3cret');
	});

	it('answers and ignores the events it does not watch, without asking the API', async () => {
		const trigger = await receiver({ events: ['qcEvaluationCompleted'] });
		const [orderId] = await createOrders(1, trigger.url);
		const reads = orderReads();
		await advance(11);
		expect(deliveriesOf(orderId)[0].attempts.map((attempt) => attempt.statusCode)).toEqual([200]);
		expect(orderReads()).toBe(reads);
		expect(trigger.executionsStarted).toBe(0);
		expect(trigger.emissions).toEqual([]);
		// Nor does its sweep look for them.
		const found = await trigger.sweep();
		expect(found.filter((arrival) => arrival.event !== 'qcEvaluationCompleted' || arrival.orderId === orderId)).toEqual([]);
	});
});

describe('Ollang Callback Trigger: forged traffic (a completion is the API\'s; refused reads bounded) and bursts', () => {
	/** 20 claims of one completion's body: other instants and other writings of the same instant. */
	function forgedVariants(body: IDataObject): IDataObject[] {
		const at = Date.parse(String(body.completedAt));
		const instants = [1, 1000, 60_000, -1000, -86_400_000, 3_600_000, 7 * 86_400_000].map((shift) => new Date(at + shift).toISOString());
		const writings = [
			new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
			new Date(at).toISOString().replace('Z', '+00:00'),
			new Date(at + 2 * 3_600_000).toISOString().replace('Z', '+02:00'),
			new Date(at).toUTCString(),
			String(new Date(at)),
			new Date(at).toISOString().replace('T', ' '),
		];
		const claims = [...instants, ...writings, ...instants.slice(0, 7).map((instant) => instant.replace('Z', '-00:00'))];
		return claims.slice(0, 20).map((completedAt) => ({ ...body, completedAt }));
	}

	it('one real completion and 20 forged variants (other completedAt values and writings) emit once; the rerun completing emits once more; each answered {"received":true}', async () => {
		const trigger = await receiver();
		const [orderId] = await completeQuietly(1, async () => await createOrders(1, trigger.url));
		const real = bodyOf(orderId, 0);
		const variants = forgedVariants(real);
		expect(new Set(variants.map((body) => body.completedAt)).size).toBe(20);
		const reads = orderReads();
		// All at once, the real one among them: whichever is confirmed first, the API shows one completion.
		const answers = await Promise.all([...variants.slice(0, 10), real, ...variants.slice(10)].map(async (body) => await post(trigger.url, JSON.stringify(body))));
		expect(answers).toEqual(Array.from({ length: 21 }, () => RECEIVED));
		await trigger.idle();
		const firstReads = orderReads() - reads;
		const firstExecutions = trigger.executionsStarted;
		expect(firstReads).toBeLessThanOrEqual(firstExecutions);
		expect(trigger.emissions.flat().map((item) => [item.completionKey, item.arrivedBy])).toEqual([[`order:${orderId}:${String(real.completedAt)}`, 'push']]);
		// Sent again one after the other: each claim was settled by its execution, and is answered from memory: no
		// execution, no read.
		for (const body of [real, ...variants]) expect(await post(trigger.url, JSON.stringify(body))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executionsStarted).toBe(firstExecutions);
		expect(orderReads() - reads).toBe(firstReads);

		// The order's rerun completes: a new completion (a new ai_delivered event), emitted once whatever is sent.
		expect((await call(sandbox, 'POST', `/integration/orders/${orderId}/rerun`, { body: {} })).status).toBe(200);
		await completeQuietly(1, async () => [orderId]);
		const rerun = bodyOf(orderId, 1);
		expect(rerun.completedAt).not.toBe(real.completedAt);
		const again = await Promise.all([rerun, real, ...forgedVariants(rerun), rerun].map(async (body) => await post(trigger.url, JSON.stringify(body))));
		expect(again.every((each) => each.status === 200 && each.body === '{"received":true}')).toBe(true);
		await trigger.idle();
		expect(trigger.emissions.flat().map((item) => item.completionKey)).toEqual([`order:${orderId}:${String(real.completedAt)}`, `order:${orderId}:${String(rerun.completedAt)}`]);
		// The real first completion's claim was settled: only the rerun's 22 callbacks started executions.
		expect(trigger.executionsStarted - firstExecutions).toBeLessThanOrEqual(22);
		// The sweep finds both completions, already emitted: nothing more.
		await trigger.sweep();
		expect(ours(trigger.emissions, [orderId])).toHaveLength(2);
		console.log(`callback trigger: 1 completion + 20 forged variants at once: 1 emitted, ${firstExecutions} executions, ${firstReads} reads; its rerun + 22 callbacks: 1 emitted`);
	});

	it('a late callback of an earlier completion (read while the rerun runs, or after it completed) emits that completion, not the rerun\'s; each is answered from memory once emitted', async () => {
		const trigger = await receiver();
		const [running, rerunDone] = await completeQuietly(2, async () => await createOrders(2, trigger.url));
		const keyOf = (orderId: string, body: IDataObject) => `order:${orderId}:${String(body.completedAt)}`;
		const emitted = () => trigger.emissions.flat().map((item) => [item.completionKey, item.arrivedBy]);
		// One order's rerun is under way (not completed): its first completion's late callback is that completion.
		expect((await call(sandbox, 'POST', `/integration/orders/${running}/rerun`, { body: {} })).status).toBe(200);
		expect(await post(trigger.url, JSON.stringify(bodyOf(running, 0)))).toEqual(RECEIVED);
		await trigger.idle();
		expect(emitted()).toEqual([[keyOf(running, bodyOf(running, 0)), 'push']]);
		// The other's rerun completed before the first completion's callback came: still the first completion.
		expect((await call(sandbox, 'POST', `/integration/orders/${rerunDone}/rerun`, { body: {} })).status).toBe(200);
		await completeQuietly(2, async () => [running, rerunDone]);
		const [first, second] = [bodyOf(rerunDone, 0), bodyOf(rerunDone, 1)];
		expect(second.completedAt).not.toBe(first.completedAt);
		expect(await post(trigger.url, JSON.stringify(first))).toEqual(RECEIVED);
		await trigger.idle();
		expect(emitted().slice(1)).toEqual([[keyOf(rerunDone, first), 'push']]);
		// Sent again: settled, answered from memory. The rerun's own callback emits the rerun's completion.
		const executions = trigger.executionsStarted;
		expect(await post(trigger.url, JSON.stringify(first))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executionsStarted).toBe(executions);
		expect(await post(trigger.url, JSON.stringify(second))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executionsStarted).toBe(executions + 1);
		expect(emitted().slice(2)).toEqual([[keyOf(rerunDone, second), 'push']]);
		// The sweep finds the running order's rerun completion, whose callback never came; nothing else.
		await trigger.sweep();
		expect(ours(trigger.emissions, [running]).map((item) => [item.completionKey, item.arrivedBy])).toEqual([
			[keyOf(running, bodyOf(running, 0)), 'push'],
			[keyOf(running, bodyOf(running, 1)), 'sweep'],
		]);
		expect(ours(trigger.emissions, [rerunDone])).toHaveLength(2);
	});

	it('a completion the previous version recorded in n8n\'s store (keyed on the callback\'s completedAt) is still dropped after the upgrade', async () => {
		const trigger = await receiver();
		const [orderId] = await completeQuietly(1, async () => await createOrders(1, trigger.url));
		const real = bodyOf(orderId, 0);
		// What the version before this one recorded for it: `order:<orderId>:<the body's completedAt>`.
		const node = { id: 'callback-trigger-under-test', name: 'Ollang Callback Trigger', type: OLLANG_CALLBACK_TRIGGER_NODE_TYPE, typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };
		await deduplicationStore.checkProcessedAndRecord([`order:${orderId}:${String(real.completedAt)}`], 'node', { node, workflow: { id: trigger.workflowId, active: true } }, { mode: 'entries', maxEntries: 10_000 });
		const upgraded = await restart(trigger);
		expect(await post(upgraded.url, JSON.stringify(real))).toEqual(RECEIVED);
		await upgraded.idle();
		expect(upgraded.executionsStarted).toBe(1);
		// Neither the callback nor the sweep at activation (which found the completion) emitted it.
		expect(upgraded.executions.map((execution) => [execution.startedBy, ours([execution.input], [orderId]).length]).sort()).toEqual([
			['trigger', 1],
			['webhook', 1],
		]);
		expect(ours(upgraded.emissions, [orderId])).toEqual([]);
	});

	it(`1,000 callbacks naming unknown orders: each answered {"received":true} at once, nothing emitted, at most ${REFUSED_READS_PER_MINUTE} reads; an unknown order named again starts no execution`, async () => {
		const trigger = await receiver();
		const reads = orderReads();
		const ids = Array.from({ length: 1000 }, (_, index) => `fe${index.toString(16).padStart(22, '0')}`);
		const started = performance.now();
		const answers: Array<{ status: number; body: string }> = [];
		for (let index = 0; index < ids.length; index += 25) {
			answers.push(...(await Promise.all(ids.slice(index, index + 25).map(async (orderId) => await post(trigger.url, JSON.stringify({ orderId, status: 'completed', completedAt: new Date().toISOString() }))))));
		}
		const answeredMs = performance.now() - started;
		await trigger.idle();
		const spent = orderReads() - reads;
		const read = new Set(sandbox.requests.log.filter((request) => request.method === 'GET' && /^\/integration\/orders\/fe[0-9a-f]{22}$/.test(request.path)).map((request) => request.path.split('/').at(-1)));
		console.log(`callback trigger: 1,000 callbacks naming unknown orders: answered 200 ${answers.filter((each) => each.status === 200).length} in ${Math.round(answeredMs)} ms, executions ${trigger.executionsStarted}, reads ${spent} (bound ${REFUSED_READS_PER_MINUTE}), emitted ${trigger.emissions.flat().length}`);
		expect(answers).toEqual(Array.from({ length: 1000 }, () => RECEIVED));
		expect(spent).toBeLessThanOrEqual(REFUSED_READS_PER_MINUTE);
		expect(spent).toBeGreaterThan(0);
		expect(read.size).toBe(spent);
		expect(trigger.executionsStarted).toBe(1000);
		expect(trigger.executions.every((execution) => execution.error === undefined && execution.emitted.length === 0)).toBe(true);
		expect(trigger.emissions).toEqual([]);
		// An order a read found unknown, named again (another claim of it): answered from memory, no execution, no read.
		const knownUnknown = [...read][0]!;
		const known = orderReads();
		expect(await post(trigger.url, JSON.stringify({ orderId: knownUnknown, status: 'completed', completedAt: new Date(Date.now() + 5_000).toISOString() }))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executionsStarted).toBe(1000);
		// One not read (past the bound), named again: its execution reads nothing either, the minute's refusals spent.
		const notRead = ids.find((orderId) => !read.has(orderId))!;
		expect(await post(trigger.url, JSON.stringify({ orderId: notRead, status: 'completed', completedAt: new Date(Date.now() + 10_000).toISOString() }))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executionsStarted).toBe(1001);
		expect(orderReads()).toBe(known);
		expect(trigger.emissions).toEqual([]);
	}, 120_000);

	it('a burst of 200 real completions at once: each answered {"received":true} at once, read without a rate cap (about one read per order), each emitted once', async () => {
		const trigger = await receiver();
		sandbox.callbacks.settings.retries = 'none';
		const orderIds: string[] = [];
		for (let batch = 0; batch < 25; batch++) orderIds.push(...(await createOrders(8, trigger.url)));
		const reads = orderReads();
		const started = performance.now();
		sandbox.clock.advance(11);
		await sandbox.callbacks.settled();
		const answeredMs = performance.now() - started;
		await trigger.idle();
		const tookMs = performance.now() - started;
		const deliveries = sandbox.callbacks.list().filter((delivery) => orderIds.includes(delivery.orderId));
		const spent = orderReads() - reads;
		const slowest = Math.max(...deliveries.map((delivery) => delivery.attempts[0].durationMs ?? Infinity));
		console.log(`callback trigger: 200 completions at once: answered in ${Math.round(answeredMs)} ms (slowest ${slowest} ms), emitted ${trigger.emissions.flat().length} in ${Math.round(tookMs)} ms, ${spent} reads`);
		expect(deliveries).toHaveLength(200);
		expect(deliveries.every((delivery) => delivery.status === 'delivered' && delivery.attempts.length === 1 && delivery.attempts[0].statusCode === 200)).toBe(true);
		expect(slowest).toBeLessThan(10_000);
		expect(tally(orderIds, trigger.emissions)).toEqual({ expected: 200, emitted: 200, missed: 0, duplicated: 0 });
		expect(new Set(arrivedBy(trigger.emissions))).toEqual(new Set(['push']));
		expect(spent).toBeGreaterThanOrEqual(200);
		expect(spent).toBeLessThanOrEqual(210);
	}, 120_000);
});

describe('Ollang Callback Trigger: the sweep (trigger()) for what push missed', () => {
	it('completions whose callbacks the API never sent are emitted once by the next sweep, arrivedBy sweep, as Get Order answers', async () => {
		const trigger = await receiver();
		const orderIds = await completeQuietly(2, async () => await createOrders(2, trigger.url));
		expect(orderIds.flatMap((orderId) => deliveriesOf(orderId).map((delivery) => delivery.status))).toEqual(['dropped', 'dropped']);
		expect(trigger.executionsStarted).toBe(0);
		expect(trigger.emissions).toEqual([]);
		const found = await trigger.sweep();
		expect(ours([found], orderIds).map((arrival) => [arrival.arrivedBy, arrival.orderId, arrival.completionKey]).sort()).toEqual(
			orderIds.map((orderId) => ['sweep', orderId, `order:${orderId}:${String(bodyOf(orderId).completedAt)}`]).sort(),
		);
		// One execution for the sweep's findings.
		expect(trigger.executions).toEqual([expect.objectContaining({ startedBy: 'trigger', input: found })]);
		expect(ours(trigger.emissions, orderIds).sort((a, b) => String(a.orderId).localeCompare(String(b.orderId)))).toEqual(
			await Promise.all([...orderIds].sort().map(async (orderId) => await orderItem(orderId, 'sweep'))),
		);
		expect(ours([await trigger.sweep()], orderIds)).toEqual([]);
		expect(tally(orderIds, trigger.emissions)).toEqual({ expected: 2, emitted: 2, missed: 0, duplicated: 0 });
		// n8n saved the sweep's cursors with its emission: started again, the sweep at activation does not find them
		// again. n8n saved the two as handed over (with that emission), not as run through (it saves static data when a
		// trigger emits, and nothing emitted since): handed over once more, they are dropped as repeats.
		const restarted = await restart(trigger);
		await restarted.idle();
		const again = restarted.executions.filter((execution) => ours([execution.input], orderIds).length > 0);
		expect(again.map((execution) => [execution.startedBy, ours([execution.input], orderIds).map((arrival) => arrival.completionKey).sort(), execution.emitted])).toEqual(
			[['trigger', ours([found], orderIds).map((arrival) => arrival.completionKey).sort(), []]],
		);
		expect(ours([await restarted.sweep()], orderIds)).toEqual([]);
		expect(tally(orderIds, [...trigger.emissions, ...restarted.emissions])).toEqual({ expected: 2, emitted: 2, missed: 0, duplicated: 0 });
	});

	it('40 completions whose callbacks never came: one sweep emits them all, reading each order once for both events (the two share the sweep\'s reads)', async () => {
		const trigger = await receiver();
		const orderIds: string[] = [];
		for (let batch = 0; batch < 5; batch++) orderIds.push(...(await completeQuietly(8, async () => await createOrders(8, trigger.url))));
		expect(trigger.executionsStarted).toBe(0);
		const logged = sandbox.requests.log.length;
		const found = await trigger.sweep();
		expect(tally(orderIds, [found])).toEqual({ expected: 40, emitted: 40, missed: 0, duplicated: 0 });
		await trigger.idle();
		expect(tally(orderIds, trigger.emissions)).toEqual({ expected: 40, emitted: 40, missed: 0, duplicated: 0 });
		expect(new Set(arrivedBy(trigger.emissions))).toEqual(new Set(['sweep']));
		const reads = sandbox.requests.log.slice(logged).filter((request) => request.method === 'GET');
		const readsOf = new Map<string, number>();
		for (const request of reads) readsOf.set(request.path, (readsOf.get(request.path) ?? 0) + 1);
		// Each of the 40 orders read once, though both events (deliveries and QC evaluations) and the execution read it.
		expect(orderIds.map((orderId) => readsOf.get(`/integration/orders/${orderId}`))).toEqual(orderIds.map(() => 1));
		// No order read twice (the listing's pages are one path here).
		expect([...readsOf].filter(([path, count]) => path !== '/integration/orders' && count > 1)).toEqual([]);
		// Emitted as Get Order answers (the full order, as push emits it), from the sweep's own read.
		expect(ours(trigger.emissions, orderIds).sort((a, b) => String(a.orderId).localeCompare(String(b.orderId)))).toEqual(
			await Promise.all([...orderIds].sort().map(async (orderId) => await orderItem(orderId, 'sweep'))),
		);
	});

	it('a completion the API gave up on (retries none, its Callback URL unreachable) is emitted once by the next sweep', async () => {
		const trigger = await receiver();
		sandbox.callbacks.settings.retries = 'none';
		// Nothing listens there (a port that refuses connections): the API's one attempt fails.
		const unreachable = `http://127.0.0.1:9/webhook/${trigger.url.split('/webhook/')[1]}`;
		const [orderId] = await createOrders(1, unreachable);
		await advance(11);
		await advance(30);
		expect(deliveriesOf(orderId).map((delivery) => [delivery.status, delivery.attempts.length])).toEqual([['failed', 1]]);
		expect(trigger.emissions).toEqual([]);
		await trigger.sweep();
		expect(ours(trigger.emissions, [orderId])).toEqual([await orderItem(orderId, 'sweep')]);
	});

	it('a completion delivered by push, then found by the sweep: emitted once (by push); the sweep\'s execution emits nothing', async () => {
		const trigger = await receiver();
		const [orderId] = await createOrders(1, trigger.url);
		await advance(11);
		expect(trigger.emissions).toEqual([[await orderItem(orderId, 'push')]]);
		const found = await trigger.sweep();
		expect(ours([found], [orderId])).toEqual([expect.objectContaining({ arrivedBy: 'sweep', orderId, completionKey: trigger.emissions[0][0].completionKey })]);
		expect(trigger.executions.map((execution) => [execution.startedBy, ours([execution.emitted], [orderId]).length])).toEqual([
			['webhook', 1],
			['trigger', 0],
		]);
		expect(tally([orderId], trigger.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
	});

	it('a completion found by the sweep, then delivered by push (late): emitted once (by the sweep); push emits nothing, and its repeats start no execution', async () => {
		const trigger = await receiver();
		const [orderId] = await completeQuietly(1, async () => await createOrders(1, trigger.url));
		await trigger.sweep();
		expect(ours(trigger.emissions, [orderId])).toEqual([await orderItem(orderId, 'sweep')]);
		const log = captureLog();
		expect(await post(trigger.url, JSON.stringify(bodyOf(orderId)))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executions.map((execution) => [execution.startedBy, ours([execution.emitted], [orderId]).length])).toEqual([
			['trigger', 1],
			['webhook', 0],
		]);
		expect(log).toContainEqual(expect.stringMatching(`^info: .*repeated completion dropped \\(order:${orderId}:`));
		expect(await post(trigger.url, JSON.stringify(bodyOf(orderId)))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executionsStarted).toBe(1);
		expect(tally([orderId], trigger.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
	});

	it('n8n down while 20 orders complete (their callbacks fail), started again: the sweep at activation emits the 20 once; the API\'s retries then emit nothing', async () => {
		const first = await receiver();
		await first.close();
		const orderIds: string[] = [];
		for (let batch = 0; batch < 3; batch++) orderIds.push(...(await createOrders(batch < 2 ? 8 : 4, first.url)));
		await advance(11);
		const deliveries = () => sandbox.callbacks.list().filter((delivery) => orderIds.includes(delivery.orderId));
		expect(deliveries()).toHaveLength(20);
		expect(deliveries().every((delivery) => delivery.status === 'waiting' && delivery.attempts[0].statusCode === null)).toBe(true);
		const restarted = await restart(first);
		expect(restarted.url).toBe(first.url);
		await restarted.idle();
		// One execution, started by the sweep at activation, emitted all 20.
		expect(restarted.executions.map((execution) => [execution.startedBy, ours([execution.emitted], orderIds).length])).toEqual([['trigger', 20]]);
		expect(tally(orderIds, restarted.emissions)).toEqual({ expected: 20, emitted: 20, missed: 0, duplicated: 0 });
		expect(new Set(arrivedBy(restarted.emissions))).toEqual(new Set(['sweep']));
		// The API's retries reach n8n now: answered, confirmed, dropped (each completion was emitted).
		await advance(1);
		expect(deliveries().every((delivery) => delivery.status === 'delivered' && delivery.attempts.at(-1)!.statusCode === 200)).toBe(true);
		expect(restarted.executionsStarted).toBe(20);
		expect(tally(orderIds, restarted.emissions)).toEqual({ expected: 20, emitted: 20, missed: 0, duplicated: 0 });
	});

	it('push and the sweep racing on the same completions at the same moment, in one process: each emitted once', async () => {
		const trigger = await receiver();
		const orderIds = await completeQuietly(8, async () => await createOrders(8, trigger.url));
		// Each order's callback sent a little later than the last (0 to 350 ms after the sweep starts), so that some meet
		// the sweep's execution before it claims, some while it claims, some after.
		const sweeping = trigger.sweep();
		const pushes = orderIds.map(async (orderId, index) => {
			await new Promise((resolve) => setTimeout(resolve, index * 50));
			return await post(trigger.url, JSON.stringify(bodyOf(orderId)));
		});
		const [found, ...answers] = await Promise.all([sweeping, ...pushes]);
		await trigger.idle();
		expect(answers).toEqual(orderIds.map(() => RECEIVED));
		expect(ours([found], orderIds)).toHaveLength(8);
		expect(trigger.executionsStarted).toBe(8);
		expect(tally(orderIds, trigger.emissions)).toEqual({ expected: 8, emitted: 8, missed: 0, duplicated: 0 });
		const how = ours(trigger.emissions, orderIds).map((item) => item.arrivedBy);
		console.log(`callback trigger: push and sweep racing on 8 completions: emitted by push ${how.filter((each) => each === 'push').length}, by the sweep ${how.filter((each) => each === 'sweep').length}`);
	});

	it('push to a webhook process and the sweep of the main racing on the same completions: each emitted once (the claim in n8n\'s store)', async () => {
		const main = await receiver();
		const webhookProcess = await receiver({}, { restartOf: main, role: 'webhook' });
		const orderIds = await completeQuietly(8, async () => await createOrders(8, main.url));
		// Staggered as in the one-process race: the claims of the two processes meet in n8n's store.
		await Promise.all([
			main.sweep(),
			...orderIds.map(async (orderId, index) => {
				await new Promise((resolve) => setTimeout(resolve, index * 50));
				expect(await post(webhookProcess.url, JSON.stringify(bodyOf(orderId)))).toEqual(RECEIVED);
			}),
		]);
		await idle();
		const both = [...main.emissions, ...webhookProcess.emissions];
		expect(tally(orderIds, both)).toEqual({ expected: 8, emitted: 8, missed: 0, duplicated: 0 });
		console.log(`callback trigger: a webhook process's push and the main's sweep racing on 8 completions: emitted by push ${ours(webhookProcess.emissions, orderIds).length}, by the sweep ${ours(main.emissions, orderIds).length}`);
		expect(arrivedBy(main.emissions).every((how) => how === 'sweep')).toBe(true);
		expect(arrivedBy(webhookProcess.emissions).every((how) => how === 'push')).toBe(true);
	});

	it('the first activation sets a baseline: completions before it are not emitted by the sweep; a rerun of such an order completing after it is', async () => {
		sandbox.callbacks.settings.retries = 'none';
		const before = await completeQuietly(2, async () => await createOrders(2, 'https://receiver.example/ollang-callback'));
		const trigger = await receiver();
		// n8n saved the activation's baseline with the workflow.
		expect(Object.keys(trigger.savedStaticData).sort()).toEqual(expect.arrayContaining(['global', 'node:Ollang Callback Trigger']));
		expect(Object.keys(trigger.savedStaticData['node:Ollang Callback Trigger'] as IDataObject).sort()).toEqual(['sweep:orderCompleted', 'sweep:qcEvaluationCompleted']);
		expect(trigger.executions).toEqual([]);
		expect(ours([await trigger.sweep()], before)).toEqual([]);
		await advance(60);
		expect(ours([await trigger.sweep()], before)).toEqual([]);
		expect(ours(trigger.emissions, before)).toEqual([]);
		// A rerun is a new completion, after the baseline.
		expect((await call(sandbox, 'POST', `/integration/orders/${before[0]}/rerun`, { body: {} })).status).toBe(200);
		await completeQuietly(1, async () => [before[0]]);
		// An order read before shows no listed change (completed again): the sweep's round of checks finds it.
		let sweeps = 0;
		while (sweeps < 20 && ours(trigger.emissions, before).length === 0) {
			await trigger.sweep();
			sweeps++;
		}
		console.log(`callback trigger: a rerun's completion (no listed change) found by the sweep's checks after ${sweeps} sweeps`);
		expect(ours(trigger.emissions, before)).toEqual([await orderItem(before[0], 'sweep')]);
		expect(ours(trigger.emissions, before)[0].completionKey).toBe(`order:${before[0]}:${String(bodyOf(before[0], 1).completedAt)}`);
	});

	it('a QC evaluation whose callback was lost is emitted once by the sweep, with the API\'s latest evaluation', async () => {
		const trigger = await receiver();
		// The API's clock moves on past the activation's baseline (an evaluation requested at its very instant is history).
		await advance(1);
		const [order] = sandbox.simulate.createOrders(1, { type: 'document', level: 0, status: 'completed', progress: false });
		sandbox.callbacks.settings.dropNext = 1;
		const started = await call(sandbox, 'POST', `/integration/orders/${order.id}/qc`, { body: { callbackUrl: trigger.url } });
		expect(started.status).toBe(200);
		await advance(5);
		expect(deliveriesOf(order.id).map((delivery) => [delivery.kind, delivery.status])).toEqual([['qcCompleted', 'dropped']]);
		expect(trigger.emissions).toEqual([]);
		// (The order, made completed after the baseline, is an order completion of its own: Order Completed.)
		const evaluations = (items: IDataObject[]) => ours([items], [order.id]).filter((item) => item.event === 'qcEvaluationCompleted');
		const found = await trigger.sweep();
		expect(evaluations(found)).toEqual([expect.objectContaining({ arrivedBy: 'sweep', event: 'qcEvaluationCompleted', orderId: order.id, evalId: started.body.evalId, completionKey: `qc:${started.body.evalId}` })]);
		const latest = await getOrder(order.id);
		expect(evaluations(trigger.emissions.flat())).toEqual([
			{ event: 'qcEvaluationCompleted', orderId: order.id, evalId: started.body.evalId, evaluation: latest.latestEvaluation, order: latest, completionKey: `qc:${started.body.evalId}`, arrivedBy: 'sweep' },
		]);
		// The callback arriving late now: dropped.
		expect(await post(trigger.url, JSON.stringify(bodyOf(order.id)))).toEqual(RECEIVED);
		await trigger.idle();
		expect(trigger.executions.at(-1)).toEqual(expect.objectContaining({ startedBy: 'webhook', emitted: [] }));
		expect(evaluations(trigger.emissions.flat())).toHaveLength(1);
	});

	it('the node\'s own loop sweeps every Sweep Every (Minutes) and emits what it found in one execution; closing the workflow stops it', async () => {
		const trigger = await receiver({ options: { sweepMinutes: 1 / 60 } });
		const orderIds = await completeQuietly(2, async () => await createOrders(2, trigger.url));
		const until = Date.now() + 10_000;
		while (ours(trigger.emissions, orderIds).length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
		await trigger.idle();
		// No callback, no sweep from the test: the loop's executions ('trigger') emitted them.
		expect(trigger.executionsStarted).toBe(0);
		expect(trigger.executions.every((execution) => execution.startedBy === 'trigger')).toBe(true);
		expect(tally(orderIds, trigger.emissions)).toEqual({ expected: 2, emitted: 2, missed: 0, duplicated: 0 });
		expect(new Set(arrivedBy(trigger.emissions))).toEqual(new Set(['sweep']));
		await trigger.close();
		const lists = () => sandbox.requests.count({ method: 'GET', path: '/integration/orders' });
		// A sweep under way when it closed ends; none starts after.
		await new Promise((resolve) => setTimeout(resolve, 1_500));
		const listed = lists();
		await new Promise((resolve) => setTimeout(resolve, 2_500));
		expect(lists()).toBe(listed);
	});

	it('a reviewed order (level 1): its AI delivery is no completion, its LSP approval is, emitted once by the sweep', async () => {
		const trigger = await receiver();
		sandbox.callbacks.settings.retries = 'none';
		const [orderId] = sandbox.simulate.createOrders(1, { type: 'document', level: 1 }).map((order) => order.id);
		// Past the AI delivery (the order still ongoing, its translator at work): nothing to emit.
		await advance(30);
		const shown = async () => ((await getOrder(orderId)).deliveryEvents as IDataObject[]).map((event) => event.type);
		expect(await shown()).toContain('ai_delivered');
		expect((await getOrder(orderId)).status).not.toBe('completed');
		expect(ours([await trigger.sweep()], [orderId])).toEqual([]);
		// Through review to the LSP's approval (completed), then to the client (delivered).
		for (let minute = 0; minute < 300 && !(await shown()).includes('lsp_approved'); minute += 10) await advance(10);
		expect(await shown()).toContain('lsp_approved');
		// (A QC evaluation the sandbox runs at the approval is a completion of its own: QC Evaluation Completed.)
		const orderCompletions = (items: IDataObject[]) => ours([items], [orderId]).filter((item) => item.event === 'orderCompleted');
		const found = orderCompletions(await trigger.sweep());
		const approval = ((await getOrder(orderId)).deliveryEvents as IDataObject[]).find((event) => event.type === 'lsp_approved')!;
		expect(found).toEqual([expect.objectContaining({ arrivedBy: 'sweep', orderId, completionKey: `order:${orderId}:${String(approval.occurredAt)}` })]);
		expect(orderCompletions(trigger.emissions.flat())).toEqual([expect.objectContaining({ event: 'orderCompleted', orderId, completionKey: `order:${orderId}:${String(approval.occurredAt)}`, arrivedBy: 'sweep' })]);
		expect(ours([await trigger.sweep()], [orderId])).toEqual([]);
	});
});
