// Failures after the first successful poll: transient ones keep the trigger's place, a bad key or a lost
// permission is a clear error, a poll cut short by its budget or repeated loses and duplicates nothing.
import type { IDataObject } from 'n8n-workflow';
import { deepCopy } from 'n8n-workflow';
import { commitState, loadState } from '../../nodes/OllangTrigger/state';
import {
	EventLedger,
	backgroundRounds,
	baselineOf,
	expectedEvents,
	itemsOf,
	orderEventParameters,
	triggerRunner,
	useSandbox,
} from './helpers.cts';

const sandbox = useSandbox({ seed: 11 });

afterEach(() => {
	sandbox().faults.clear();
	sandbox().setLatency(0);
});

/** The stored state without the bookkeeping a failed poll may change. */
function cursorsOf(staticData: IDataObject): string {
	const { failedPolls, commits, ...rest } = staticData;
	return JSON.stringify(rest);
}

describe('transient failures', () => {
	it('a failed listing keeps the state; the events come with the next good polls; only a persisting failure is an error', async () => {
		const perPoll = 40;
		const runner = triggerRunner(sandbox(), orderEventParameters({ options: { recheckPerPoll: perPoll } }));
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		sandbox().simulate.createOrders(3, { level: 0 });
		sandbox().clock.advance(60);
		const before = cursorsOf(runner.staticData);
		// 503 with Retry-After 0: the transport retries at once, three times, then gives up.
		sandbox().faults.add({ kind: 'status', status: 503, retryAfterSeconds: 0, path: '/integration/orders' });
		expect(await runner.poll()).toBeNull();
		expect(await runner.poll()).toBeNull();
		expect(cursorsOf(runner.staticData)).toBe(before);
		expect(runner.staticData.failedPolls).toBe(2);
		const error = await runner.poll().then(
			() => undefined,
			(thrown: Error & { description?: string }) => thrown,
		);
		expect(error?.message).toContain('503');
		expect(error?.description).toContain('keeps its place');
		expect(`${error?.message} ${error?.description}`).not.toContain(sandbox().keys.owner);
		expect(cursorsOf(runner.staticData)).toBe(before);

		sandbox().faults.clear();
		ledger.record(itemsOf(await runner.poll()));
		expect(runner.staticData.failedPolls).toBe(0);
		// Events that changed no listed status are found once the background checks have re-read every order.
		for (let poll = 0; poll < backgroundRounds(runner, perPoll); poll++) ledger.record(itemsOf(await runner.poll()));
		ledger.expectExactly(expectedEvents(sandbox(), baselineOf(runner)));
	});

	it('a detail read that fails part way emits what it can stand behind and keeps the rest for the next poll', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters());
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		const orders = sandbox().simulate.createOrders(4, { level: 0, type: 'document' });
		sandbox().clock.advance(60);
		// A lasting 500 outlasts the transport's retries, so that read fails; the dropped connections are retried first.
		sandbox().faults.add({ kind: 'status', status: 500, path: `/integration/orders/${orders[1].id}` });
		sandbox().faults.add({ kind: 'drop', path: `/integration/orders/${orders[2].id}`, times: 8 });
		const first = itemsOf(await runner.poll());
		ledger.record(first);
		const firstOrders = new Set(first.map((item) => item.orderId));
		expect(firstOrders.has(orders[1].id)).toBe(false);
		expect(firstOrders.has(orders[2].id)).toBe(false);
		sandbox().faults.clear();
		ledger.record(itemsOf(await runner.poll()));
		ledger.record(itemsOf(await runner.poll()));
		for (const order of orders) {
			expect([...ledger.emitted.values()].filter((item) => item.orderId === order.id)).toHaveLength(2);
		}
		ledger.expectExactly(expectedEvents(sandbox(), baselineOf(runner)));
	});

	it('an order whose reads keep failing does not hold up the others', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters({ options: { concurrency: 1 } }));
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		const [broken] = sandbox().simulate.createOrders(1, { level: 0, type: 'document' });
		sandbox().clock.advance(1);
		sandbox().faults.add({ kind: 'status', status: 500, path: `/integration/orders/${broken.id}` });
		expect(await runner.poll()).toBeNull();
		for (let round = 0; round < 3; round++) {
			const others = sandbox().simulate.createOrders(2, { level: 0, type: 'document' });
			sandbox().clock.advance(60);
			ledger.record(itemsOf(await runner.poll()));
			for (const order of others) expect(ledger.emitted.has(`${order.id}:1`)).toBe(true);
			expect(ledger.emitted.has(`${broken.id}:0`)).toBe(false);
		}
		sandbox().faults.clear();
		ledger.record(itemsOf(await runner.poll()));
		expect(ledger.emitted.has(`${broken.id}:1`)).toBe(true);
	});

	it('an answer lost after the service handled it (fault after the handler) loses nothing', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters());
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		sandbox().simulate.createOrders(3, { level: 1 });
		sandbox().clock.advance(240);
		sandbox().faults.add({ kind: 'drop', when: 'after', path: '/integration/orders/:orderId', probability: 0.5, times: 8 });
		for (let poll = 0; poll < 4; poll++) ledger.record(itemsOf(await runner.poll()));
		sandbox().faults.clear();
		ledger.record(itemsOf(await runner.poll()));
		ledger.expectExactly(expectedEvents(sandbox(), baselineOf(runner)));
	});
});

