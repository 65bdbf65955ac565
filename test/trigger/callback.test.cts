// The Ollang Callback Trigger in-process: the sandbox's real callbacks (at least once, repeated, retried) reach the
// node's webhook through n8n-core's WebhookContext behind a real HTTP server (test/harness/webhook.cts); each
// completion is confirmed with the API and emitted once; what is not a confirmed callback emits nothing.
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../../sandbox/index.cts';
import { createWebhookReceiver, OLLANG_CALLBACK_TRIGGER_NODE_TYPE, type WebhookReceiver, type WebhookReceiverOptions } from '../harness/webhook.cts';
import { call } from '../sandbox/helpers.cts';
import { Container, deduplicationStore } from '../harness/runtime.cts';
import { dirname } from 'node:path';
import { READS_IN_FLIGHT, READS_PER_MINUTE } from '../../nodes/OllangCallbackTrigger/admission';
import { READ_BACK_AFTER_MS } from '../../nodes/shared/waits';

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
	sandbox.faults.clear();
	sandbox.callbacks.settings.repeatProbability = 0;
	await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(parameters: IDataObject = {}, options: Pick<WebhookReceiverOptions, 'restartOf' | 'mode'> = {}): Promise<WebhookReceiver> {
	const created = await createWebhookReceiver({
		parameters: { events: ['orderCompleted', 'qcEvaluationCompleted'], ...parameters },
		credentials: { baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.owner },
		...options,
	});
	receivers.push(created);
	return created;
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

async function advance(minutes: number): Promise<void> {
	sandbox.clock.advance(minutes);
	await sandbox.callbacks.settled();
}

async function post(url: string, body: string | Buffer, contentType = 'application/json', method = 'POST') {
	const response = await fetch(url, { method, headers: { 'content-type': contentType }, body: method === 'GET' ? undefined : body });
	return { status: response.status, body: (await response.text()) };
}

const orderReads = () => sandbox.requests.count({ method: 'GET', path: '/integration/orders/:orderId' });

/** Expected, emitted, missed and duplicated completions, by orderId. */
function tally(expected: string[], emissions: IDataObject[][]) {
	const emitted = emissions.flat().map((item) => String(item.orderId));
	return {
		expected: expected.length,
		emitted: emitted.length,
		missed: expected.filter((id) => !emitted.includes(id)).length,
		duplicated: emitted.length - new Set(emitted).size,
	};
}

/** The completion's callback sent again to the same workflow after n8n started again: one execution, nothing emitted. */
async function expectRepeatDroppedAfterRestart(first: WebhookReceiver, orderId: string): Promise<void> {
	const restarted = await receiver({}, { restartOf: first });
	const [delivery] = sandbox.callbacks.list().filter((each) => each.orderId === orderId);
	expect((await post(restarted.url, JSON.stringify(delivery.body))).status).toBe(200);
	expect(restarted.executionsStarted).toBe(1);
	expect(restarted.emissions).toEqual([]);
}

describe('Ollang Callback Trigger: the sandbox calling back', () => {
	it('emits each completion once, as the API answers Get Order, with every delivery repeated', async () => {
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
		// The repeats were dropped before asking the API: one confirming read per completion.
		expect(orderReads() - reads).toBe(4);
		for (const item of trigger.emissions.flat()) {
			const order = (await call(sandbox, 'GET', `/integration/orders/${item.orderId}`)).body;
			expect(item).toEqual({ event: 'orderCompleted', orderId: order.id, order, completionKey: expect.stringMatching(`^order:${order.id}:`) });
		}
	});

	it('a confirming read that fails answers 503; the API\'s retry is confirmed and emitted once', async () => {
		const trigger = await receiver();
		const [orderId] = await createOrders(1, trigger.url);
		// More failures than the transport's retries: the first delivery cannot be confirmed.
		sandbox.faults.add({ kind: 'status', status: 503, retryAfterSeconds: 0, path: `/integration/orders/${orderId}`, times: 4 });
		await advance(11);
		const [delivery] = sandbox.callbacks.list().filter((each) => each.orderId === orderId);
		expect(delivery.attempts.map((attempt) => attempt.statusCode)).toEqual([503]);
		expect(trigger.emissions).toEqual([]);
		await advance(1);
		expect(delivery.attempts.map((attempt) => attempt.statusCode)).toEqual([503, 200]);
		expect(tally([orderId], trigger.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
	});

	it('answers within the API\'s 10 s when the confirming read hangs (503, logged), and emits on the retry', async () => {
		const trigger = await receiver();
		const log = captureLog();
		const [orderId] = await createOrders(1, trigger.url);
		sandbox.faults.add({ kind: 'delay', delayMs: 30_000, path: `/integration/orders/${orderId}` });
		await advance(11);
		expect(log).toEqual([expect.stringMatching(new RegExp(`^warn: .*could not confirm order:${orderId}@.* within 7 s.*answered 503 so the API sends it again`))]);
		const [delivery] = sandbox.callbacks.list().filter((each) => each.orderId === orderId);
		expect(delivery.attempts[0]).toEqual(expect.objectContaining({ statusCode: 503, error: null }));
		expect(delivery.attempts[0].durationMs).toBeLessThan(10_000);
		expect(trigger.emissions).toEqual([]);
		sandbox.faults.clear();
		await advance(1);
		expect(tally([orderId], trigger.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
	}, 30_000);

	it('emits a finished QC evaluation once, with the API\'s latest evaluation', async () => {
		const trigger = await receiver();
		const [order] = sandbox.simulate.createOrders(1, { type: 'document', level: 0, status: 'completed', progress: false });
		const started = await call(sandbox, 'POST', `/integration/orders/${order.id}/qc`, { body: { callbackUrl: trigger.url } });
		expect(started.status).toBe(200);
		await advance(5);
		const latest = (await call(sandbox, 'GET', `/integration/orders/${order.id}`)).body;
		expect(trigger.emissions).toEqual([
			[
				{
					event: 'qcEvaluationCompleted',
					orderId: order.id,
					evalId: started.body.evalId,
					evaluation: latest.latestEvaluation,
					order: latest,
					completionKey: `qc:${started.body.evalId}`,
				},
			],
		]);
	});

	it('drops a later repeat while n8n runs, and after n8n started again (n8n\'s deduplication store): one emission', async () => {
		const first = await receiver();
		const [orderId] = await createOrders(1, first.url);
		await advance(11);
		expect(first.emissions).toHaveLength(1);
		expect(first.emissions[0][0].completionKey).toBe(`order:${orderId}:${(sandbox.callbacks.list().find((each) => each.orderId === orderId)!.body as IDataObject).completedAt}`);
		const [delivery] = sandbox.callbacks.list().filter((each) => each.orderId === orderId);
		const reads = orderReads();
		// While n8n runs: answered from the process's memory, no read, no execution.
		expect((await post(first.url, JSON.stringify(delivery.body))).status).toBe(200);
		expect(first.emissions).toHaveLength(1);
		expect(first.executionsStarted).toBe(1);
		expect(orderReads()).toBe(reads);
		// After a restart the memory is empty: the callback is confirmed again and starts an execution, whose first
		// step finds the completion in n8n's database and emits nothing.
		const restarted = await receiver({}, { restartOf: first });
		const log = captureLog();
		expect((await post(restarted.url, JSON.stringify(delivery.body))).status).toBe(200);
		expect(log).toEqual([expect.stringMatching(`^info: .*repeated callback dropped \\(${first.emissions[0][0].completionKey}\\): this completion started a workflow before`)]);
		expect(restarted.executionsStarted).toBe(1);
		expect(restarted.emissions).toEqual([]);
		// A completion the restarted n8n has not seen is emitted as usual.
		const [other] = await createOrders(1, restarted.url);
		await advance(11);
		expect(restarted.emissions.flat().map((item) => item.orderId)).toEqual([other]);
	});

	it('a test event (the editor\'s test URL) is neither dropped as a repeat nor recorded, so production still emits it', async () => {
		const production = await receiver();
		const [orderId] = await createOrders(1, production.url);
		const testing = await receiver({}, { restartOf: production, mode: 'manual' });
		const body = () => JSON.stringify(sandbox.callbacks.list().find((each) => each.orderId === orderId)!.body);
		await advance(11);
		expect(production.emissions.flat().map((item) => item.orderId)).toEqual([orderId]);
		// The same completion sent to the test URL twice: emitted each time (nothing recorded in manual mode).
		expect((await post(testing.url, body())).status).toBe(200);
		expect(testing.emissions.flat().map((item) => item.orderId)).toEqual([orderId]);
		const [later] = await createOrders(1, testing.url);
		await advance(11);
		expect(testing.emissions.flat().map((item) => item.orderId)).toEqual([orderId, later]);
		// Production never saw `later`: a callback of it there is emitted.
		const laterBody = JSON.stringify(sandbox.callbacks.list().find((each) => each.orderId === later)!.body);
		expect((await post(production.url, laterBody)).status).toBe(200);
		expect(production.emissions.flat().map((item) => item.orderId)).toEqual([orderId, later]);
	});

	it('when n8n\'s deduplication store cannot be read, the completion is emitted (at least once) and n8n\'s log says so', async () => {
		const trigger = await receiver();
		const log = captureLog();
		jest.spyOn(deduplicationStore, 'checkProcessedAndRecord').mockRejectedValue(new Error('database is locked'));
		const [orderId] = await createOrders(1, trigger.url);
		await advance(11);
		expect(tally([orderId], trigger.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
		expect(log).toContainEqual(expect.stringMatching(/^warn: .*deduplication store could not be read \(database is locked\); emitting without the check/));
	});

	/**
	 * n8n's store writes a node's whole row without a lock: a queue-mode worker that read the row before this node's
	 * first record writes its copy after it. `otherWrite` makes that copy's effect (given what this node's call
	 * added, and which call of the node it follows: 0 its first record), at once or later; the test then checks what
	 * was emitted and logged, and that a repeat after a restart is dropped.
	 */
	async function expectAfterOtherWorkersWrite(
		otherWrite: (added: string[], store: { remove: (markers: string[]) => Promise<void>; add: (markers: string[]) => Promise<unknown> }, call: number) => Promise<void> | void,
		expected: { emitted: 0 | 1; logged: RegExp },
	): Promise<void> {
		const first = await receiver();
		const log = captureLog();
		const record = deduplicationStore.checkProcessedAndRecord.bind(deduplicationStore);
		let calls = 0;
		jest.spyOn(deduplicationStore, 'checkProcessedAndRecord').mockImplementation(async (items, scope, contextData, options) => {
			const result = await record(items, scope, contextData, options);
			const store = {
				remove: async (markers: string[]) => await deduplicationStore.removeProcessed(markers, scope, contextData),
				add: async (markers: string[]) => await record(markers, scope, contextData, options),
			};
			await otherWrite(result.new.map(String), store, calls++);
			return result;
		});
		const [orderId] = await createOrders(1, first.url);
		await advance(11);
		expect(tally([orderId], first.emissions)).toEqual({ expected: 1, emitted: expected.emitted, missed: 1 - expected.emitted, duplicated: 0 });
		expect(log).toContainEqual(expect.stringMatching(expected.logged));
		jest.restoreAllMocks();
		await expectRepeatDroppedAfterRestart(first, orderId);
	}

	const madeAgain = { emitted: 1, logged: /^info: .*was dropped from n8n's deduplication store by another process's write; recorded again$/ } as const;

	it('a record another process\'s write dropped from n8n\'s store is read back and made again, so a repeat after a restart is still dropped', async () => {
		await expectAfterOtherWorkersWrite(async (added, store, call) => {
			if (call === 0) await store.remove(added);
		}, madeAgain);
	});

	it('a record dropped by another process\'s write landing just after it (after an immediate read-back) is made again, so a repeat after a restart is still dropped', async () => {
		// Within the read-back's wait: a read-back made at once still finds the record, the one after the wait does not.
		await expectAfterOtherWorkersWrite((added, store, call) => {
			if (call === 0) setTimeout(() => void store.remove(added), READ_BACK_AFTER_MS / 2);
		}, madeAgain);
	});

	it('a record dropped by another process\'s write, with a third worker\'s copy of the row (holding what the node wrote) landing after each removal the node makes: emitted once', async () => {
		await expectAfterOtherWorkersWrite(async (added, store, call) => {
			if (call !== 0) return;
			await store.remove(added);
			// The third worker read the row while the node's markers were in it, and its copy lands right after the node
			// removes any of them: a read-back that records and takes back would find its completion "recorded meanwhile".
			const remove = deduplicationStore.removeProcessed.bind(deduplicationStore);
			jest.spyOn(deduplicationStore, 'removeProcessed').mockImplementation(async (items, scope, contextData) => {
				await remove(items, scope, contextData);
				if (items.some((marker) => !String(marker).includes('|by:'))) await store.add(items.map(String));
			});
		}, madeAgain);
	});

	it('another execution recording the same completion at the same moment (its write replacing this one\'s): emitted by that one only, and a repeat after a restart dropped', async () => {
		// That worker's copy holds the completion too, with its own claim instead of this execution's.
		await expectAfterOtherWorkersWrite(
			async (added, store, call) => {
				if (call > 0) return;
				const mine = added.filter((marker) => marker.includes('|by:'));
				await store.remove(mine);
				await store.add(mine.map((marker) => marker.replace(/\|by:.*$/, '|by:other-worker')));
			},
			{ emitted: 0, logged: /^info: .*was recorded at the same moment by another execution, which emits it; dropped here$/ },
		);
	});

	it('a claim serves once: after the emission n8n\'s store keeps the completion, not this execution\'s claim', async () => {
		const first = await receiver();
		const [orderId] = await createOrders(1, first.url);
		await advance(11);
		expect(tally([orderId], first.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
		const recorded = deduplicationStore.calls.filter((call) => call.kind === 'check').flatMap((call) => call.items);
		const removed = deduplicationStore.calls.filter((call) => call.kind === 'remove').flatMap((call) => call.items);
		const claims = [...new Set(recorded.filter((marker) => marker.startsWith(`order:${orderId}:`) && marker.includes('|by:')))];
		expect(claims).toHaveLength(1);
		expect(removed).toContain(claims[0]);
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
		const [orderId] = await createOrders(1, `${trigger.url}?copy=1`);
		await advance(11);
		const body = JSON.stringify(sandbox.callbacks.list().find((each) => each.orderId === orderId)!.body);
		const other = await receiver();
		const answers = await Promise.all([post(other.url, body), post(other.url, body), post(other.url, body)]);
		expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
		expect(other.emissions.flat().map((item) => item.orderId)).toEqual([orderId]);
	});

	it('a copy arriving while another is confirmed gets that one\'s answer: 503 for both when the API cannot confirm, then one emission', async () => {
		const trigger = await receiver();
		const [orderId] = await createOrders(1, `${trigger.url}?copy=2`);
		await advance(11);
		const body = JSON.stringify(sandbox.callbacks.list().find((each) => each.orderId === orderId)!.body);
		const other = await receiver();
		// The confirming read fails (more often than the transport retries it), slowly enough for the copies to meet.
		sandbox.faults.add({ kind: 'status', status: 500, path: `/integration/orders/${orderId}`, times: 4, delayMs: 150 });
		// Reads of this order only (a read an earlier test delayed may still land in the log).
		const readsOfOrder = () => sandbox.requests.count({ method: 'GET', path: `/integration/orders/${orderId}` });
		const reads = readsOfOrder();
		// The second copy is sent once the first is being confirmed (its first read has reached the API).
		const first = post(other.url, body);
		while (readsOfOrder() === reads) await new Promise((resolve) => setTimeout(resolve, 5));
		const answers = await Promise.all([first, post(other.url, body)]);
		expect(answers.map((answer) => answer.status)).toEqual([503, 503]);
		expect(other.emissions).toEqual([]);
		// The copies shared one confirmation.
		expect(readsOfOrder() - reads).toBe(4);
		sandbox.faults.clear();
		const again = await Promise.all([post(other.url, body), post(other.url, body)]);
		expect(again.map((answer) => answer.status)).toEqual([200, 200]);
		expect(tally([orderId], other.emissions)).toEqual({ expected: 1, emitted: 1, missed: 0, duplicated: 0 });
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
		const asked: Array<[string, number, number]> = [];
		const send = async (what: string, body: string | Buffer, contentType?: string, method?: string) => {
			const reads = orderReads();
			const answer = await post(trigger.url, body, contentType, method);
			asked.push([what, answer.status, orderReads() - reads]);
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
		expect(asked).toEqual([
			['unknown order', 200, 1],
			['order not completed', 503, 1],
			['wrong evalId', 200, 1],
			['not JSON', 415, 0],
			['1 MB body', 413, 0],
			['GET', 404, 0],
			['no completedAt', 400, 0],
			['status not completed', 400, 0],
			['malformed JSON', 400, 0],
		]);
		expect(trigger.emissions).toEqual([]);
		// Each says why in n8n's log (GET and malformed JSON never reach the node: n8n answers them itself).
		expect(log).toEqual([
			expect.stringMatching(/^warn: .*not confirmed .*: the API answered 404 for order 0123456789abcdef01234567; nothing emitted$/),
			expect.stringMatching(new RegExp(`^warn: .*not confirmed .*: order ${pending.id} is \\w+, not completed; answered 503 so the API sends it again$`)),
			expect.stringMatching(new RegExp(`^warn: .*not confirmed .*: evaluation eval_forged is not the latest of order ${completed.id}; nothing emitted$`)),
			expect.stringMatching(/^warn: .*refused a request \(415\): content type "text\/plain"/),
			expect.stringMatching(/^warn: .*refused a request \(413\): a body of \d+ bytes/),
			expect.stringMatching(/^warn: .*refused a request \(400\): .*completedAt is missing or not a date$/),
			expect.stringMatching(/^warn: .*refused a request \(400\): .*status is not "completed"$/),
		]);

		// Still working: the real QC callback's body and a real completion are emitted.
		const evaluation = (await call(sandbox, 'GET', `/integration/orders/${completed.id}`)).body.latestEvaluation;
		expect((await post(trigger.url, JSON.stringify({ orderId: completed.id, evalId: qc.body.evalId, status: 'completed' }))).status).toBe(200);
		expect(trigger.emissions.flat()).toEqual([expect.objectContaining({ event: 'qcEvaluationCompleted', evalId: qc.body.evalId, evaluation })]);
	});

	it('checks the secret token first: without it nothing else is read; with it the callback goes through', async () => {
		const trigger = await receiver({ secretToken: 's3cret-token' });
		const [orderId] = await createOrders(1, `${trigger.url}?token=s3cret-token`);
		expect((await post(trigger.url, 'not json at all', 'text/plain')).status).toBe(401);
		expect((await post(`${trigger.url}?token=wrong`, JSON.stringify({ orderId, status: 'completed', completedAt: new Date().toISOString() }))).status).toBe(401);
		expect((await post(`${trigger.url}?token=s3cret-token-and-more`, '{}')).status).toBe(401);
		await advance(11);
		expect(trigger.emissions.flat().map((item) => item.orderId)).toEqual([orderId]);
		const refused = await post(trigger.url, 'x');
		expect(refused.body).not.toContain('s3cret');
	});

	it('answers and ignores the events it does not watch, without asking the API', async () => {
		const trigger = await receiver({ events: ['qcEvaluationCompleted'] });
		const [orderId] = await createOrders(1, trigger.url);
		const reads = orderReads();
		await advance(11);
		expect(sandbox.callbacks.list().find((each) => each.orderId === orderId)!.attempts.map((attempt) => attempt.statusCode)).toEqual([200]);
		expect(orderReads()).toBe(reads);
		expect(trigger.emissions).toEqual([]);
	});
});

describe('Ollang Callback Trigger: forged traffic (a completion is the API\'s; reads bounded)', () => {
	/** The next completions' callbacks are recorded by the sandbox (real bodies) and not sent: the test sends them. */
	async function completeQuietly(count: number, action: () => Promise<string[]>): Promise<string[]> {
		sandbox.callbacks.settings.dropNext = count;
		const orderIds = await action();
		const before = sandbox.callbacks.list().length;
		for (let minute = 0; minute < 60 && sandbox.callbacks.list().length < before + count; minute++) await advance(1);
		sandbox.callbacks.settings.dropNext = 0;
		return orderIds;
	}
	const bodyOf = (orderId: string, nth: number): IDataObject => sandbox.callbacks.list().filter((each) => each.orderId === orderId)[nth].body as IDataObject;

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
		const firstReads = orderReads() - reads;
		expect(answers).toEqual(Array.from({ length: 21 }, () => ({ status: 200, body: '{"received":true}' })));
		expect(trigger.emissions.flat().map((item) => item.completionKey)).toEqual([`order:${orderId}:${String(real.completedAt)}`]);
		expect(trigger.executionsStarted).toBe(1);
		// Sent again one after the other: each claim was answered from memory, no read.
		for (const body of [real, ...variants]) expect(await post(trigger.url, JSON.stringify(body))).toEqual({ status: 200, body: '{"received":true}' });
		expect(orderReads() - reads).toBe(firstReads);

		// The order's rerun completes: a new completion (a new ai_delivered event), emitted once whatever is sent.
		expect((await call(sandbox, 'POST', `/integration/orders/${orderId}/rerun`, { body: {} })).status).toBe(200);
		await completeQuietly(1, async () => [orderId]);
		const rerun = bodyOf(orderId, 1);
		expect(rerun.completedAt).not.toBe(real.completedAt);
		const again = await Promise.all([rerun, real, ...forgedVariants(rerun), rerun].map(async (body) => await post(trigger.url, JSON.stringify(body))));
		expect(again.every((each) => each.status === 200 && each.body === '{"received":true}')).toBe(true);
		expect(trigger.emissions.flat().map((item) => item.completionKey)).toEqual([`order:${orderId}:${String(real.completedAt)}`, `order:${orderId}:${String(rerun.completedAt)}`]);
		expect(trigger.executionsStarted).toBe(2);
		console.log(`callback trigger: 1 completion + 20 forged variants at once: 1 emitted, ${firstReads} reads; its rerun + 22 callbacks: 1 emitted`);
	});

	it('a completion the previous version recorded in n8n\'s store (keyed on the callback\'s completedAt) is still dropped after the upgrade', async () => {
		const trigger = await receiver();
		const [orderId] = await completeQuietly(1, async () => await createOrders(1, trigger.url));
		const real = bodyOf(orderId, 0);
		// What the version before this one recorded for it: `order:<orderId>:<the body's completedAt>`.
		const node = { id: 'callback-trigger-under-test', name: 'Ollang Callback Trigger', type: OLLANG_CALLBACK_TRIGGER_NODE_TYPE, typeVersion: 1, position: [0, 0] as [number, number], parameters: {} };
		await deduplicationStore.checkProcessedAndRecord([`order:${orderId}:${String(real.completedAt)}`], 'node', { node, workflow: { id: trigger.workflowId, active: true } }, { mode: 'entries', maxEntries: 10_000 });
		const upgraded = await receiver({}, { restartOf: trigger });
		expect(await post(upgraded.url, JSON.stringify(real))).toEqual({ status: 200, body: '{"received":true}' });
		expect(upgraded.executionsStarted).toBe(1);
		expect(upgraded.emissions).toEqual([]);
	});

	it(`1,000 callbacks naming unknown orders: nothing emitted, at most ${READS_PER_MINUTE} reads (then 503 at once, with Retry-After); an unknown order named again costs no read`, async () => {
		const trigger = await receiver();
		const reads = orderReads();
		const ids = Array.from({ length: 1000 }, (_, index) => `fe${index.toString(16).padStart(22, '0')}`);
		const answers: Array<{ status: number; retryAfter: string | null }> = [];
		for (let index = 0; index < ids.length; index += 25) {
			answers.push(
				...(await Promise.all(
					ids.slice(index, index + 25).map(async (orderId) => {
						const response = await fetch(trigger.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orderId, status: 'completed', completedAt: new Date().toISOString() }) });
						await response.text();
						return { status: response.status, retryAfter: response.headers.get('retry-after') };
					}),
				)),
			);
		}
		const spent = orderReads() - reads;
		const refused = answers.filter((each) => each.status === 503);
		console.log(`callback trigger: 1,000 callbacks naming unknown orders: ${spent} reads, answered 200 ${answers.filter((each) => each.status === 200).length}, 503 ${refused.length}, executions ${trigger.executionsStarted}`);
		expect(spent).toBeLessThanOrEqual(READS_PER_MINUTE);
		expect(trigger.executionsStarted).toBe(0);
		expect(answers.filter((each) => each.status === 200)).toHaveLength(spent);
		expect(refused).toHaveLength(1000 - spent);
		expect(refused.every((each) => Number(each.retryAfter) >= 1 && Number(each.retryAfter) <= 60)).toBe(true);
		// An order a read found unknown is answered from memory.
		const known = orderReads();
		expect((await post(trigger.url, JSON.stringify({ orderId: ids[0], status: 'completed', completedAt: new Date().toISOString() }))).status).toBe(200);
		expect(orderReads()).toBe(known);
	});

	it('past what can be confirmed within the budget, 503 at once: 40 callbacks at once whose reads take 3 s', async () => {
		const trigger = await receiver();
		sandbox.faults.add({ kind: 'delay', delayMs: 3000, method: 'GET', path: '/integration/orders/:orderId' });
		const reads = orderReads();
		const started = performance.now();
		const answers = await Promise.all(
			Array.from({ length: 40 }, async (_, index) => {
				const answer = await post(trigger.url, JSON.stringify({ orderId: `fd${index.toString(16).padStart(22, '0')}`, status: 'completed', completedAt: new Date().toISOString() }));
				return { ...answer, ms: Math.round(performance.now() - started) };
			}),
		);
		const spent = orderReads() - reads;
		const refused = answers.filter((each) => each.status === 503);
		console.log(`callback trigger: 40 callbacks at once, reads of 3 s: ${spent} reads, 200 ${answers.length - refused.length}, 503 ${refused.length}; answered after (ms) ${answers.map((each) => each.ms).sort((a, b) => a - b).join(' ')}`);
		// Eight reads at a time, 3 s each, in a 7 s budget: two rounds at most; the rest answered 503 without a read.
		expect(spent).toBeLessThanOrEqual(2 * READS_IN_FLIGHT);
		expect(answers.every((each) => each.status === 200 || each.status === 503)).toBe(true);
		expect(refused.length).toBe(40 - spent);
		expect(trigger.executionsStarted).toBe(0);
	}, 30_000);
});
