import { call, expectShapeB, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const admin = (method: string, path: string, body?: unknown) => call(sandbox(), method, `/__sandbox/${path}`, { key: null, body });

afterEach(() => sandbox().faults.clear());

describe('admin routes (/__sandbox/, no API key)', () => {
	it('GET info: base URL, keys, fixtures and the clock', async () => {
		const response = await admin('GET', 'info');
		expect(response.status).toBe(200);
		expect(response.body).toEqual(
			expect.objectContaining({
				baseUrl: sandbox().baseUrl,
				keys: sandbox().keys,
				fixtures: sandbox().fixtures,
				clock: { now: sandbox().clock.now().toISOString(), realtimeSpeed: null },
				seed: 42,
				latencyMs: 0,
			}),
		);
	});

	it('POST clock/advance moves the simulated clock and the orders with it', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'cc' });
		const before = sandbox().clock.now().getTime();
		const response = await admin('POST', 'clock/advance', { minutes: 30 });
		expect(response.status).toBe(200);
		expect(response.body).toEqual({ now: new Date(before + 30 * 60_000).toISOString() });
		expect(order.status).toBe('delivered');
		const invalid = await admin('POST', 'clock/advance', { minutes: -1 });
		expect(invalid.status).toBe(400);
		expect(invalid.body.message).toEqual(['minutes must not be less than 0']);
	});

	it('POST/GET/DELETE faults, with a path pattern or a pathRegex', async () => {
		const added = await admin('POST', 'faults', { path: '/integration/credits', kind: 'status', status: 503, retryAfterSeconds: 2, times: 1 });
		expect(added.status).toBe(201);
		expect(added.body).toEqual({ id: expect.any(Number), rule: { path: '/integration/credits', kind: 'status', status: 503, retryAfterSeconds: 2, times: 1 } });
		const regex = await admin('POST', 'faults', { pathRegex: '^/integration/memories$', kind: 'drop' });
		expect(regex.status).toBe(201);
		const listed = await admin('GET', 'faults');
		expect(listed.body).toEqual([
			{ id: added.body.id, fired: 0, rule: expect.objectContaining({ path: '/integration/credits' }) },
			{ id: regex.body.id, fired: 0, rule: { pathRegex: new RegExp('^/integration/memories$').source, kind: 'drop' } },
		]);
		const limited = await call(sandbox(), 'GET', '/integration/credits');
		expect(limited.status).toBe(503);
		expect(limited.headers.get('retry-after')).toBe('2');
		await expect(call(sandbox(), 'GET', '/integration/memories')).rejects.toThrow(/fetch failed/);
		expect((await admin('DELETE', 'faults')).body).toEqual({ cleared: 1 });
		expect((await call(sandbox(), 'GET', '/integration/memories')).status).toBe(200);
	});

	it('refuses an invalid fault (400 shape B)', async () => {
		const response = await admin('POST', 'faults', { kind: 'explode', status: 200, pathRegex: '(' });
		expect(response.status).toBe(400);
		expectShapeB(response.body, 400, 'Bad Request');
		expect(response.body.message).toEqual(['kind must be one of the following values: status, drop, delay', 'status must not be less than 400']);
		const badRegex = await admin('POST', 'faults', { kind: 'drop', pathRegex: '(' });
		expect(badRegex.body.message).toEqual(['pathRegex must be a valid regular expression']);
		const noStatus = await admin('POST', 'faults', { kind: 'status' });
		expect(noStatus.status).toBe(400);
		expect(noStatus.body.message).toMatch(/status must be an HTTP error status/);
	});

	it('PUT latency sets the per-request latency', async () => {
		expect((await admin('PUT', 'latency', { ms: 25 })).body).toEqual({ latencyMs: 25 });
		expect((await admin('GET', 'info')).body.latencyMs).toBe(25);
		expect((await call(sandbox(), 'GET', '/integration/memories')).status).toBe(200);
		expect((await admin('PUT', 'latency', { ms: 0 })).body).toEqual({ latencyMs: 0 });
		expect((await admin('PUT', 'latency', { ms: 'fast' })).status).toBe(400);
	});

	it('GET/DELETE requests: the API request log, without admin requests', async () => {
		expect((await admin('DELETE', 'requests')).status).toBe(204);
		await call(sandbox(), 'GET', '/integration/memories');
		await call(sandbox(), 'GET', '/integration/credits', { key: null });
		const response = await admin('GET', 'requests');
		expect(response.body.count).toBe(2);
		expect(response.body.requests.map((record: any) => [record.method, record.path, record.status])).toEqual([
			['GET', '/integration/memories', 200],
			['GET', '/integration/credits', 401],
		]);
	});

	it('GET requests: how many API requests were open at once since the last DELETE (a client\'s concurrency)', async () => {
		expect((await admin('PUT', 'latency', { ms: 300 })).status).toBe(200);
		try {
			expect((await admin('DELETE', 'requests')).status).toBe(204);
			await Promise.all(Array.from({ length: 5 }, () => call(sandbox(), 'GET', '/integration/memories')));
			await call(sandbox(), 'GET', '/integration/memories');
			const afterFive = (await admin('GET', 'requests')).body;
			expect([afterFive.count, afterFive.inFlight, afterFive.maxInFlight]).toEqual([6, 0, 5]);
			expect(sandbox().requests.maxInFlight()).toBe(5);

			// A reset starts again from what is open now.
			expect((await admin('DELETE', 'requests')).status).toBe(204);
			await Promise.all([call(sandbox(), 'GET', '/integration/memories'), call(sandbox(), 'GET', '/integration/memories')]);
			expect((await admin('GET', 'requests')).body.maxInFlight).toBe(2);
		} finally {
			await admin('PUT', 'latency', { ms: 0 });
		}
	});

	it('POST orders/:orderId/events appends a delivery event (a re-delivery)', async () => {
		const orderId = sandbox().fixtures.orders.byType.document;
		const before = sandbox().state.orders.get(orderId)!.deliveryEvents.length;
		const response = await admin('POST', `orders/${orderId}/events`, { type: 'translator_delivered', actorType: 'translator', actorId: 'tr-1' });
		expect(response.status).toBe(201);
		expect(response.body).toEqual({ type: 'translator_delivered', occurredAt: sandbox().clock.now().toISOString(), actorType: 'translator', actorId: 'tr-1' });
		const order = (await call(sandbox(), 'GET', `/integration/orders/${orderId}`)).body;
		expect(order.deliveryEvents).toHaveLength(before + 1);
		expect(order.deliveryEvents.at(-1)).toEqual(response.body);
		expect(order.status).toBe('delivered');
		expect((await admin('POST', 'orders/ffffffffffffffffffffffff/events', { type: 'order_delivered' })).status).toBe(404);
		expect((await admin('POST', `orders/${orderId}/events`, { type: 'shipped' })).status).toBe(400);
	});

	it('POST orders/:orderId/delay moves an order\'s completion later: two orders created together finish apart', async () => {
		const [early, late] = sandbox().simulate.createOrders(2, { type: 'document', level: 0 });
		const response = await admin('POST', `orders/${late.id}/delay`, { minutes: 5 });
		expect(response.status).toBe(200);
		expect(response.body).toEqual({ step: 'aiDelivered', afterMinutes: expect.any(Number) });

		await admin('POST', 'clock/advance', { minutes: 11 });
		expect([early.status, late.status]).toEqual(['completed', 'ongoing']);
		await admin('POST', 'clock/advance', { minutes: 5 });
		expect(late.status).toBe('completed');
		expect((await admin('POST', `orders/${late.id}/delay`, { minutes: 0 })).status).toBe(400);
	});

	it('POST orders creates orders in a chosen state; PUT simulation tunes the simulation', async () => {
		const created = await admin('POST', 'orders', { count: 3, type: 'subtitle', status: 'completed' });
		expect(created.status).toBe(201);
		expect(created.body).toEqual(Array.from({ length: 3 }, () => ({ orderId: expect.any(String), orderType: 'subtitle', status: 'completed' })));
		const unreachable = await admin('POST', 'orders', { count: 1, type: 'cc', level: 0, status: 'qualityCheck' });
		expect(unreachable.status).toBe(400);

		const settings = await admin('PUT', 'simulation', { jobFailureRate: 1, progression: { mode: 'random' } });
		expect(settings.body).toEqual({ progression: { mode: 'random', redeliveryProbability: 0.2 }, jobFailureRate: 1, vectorizationFailureRate: 0 });
		const job = await call(sandbox(), 'POST', `/integration/memories/${sandbox().fixtures.memories[0]}/items/import`, {
			body: { items: [{ sourceLanguage: 'en', targetLanguage: 'fr', sourceText: 'a', targetText: 'b' }] },
		});
		sandbox().clock.advance(5);
		expect((await call(sandbox(), 'GET', `/integration/memories/import-jobs/${job.body.jobId}`)).body.status).toBe('failed');
		await admin('PUT', 'simulation', { jobFailureRate: 0, progression: { mode: 'fixed' } });
	});

	it('answers 404 shape B for an unknown admin route', async () => {
		const response = await admin('GET', 'nothing');
		expect(response.status).toBe(404);
		expect(response.body).toEqual({ statusCode: 404, message: 'Cannot GET /__sandbox/nothing', error: 'Not Found' });
	});
});

