// Listings that grow while they are read (sandbox/growth.cts), and the stable order of rows that share a time.
import { call, useSandbox } from './helpers.cts';

const sandbox = useSandbox();

const admin = async (body: unknown) =>
	await fetch(`${sandbox().baseUrl}/__sandbox/growth`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

afterEach(() => {
	sandbox().setListingGrowth({ consumption: 0, orders: 0, clockStepMs: 1000, batches: null });
});

describe('listing growth', () => {
	it('is off by default: reading pages adds nothing and the clock stands still', async () => {
		const lines = sandbox().state.consumption.length;
		const now = sandbox().clock.now().getTime();
		await call(sandbox(), 'GET', '/integration/consumption', { query: { 'pageOptions[take]': 5 } });
		await call(sandbox(), 'GET', '/integration/orders');

		expect(sandbox().state.consumption.length).toBe(lines);
		expect(sandbox().clock.now().getTime()).toBe(now);
	});

	it('PUT /__sandbox/growth: after each answered page, N new lines a clock step later, at the head of the listing', async () => {
		const answer = await admin({ consumption: 4, clockStepMs: 2000 });
		expect(await answer.json()).toEqual({ consumption: 4, orders: 0, clockStepMs: 2000, batches: null });
		const before = sandbox().state.consumption.length;
		const servedAt = sandbox().clock.now().getTime();

		const page = await call(sandbox(), 'GET', '/integration/consumption', { query: { 'pageOptions[take]': 10 } });

		expect(Date.parse(page.headers.get('date') as string)).toBe(Math.floor(servedAt / 1000) * 1000);
		expect(page.body.meta.itemCount).toBe(before);
		const added = sandbox().state.consumption.slice(before);
		expect(added).toHaveLength(4);
		expect(new Set(added.map((line) => line.occurredAt))).toEqual(new Set([new Date(servedAt + 2000).toISOString()]));
		const next = await call(sandbox(), 'GET', '/integration/consumption', { query: { 'pageOptions[take]': 4 } });
		expect(next.body.meta.itemCount).toBe(before + 4);
		expect(next.body.data.map((line: { id: string }) => line.id).sort()).toEqual(added.map((line) => line.id).sort());
	});

	it('new orders after each page of the orders listing; batches stops it', async () => {
		await admin({ orders: 2, batches: 2 });
		const before = sandbox().state.orders.size;

		for (let page = 1; page <= 3; page++) await call(sandbox(), 'GET', '/integration/orders', { query: { 'pageOptions[page]': page } });

		expect(sandbox().state.orders.size).toBe(before + 4);
		const created = [...sandbox().state.orders.values()].slice(before);
		const newest = await call(sandbox(), 'GET', '/integration/orders', { query: { 'pageOptions[take]': 4, 'pageOptions[orderBy]': 'createdAt' } });
		expect(newest.body.data.map((order: { id: string }) => order.id).sort()).toEqual(created.map((order) => order.id).sort());
		expect(created.every((order) => order.status === 'pending')).toBe(true);
	});

	it('refuses a count that is not a whole number >= 0 or an unknown field', async () => {
		expect((await admin({ consumption: -1 })).status).toBe(400);
		expect((await admin({ consumption: 1.5 })).status).toBe(400);
		expect((await admin({ rows: 3 })).status).toBe(400);
		expect(() => sandbox().setListingGrowth({ orders: -2 })).toThrow('orders must be a whole number >= 0');
	});
});

describe('rows that share one time', () => {
	it('page in a stable order (ties broken by id, in the sort direction): every line once across small pages', async () => {
		// 23 lines stamped with the same instant: the clock stands still while they are added.
		sandbox().setListingGrowth({ consumption: 23, clockStepMs: 0, batches: 1 });
		await call(sandbox(), 'GET', '/integration/consumption', { query: { 'pageOptions[take]': 1 } });
		const tied = sandbox().state.consumption.slice(-23);
		expect(new Set(tied.map((line) => line.occurredAt)).size).toBe(1);
		const at = tied[0].occurredAt;

		for (const direction of ['desc', 'asc'] as const) {
			const read: string[] = [];
			for (let page = 1; page <= 5; page++) {
				const answer = await call(sandbox(), 'GET', '/integration/consumption', {
					query: { 'pageOptions[page]': page, 'pageOptions[take]': 5, 'pageOptions[orderBy]': 'occurredAt', 'pageOptions[orderDirection]': direction, 'filter[from]': at, 'filter[to]': at },
				});
				read.push(...answer.body.data.map((line: { id: string }) => line.id));
			}
			const ids = tied.map((line) => line.id).sort();
			expect(read).toEqual(direction === 'asc' ? ids : [...ids].reverse());
		}
	});
});
