import { startSandbox, SYSTEM_ACTOR_ID, type OrderRecord, type Sandbox } from '../../sandbox/index.cts';
import { call, useSandbox } from './helpers.cts';

const fetchOrder = async (sandbox: Sandbox, orderId: string) => (await call(sandbox, 'GET', `/integration/orders/${orderId}`)).body;
const eventTypes = (order: any) => order.deliveryEvents.map((event: any) => event.type);

/** Advances minute by minute and records each status change: [minute, status]. */
async function statusTimeline(sandbox: Sandbox, orderId: string, minutes: number): Promise<Array<[number, string]>> {
	const timeline: Array<[number, string]> = [[0, (await fetchOrder(sandbox, orderId)).status]];
	for (let minute = 1; minute <= minutes; minute++) {
		sandbox.clock.advance(1);
		const { status } = await fetchOrder(sandbox, orderId);
		if (status !== timeline[timeline.length - 1][1]) timeline.push([minute, status]);
	}
	return timeline;
}

describe('order life on the simulated clock', () => {
	const sandbox = useSandbox({ progression: { redeliveryProbability: 0 } });

	it('starts at the configured simulated time', () => {
		expect(sandbox().clock.now().toISOString()).toBe('2026-11-01T12:00:00.000Z');
	});

	it('level 0 cc: pending -> ongoing -> completed (ai_delivered) -> delivered (order_delivered)', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'cc' });
		expect(await statusTimeline(sandbox(), order.id, 30)).toEqual([
			[0, 'pending'],
			[1, 'ongoing'],
			[11, 'completed'],
			[26, 'delivered'],
		]);
		const body = await fetchOrder(sandbox(), order.id);
		expect(eventTypes(body)).toEqual(['ai_delivered', 'order_delivered']);
		expect(body.deliveryEvents[0].occurredAt).toBe(new Date(Date.parse(order.createdAt) + 11 * 60_000).toISOString());
	});

	it('a subtitle order waits for closed captions; dubbing waits for subtitles', async () => {
		const [subtitle] = sandbox().simulate.createOrders(1, { type: 'subtitle' });
		const [dubbing] = sandbox().simulate.createOrders(1, { type: 'studioDubbing' });
		expect((await fetchOrder(sandbox(), subtitle.id)).status).toBe('pending');
		sandbox().clock.advance(1);
		expect((await fetchOrder(sandbox(), subtitle.id)).status).toBe('ongoing');
		sandbox().clock.advance(3);
		expect((await fetchOrder(sandbox(), subtitle.id)).status).toBe('waitingForCC');
		expect((await fetchOrder(sandbox(), dubbing.id)).status).toBe('waitingForSubtitle');
		sandbox().clock.advance(5);
		expect((await fetchOrder(sandbox(), subtitle.id)).status).toBe('ongoing');
		sandbox().clock.advance(10);
		const done = await fetchOrder(sandbox(), dubbing.id);
		expect(done.status).toBe('completed');
		expect(done.orderDocs.map((doc: any) => doc.type)).toEqual(expect.arrayContaining(['dubbedVideo', 'subtitle']));
		expect(done.vttUrl).toMatch(/\.vtt\?expires=\d+&signature=[0-9a-f]+$/);
	});

	it('level 1: translator assigned, qualityCheck (translator_delivered), completed (lsp_approved), delivered', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 1 });
		const record = sandbox().state.orders.get(order.id)!;
		expect(await statusTimeline(sandbox(), order.id, 11)).toEqual([
			[0, 'pending'],
			[1, 'ongoing'],
		]);
		expect(eventTypes(await fetchOrder(sandbox(), order.id))).toEqual(['ai_delivered']);
		expect(record.translatorId).toBeNull();
		sandbox().clock.advance(5);
		expect(record.translatorId).toMatch(/^[0-9a-f]{24}$/);
		sandbox().clock.advance(120);
		expect((await fetchOrder(sandbox(), order.id)).status).toBe('qualityCheck');
		sandbox().clock.advance(30);
		expect((await fetchOrder(sandbox(), order.id)).status).toBe('completed');
		sandbox().clock.advance(15);
		const delivered = await fetchOrder(sandbox(), order.id);
		expect(delivered.status).toBe('delivered');
		expect(eventTypes(delivered)).toEqual(['ai_delivered', 'translator_delivered', 'lsp_approved', 'order_delivered']);
		expect(delivered.deliveryEvents.map((event: any) => event.actorType)).toEqual(['ai', 'translator', 'lsp', 'system']);
	});

	it('bills consumption lines as the AI stages run', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle' });
		const lines = () => sandbox().state.consumption.filter((line) => line.orderId === order.id);
		expect(lines()).toHaveLength(0);
		sandbox().clock.advance(1);
		expect(lines().map((line) => line.service)).toHaveLength(1);
		sandbox().clock.advance(8);
		expect(lines()).toHaveLength(2);
		sandbox().clock.advance(10);
		expect(lines()).toHaveLength(3);
		expect(lines().every((line) => line.orderName === order.name && line.orderType === 'subtitle')).toBe(true);
	});

	it('appends a re-delivery event without changing the order', async () => {
		const orderId = sandbox().fixtures.orders.byType.cc;
		const before = await fetchOrder(sandbox(), orderId);
		const event = sandbox().simulate.appendDeliveryEvent(orderId, 'order_delivered');
		expect(event).toEqual({ type: 'order_delivered', occurredAt: sandbox().clock.now().toISOString(), actorType: 'system', actorId: SYSTEM_ACTOR_ID });
		const after = await fetchOrder(sandbox(), orderId);
		expect(eventTypes(after)).toEqual([...eventTypes(before), 'order_delivered']);
		const { deliveryEvents: _before, ...restBefore } = before;
		const { deliveryEvents: _after, ...restAfter } = after;
		expect(restAfter).toEqual(restBefore);
	});
});