describe('lost access', () => {
	it('a bad key after the first poll is a clear error that names no key; the state stays as it was', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters());
		await runner.poll();
		sandbox().simulate.createOrders(2, { level: 0 });
		sandbox().clock.advance(60);
		await runner.poll();
		const saved = runner.savedStaticData;
		const stored = { savedStaticData: { 'node:Ollang Trigger': saved } };
		const badKey = 'revoked-key-0123456789abcdef';
		const badRunner = triggerRunner(sandbox(), orderEventParameters(), {
			...stored,
			credentials: { baseUrl: sandbox().baseUrl, apiKey: badKey },
		});
		const error = await badRunner.poll().then(
			() => undefined,
			(thrown: Error & { description?: string; httpCode?: string }) => thrown,
		);
		expect(error?.httpCode).toBe('401');
		expect(error?.message).toMatch(/401 UNAUTHORIZED/);
		expect(error?.description).toContain('API key');
		expect(JSON.stringify({ message: error?.message, description: error?.description })).not.toContain(badKey);
		expect(badRunner.staticData).toEqual(saved);
		// With the key fixed, the trigger goes on from where it was.
		const fixed = triggerRunner(sandbox(), orderEventParameters(), stored);
		expect(await fixed.poll()).toBeNull();
		expect(fixed.staticData.since).toBe(saved.since);
	});

	it('a lost permission on the listing (403) is a clear error; the state stays as it was', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters());
		await runner.poll();
		const before = JSON.stringify(runner.staticData);
		sandbox().faults.add({ kind: 'status', status: 403, path: '/integration/orders' });
		await expect(runner.poll()).rejects.toMatchObject({ httpCode: '403', message: expect.stringContaining('403') });
		expect(JSON.stringify(runner.staticData)).toBe(before);
	});
});

describe('poll budget and repeated polls', () => {
	it('stops reading details when the budget is nearly spent and finishes in later polls', async () => {
		const runner = triggerRunner(
			sandbox(),
			orderEventParameters({ options: { concurrency: 1 } }),
			// Reads start only in the first half of the budget: with 40 ms per request, about 12 per poll.
			{ pollBudgetMs: 1_000 },
		);
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		const orders = sandbox().simulate.createOrders(30, { level: 0, type: 'document' });
		sandbox().clock.advance(60);
		sandbox().setLatency(40);
		sandbox().requests.reset();
		ledger.record(itemsOf(await runner.poll()));
		// The budget, not the work, ended the first poll (how far it got depends on this machine's speed).
		expect(sandbox().requests.count({ path: '/integration/orders/:orderId' })).toBeLessThan(orders.length);
		let polls = 1;
		while (polls < 10 && orders.some((order) => !ledger.emitted.has(`${order.id}:1`))) {
			ledger.record(itemsOf(await runner.poll()));
			polls++;
		}
		expect(polls).toBeGreaterThan(1);
		ledger.expectExactly(expectedEvents(sandbox(), baselineOf(runner)));
	});

	it('a poll run again emits nothing twice; a poll repeated from the same saved state emits the same event ids', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters());
		await runner.poll();
		sandbox().simulate.createOrders(3, { level: 0 });
		sandbox().clock.advance(60);
		const stateBefore = deepCopy(runner.staticData);
		const first = itemsOf(await runner.poll()).map((item) => item.eventId);
		expect(first.length).toBeGreaterThanOrEqual(6);
		expect(await runner.poll()).toBeNull();
		// The same poll run again from the state it started with (n8n lost the state it committed, e.g. a crash
		// before saving): the same ids, so a downstream step can drop the repeats by eventId.
		const replay = triggerRunner(sandbox(), orderEventParameters(), {
			savedStaticData: { 'node:Ollang Trigger': stateBefore },
		});
		expect(itemsOf(await replay.poll()).map((item) => item.eventId)).toEqual(first);
	});

	it('of two overlapping polls on the same static data, only the first to finish commits', () => {
		const staticData: IDataObject = {};
		const blank = loadState(staticData);
		expect(blank.state).toBeUndefined();
		const state = {
			config: 'c',
			since: 1,
			serviceTime: 1,
			windowStart: 0,
			sweepAfter: '',
			orders: new Map([['a', { consumed: 2, fingerprint: 'delivered/0', createdAt: 1, needsDetail: false, rebase: false, watched: true, readFailed: false, evaluation: '', since: 1, horizons: {} }]]),
			finishedJobs: new Set<string>(),
			jobsSince: new Map<string, number>(),
			account: '',
			failedPolls: 0,
		};
		const pollA = loadState(staticData);
		const pollB = loadState(staticData);
		expect(commitState(staticData, state, pollA.commits)).toBe(true);
		const afterA = JSON.stringify(staticData);
		expect(commitState(staticData, { ...state, since: 99 }, pollB.commits)).toBe(false);
		expect(JSON.stringify(staticData)).toBe(afterA);
		expect(loadState(staticData).state?.orders.get('a')).toEqual(state.orders.get('a'));
	});
});
