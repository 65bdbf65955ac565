import { startSandbox, type Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeA, expectShapeB, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const CREDITS = '/integration/credits';

afterEach(() => {
	sandbox().faults.clear();
	sandbox().setLatency(0);
});

/** fetch's error for a dropped connection (no response at all). */
async function expectDropped(request: Promise<unknown>): Promise<void> {
	await expect(request).rejects.toThrow(/fetch failed/);
}

describe('status faults', () => {
	it('answers 429 with Retry-After, before authentication, then retires after `times`', async () => {
		sandbox().faults.add({ path: CREDITS, kind: 'status', status: 429, retryAfterSeconds: 3, times: 1 });
		const limited = await call(sandbox(), 'GET', CREDITS, { key: null });
		expect(limited.status).toBe(429);
		expect(limited.headers.get('retry-after')).toBe('3');
		expectShapeB(limited.body, 429, 'Too Many Requests');
		expect(sandbox().faults.list()).toHaveLength(0);
		expect((await call(sandbox(), 'GET', CREDITS)).status).toBe(200);
	});

	it.each([500, 502, 503, 504])('answers %i in shape B, without Retry-After unless asked', async (status) => {
		sandbox().faults.add({ path: CREDITS, kind: 'status', status, times: 1 });
		const response = await call(sandbox(), 'GET', CREDITS);
		expect(response.status).toBe(status);
		expect(response.headers.get('retry-after')).toBeNull();
		expect(response.body.statusCode).toBe(status);
	});

	it('fires exactly `times` times', async () => {
		sandbox().faults.add({ path: CREDITS, kind: 'status', status: 503, times: 3 });
		const statuses: number[] = [];
		for (let i = 0; i < 5; i++) statuses.push((await call(sandbox(), 'GET', CREDITS)).status);
		expect(statuses).toEqual([503, 503, 503, 200, 200]);
	});

	it('matches by method, by :param pattern and by RegExp', async () => {
		const orderId = sandbox().fixtures.orders.byType.cc;
		sandbox().faults.add({ method: 'POST', path: '/integration/orders/:orderId/human-review', kind: 'status', status: 502 });
		expect((await call(sandbox(), 'GET', `/integration/orders/${orderId}`)).status).toBe(200);
		expect((await call(sandbox(), 'POST', `/integration/orders/${sandbox().fixtures.orders.byStatus.pending}/human-review`)).status).toBe(502);
		sandbox().faults.clear();
		sandbox().faults.add({ path: /^\/integration\/memories/, kind: 'status', status: 500 });
		expect((await call(sandbox(), 'GET', '/integration/memories')).status).toBe(500);
		expect((await call(sandbox(), 'GET', `/integration/memories/import-jobs/${orderId}`)).status).toBe(500);
		expect((await call(sandbox(), 'GET', '/integration/custom-instructions/suggestions')).status).toBe(200);
	});

	it('fires with a probability drawn from the seeded RNG (same seed, same sequence)', async () => {
		const sequence = async (target: Sandbox) => {
			target.faults.add({ path: CREDITS, kind: 'status', status: 503, probability: 0.5 });
			const statuses: number[] = [];
			for (let i = 0; i < 40; i++) statuses.push((await call(target, 'GET', CREDITS)).status);
			return statuses;
		};
		const [a, b] = await Promise.all([startSandbox({ seed: 99, quiet: true }), startSandbox({ seed: 99, quiet: true })]);
		try {
			const first = await sequence(a);
			expect(await sequence(b)).toEqual(first);
			const failures = first.filter((status) => status === 503).length;
			expect(failures).toBeGreaterThan(5);
			expect(failures).toBeLessThan(35);
		} finally {
			await Promise.all([a.close(), b.close()]);
		}
	});

	it('lets `skip` matching requests through first (the sixth of a run meets the fault), also when added over HTTP', async () => {
		const added = await call(sandbox(), 'POST', '/__sandbox/faults', { key: null, body: { path: CREDITS, kind: 'status', status: 500, skip: 5, times: 1 } });
		expect(added.status).toBe(201);
		const statuses: number[] = [];
		for (let i = 0; i < 8; i++) statuses.push((await call(sandbox(), 'GET', CREDITS)).status);
		expect(statuses).toEqual([200, 200, 200, 200, 200, 500, 200, 200]);
		expect(() => sandbox().faults.add({ kind: 'status', status: 500, skip: -1 })).toThrow(/skip must be an integer >= 0/);
	});

	it('rejects an invalid rule', () => {
		expect(() => sandbox().faults.add({ kind: 'status' })).toThrow(/status must be an HTTP error status/);
		expect(() => sandbox().faults.add({ kind: 'delay', probability: 2 })).toThrow(/delayMs.*probability must be between 0 and 1/);
	});
});

describe('drop and delay faults', () => {
	it('drops the connection without a response, `times` times', async () => {
		sandbox().faults.add({ path: CREDITS, kind: 'drop', times: 2 });
		await expectDropped(call(sandbox(), 'GET', CREDITS));
		await expectDropped(call(sandbox(), 'GET', CREDITS));
		expect((await call(sandbox(), 'GET', CREDITS)).status).toBe(200);
		const records = sandbox().requests.log.filter((record) => record.path === CREDITS).slice(-3);
		expect(records.map((record) => [record.status, record.fault])).toEqual([
			[null, 'drop'],
			[null, 'drop'],
			[200, undefined],
		]);
	});

	it('delays a response without holding up other requests', async () => {
		sandbox().faults.add({ path: CREDITS, kind: 'delay', delayMs: 1500 });
		const finished: string[] = [];
		const slow = call(sandbox(), 'GET', CREDITS).then((response) => finished.push(`slow ${response.status}`));
		// Sent after the slow one has arrived and is waiting.
		while (sandbox().requests.count({ path: CREDITS }) === 0 || sandbox().requests.log.at(-1)!.path !== CREDITS) await new Promise((resolve) => setImmediate(resolve));
		const quick = call(sandbox(), 'GET', '/integration/memories').then((response) => finished.push(`quick ${response.status}`));
		await Promise.all([slow, quick]);
		expect(finished).toEqual(['quick 200', 'slow 200']);
	});

	it('per-request latency applies to every API request and does not serialize them', async () => {
		sandbox().setLatency(300);
		let arrivedWhenFirstAnswered = -1;
		sandbox().requests.reset();
		const requests = Array.from({ length: 5 }, () =>
			call(sandbox(), 'GET', '/integration/memories').then((response) => {
				if (arrivedWhenFirstAnswered < 0) arrivedWhenFirstAnswered = sandbox().requests.count();
				return response.status;
			}),
		);
		expect(await Promise.all(requests)).toEqual([200, 200, 200, 200, 200]);
		// All five were in the sandbox, waiting together, before the first answer left.
		expect(arrivedWhenFirstAnswered).toBe(5);
		expect(() => sandbox().setLatency(-1)).toThrow(/latency/);
	});
});

describe("'after' faults: the handler acts, then the fault replaces the response", () => {
	const review = (orderId: string) => call(sandbox(), 'POST', `/integration/orders/${orderId}/human-review`);

	it("a 'before' fault leaves the state alone", async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'cc', status: 'completed' });
		const used = sandbox().state.wallet.usedCredits;
		sandbox().faults.add({ path: '/integration/orders/:orderId/human-review', kind: 'status', status: 503, times: 1 });
		expect((await review(order.id)).status).toBe(503);
		expect(order.level).toBe(0);
		expect(sandbox().state.wallet.usedCredits).toBe(used);
		expect((await review(order.id)).status).toBe(204);
	});

	it("a 503 'after' fault: the review is charged once, and a retry is refused as not eligible", async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'cc', status: 'delivered' });
		const used = sandbox().state.wallet.usedCredits;
		sandbox().faults.add({ path: '/integration/orders/:orderId/human-review', kind: 'status', status: 503, when: 'after', times: 1 });
		expect((await review(order.id)).status).toBe(503);
		expect(order.level).toBe(1);
		const charged = sandbox().state.wallet.usedCredits - used;
		expect(charged).toBe(Math.round(order.pricing.level1Usd * 1000) - Math.round(order.pricing.level0Usd * 1000));
		const retry = await review(order.id);
		expect(retry.status).toBe(400);
		expectShapeA(retry.body, 'ORDER_NOT_ELIGIBLE');
		expect(sandbox().state.wallet.usedCredits - used).toBe(charged);
	});

	it("the ledger admin route shows what an 'after' fault hid: the review charged once", async () => {
		const orderId = sandbox().simulate.createOrders(1, { status: 'completed', level: 0, progress: false })[0].id;
		sandbox().faults.add({ path: '/integration/orders/:orderId/human-review', kind: 'status', status: 500, when: 'after', times: 1 });
		expect((await call(sandbox(), 'POST', `/integration/orders/${orderId}/human-review`)).status).toBe(500);

		const ledger = await call(sandbox(), 'GET', '/__sandbox/ledger', { key: null });

		expect(ledger.status).toBe(200);
		expect((ledger.body as Array<{ orderId: string; kind: string; credits: number }>).filter((entry) => entry.orderId === orderId)).toEqual([
			{ at: expect.any(String), kind: 'humanReview', orderId, credits: expect.any(Number) },
		]);
	});

	it("a dropped 'after' connection still applied the change", async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle', status: 'completed' });
		sandbox().faults.add({ path: '/integration/orders/:orderId/human-review', kind: 'drop', when: 'after', times: 1 });
		await expectDropped(review(order.id));
		expect(order).toEqual(expect.objectContaining({ level: 1, status: 'ongoing' }));
	});

	it("an 'after' delay answers with the real response, late", async () => {
		sandbox().faults.add({ path: '/integration/memories', method: 'POST', kind: 'delay', delayMs: 50, when: 'after', times: 1 });
		const response = await call(sandbox(), 'POST', '/integration/memories', { body: { title: 'Late' } });
		expect(response.status).toBe(201);
		expect(sandbox().requests.log.at(-1)).toEqual(expect.objectContaining({ method: 'POST', status: 201, fault: 'delay' }));
	});
});