describe('re-deliveries from the clock', () => {
	const sandbox = useSandbox({ progression: { redeliveryProbability: 1 } });

	it('re-delivers a finished order a day later: repeated events, status unchanged', async () => {
		const [level0] = sandbox().simulate.createOrders(1, { type: 'cc' });
		const [level1] = sandbox().simulate.createOrders(1, { type: 'cc', level: 1 });
		sandbox().clock.advance(200);
		const first0 = await fetchOrder(sandbox(), level0.id);
		const first1 = await fetchOrder(sandbox(), level1.id);
		sandbox().clock.advance(24 * 60);
		const again0 = await fetchOrder(sandbox(), level0.id);
		const again1 = await fetchOrder(sandbox(), level1.id);
		expect(again0.status).toBe('delivered');
		expect(eventTypes(again0)).toEqual([...eventTypes(first0), 'order_delivered']);
		expect(eventTypes(again1)).toEqual([...eventTypes(first1), 'translator_delivered', 'order_delivered']);
		expect(again1.status).toBe(first1.status);
	});
});

describe('determinism and scale', () => {
	it('seeds the same data from the same seed, and different data from another seed', async () => {
		const [a, b, c] = await Promise.all([startSandbox({ seed: 7, quiet: true }), startSandbox({ seed: 7, quiet: true }), startSandbox({ seed: 8, quiet: true })]);
		try {
			expect(b.keys).toEqual(a.keys);
			expect([...b.state.orders.keys()]).toEqual([...a.state.orders.keys()]);
			expect(b.state.consumption).toEqual(a.state.consumption);
			expect(c.keys.owner).not.toBe(a.keys.owner);
			expect(c.state.consumption.map((line) => line.creditsUsed)).not.toEqual(a.state.consumption.map((line) => line.creditsUsed));
		} finally {
			await Promise.all([a.close(), b.close(), c.close()]);
		}
	});

	it('random progression is seeded: same seed, same timeline; other seed, another', async () => {
		const timeline = async (seed: number) => {
			const sandbox = await startSandbox({ seed, quiet: true, progression: { mode: 'random', redeliveryProbability: 0.5 } });
			try {
				const orders = sandbox.simulate.createOrders(20, { level: 1 });
				sandbox.clock.advance(3 * 24 * 60);
				return orders.map((order) => order.deliveryEvents.map((event) => `${event.type}@${event.occurredAt}`));
			} finally {
				await sandbox.close();
			}
		};
		const [first, again, other] = [await timeline(11), await timeline(11), await timeline(12)];
		expect(again).toEqual(first);
		expect(other).not.toEqual(first);
		// Random durations: not every order finishes at the same offset.
		expect(new Set(first.map((events) => events.find((event) => event.startsWith('order_delivered'))?.split('@')[1])).size).toBeGreaterThan(1);
	});

	it("'large' volume: 1,000 orders of every type and status and 10,000 lines; a 100,000-minute advance runs every order to its end", async () => {
		const sandbox = await startSandbox({ volume: 'large', quiet: true });
		try {
			const orders = [...sandbox.state.orders.values()];
			expect(orders).toHaveLength(1000);
			expect(sandbox.state.consumption).toHaveLength(10_000);
			expect(new Set(orders.map((order) => order.type)).size).toBe(8);
			expect(new Set(orders.map((order) => order.status)).size).toBe(10);
			expect(new Set(sandbox.state.consumption.map((line) => line.providerKey)).size).toBeGreaterThanOrEqual(8);
			expect(new Set(sandbox.state.consumption.map((line) => line.createdBy.id)).size).toBeGreaterThanOrEqual(20);

			const created: OrderRecord[] = sandbox.simulate.createOrders(1000);
			sandbox.clock.advance(100_000);
			expect(created.every((order) => order.status === 'delivered')).toBe(true);
			// Seeded orders in statuses the simulated life never reaches stay there, as does the frozen no-segment fixture.
			const frozen = (order: OrderRecord) => ['revision', 'delayed', 'readyToSent'].includes(order.status) || order.id === sandbox.fixtures.orders.noSegmentData;
			const liveStatuses = orders.filter((order) => !frozen(order)).map((order) => order.status);
			expect(new Set(liveStatuses)).toEqual(new Set(['delivered']));
			const lines = sandbox.state.consumption.length;
			expect(lines).toBeGreaterThan(10_000 + 2000);
		} finally {
			await sandbox.close();
		}
	});

	it('realtime mode moves the clock by itself', async () => {
		const sandbox = await startSandbox({ quiet: true, realtime: { speed: 600 } });
		try {
			const start = sandbox.clock.now().getTime();
			for (let i = 0; i < 50 && sandbox.clock.now().getTime() === start; i++) await new Promise((resolve) => setTimeout(resolve, 50));
			expect(sandbox.clock.now().getTime()).toBeGreaterThan(start);
		} finally {
			await sandbox.close();
		}
	});
});