describe('request log', () => {
	it('records method, route pattern, path, status, simulated and wall-clock arrival time, and the key\'s user of each API request', async () => {
		sandbox().requests.reset();
		const orderId = sandbox().fixtures.orders.byType.cc;
		const before = Date.now();
		await call(sandbox(), 'GET', `/integration/orders/${orderId}`);
		const after = Date.now();
		await call(sandbox(), 'GET', '/integration/orders', { query: { 'pageOptions[take]': 5 } });
		await call(sandbox(), 'GET', '/integration/orders', { key: null });
		await call(sandbox(), 'GET', '/integration/unknown');
		await call(sandbox(), 'GET', '/__sandbox/info', { key: null });
		expect(sandbox().requests.log).toEqual([
			{
				method: 'GET',
				path: `/integration/orders/${orderId}`,
				route: '/integration/orders/:orderId',
				status: 200,
				at: sandbox().clock.now().toISOString(),
				receivedAtMs: expect.any(Number),
				durationMs: expect.any(Number),
				userId: sandbox().fixtures.users.owner.id,
			},
			expect.objectContaining({ path: '/integration/orders', route: '/integration/orders', status: 200 }),
			expect.objectContaining({ path: '/integration/orders', status: 401 }),
			expect.objectContaining({ path: '/integration/unknown', route: null, status: 404 }),
		]);
		expect(sandbox().requests.log[0].receivedAtMs).toBeGreaterThanOrEqual(before);
		expect(sandbox().requests.log[0].receivedAtMs).toBeLessThanOrEqual(after);
		expect(sandbox().requests.count({ path: '/integration/orders' })).toBe(2);
		expect(sandbox().requests.count({ path: '/integration/orders/:orderId' })).toBe(1);
		expect(sandbox().requests.count({ method: 'get', path: /^\/integration\/orders/ })).toBe(3);
		expect(sandbox().requests.count({ method: 'POST' })).toBe(0);
		sandbox().requests.reset();
		expect(sandbox().requests.count()).toBe(0);
	});
});
