import type { Sandbox } from '../../sandbox/index.cts';
import { allPages, call, expectShapeA, expectShapeB, useSandbox } from './helpers.cts';

type Query = Record<string, string | number>;
const LINE_KEYS = ['createdBy', 'creditsUsed', 'id', 'occurredAt', 'orderId', 'orderName', 'orderType', 'projectId', 'provider', 'providerKey', 'service', 'tags', 'usdEquivalent'];

const consumption = (sandbox: Sandbox, query: Query = {}, key?: string) => call(sandbox, 'GET', '/integration/consumption', { query, key });

const allLines = (sandbox: Sandbox, query: Query = {}) => allPages(sandbox, '/integration/consumption', query);

describe('GET /integration/consumption', () => {
	const sandbox = useSandbox();

	it('pages with the defaults: page 1, take 10, sorted by id descending', async () => {
		const total = sandbox().state.consumption.length;
		expect(total).toBe(300);
		const response = await consumption(sandbox());
		expect(response.status).toBe(200);
		expect(response.body.meta).toEqual({ page: 1, take: 10, itemCount: total, pageCount: 30, hasPreviousPage: false, hasNextPage: true });
		const ids = response.body.data.map((line: any) => line.id);
		expect(ids).toEqual([...ids].sort().reverse());
		for (const line of response.body.data) {
			expect(Object.keys(line).sort()).toEqual(LINE_KEYS);
			expect(line.usdEquivalent).toBeCloseTo(line.creditsUsed / 1000, 9);
			expect(line.createdBy).toEqual({ id: expect.any(String), name: expect.any(String), email: expect.stringContaining('@') });
		}
	});

	it('enforces take 1-50 and page >= 1 (400 shape B), and accepts the bounds', async () => {
		for (const [query, message] of [
			[{ 'pageOptions[take]': 0 }, 'pageOptions.take must not be less than 1'],
			[{ 'pageOptions[take]': 51 }, 'pageOptions.take must not be greater than 50'],
			[{ 'pageOptions[page]': 0 }, 'pageOptions.page must not be less than 1'],
			[{ 'pageOptions[page]': 1.5 }, 'pageOptions.page must be an integer number'],
			[{ 'pageOptions[orderDirection]': 'up' }, "pageOptions.orderDirection must be one of the following values: asc, desc"],
			[{ 'filter[orderType]': 'poem' }, 'filter.orderType must be one of the following values: cc, subtitle, document, aiDubbing, studioDubbing, proofreading, other, revision'],
			[{ 'filter[from]': '31/12/2026' }, 'filter.from must be a valid ISO 8601 date string'],
		] as Array<[Query, string]>) {
			const response = await consumption(sandbox(), query);
			expect(response.status).toBe(400);
			expectShapeB(response.body, 400, 'Bad Request');
			expect(response.body.message).toEqual([message]);
		}
		expect((await consumption(sandbox(), { 'pageOptions[take]': 1 })).body.data).toHaveLength(1);
		expect((await consumption(sandbox(), { 'pageOptions[take]': 50 })).body.data).toHaveLength(50);
		const last = await consumption(sandbox(), { 'pageOptions[take]': 50, 'pageOptions[page]': 6 });
		expect(last.body.meta).toEqual({ page: 6, take: 50, itemCount: 300, pageCount: 6, hasPreviousPage: true, hasNextPage: false });
		const beyond = await consumption(sandbox(), { 'pageOptions[page]': 31 });
		expect(beyond.body.data).toEqual([]);
	});

	it.each([
		['occurredAt', (line: any) => line.occurredAt],
		['creditsUsed', (line: any) => line.creditsUsed],
		['provider', (line: any) => line.provider],
		['orderName', (line: any) => line.orderName],
		['service', (line: any) => line.service],
		['usdEquivalent', (line: any) => line.usdEquivalent],
		['createdBy', (line: any) => line.createdBy.name],
	])('sorts by %s in both directions, ties by id', async (field, key) => {
		for (const direction of ['asc', 'desc'] as const) {
			const rows = await allLines(sandbox(), { 'pageOptions[orderBy]': field, 'pageOptions[orderDirection]': direction });
			expect(rows).toHaveLength(300);
			const sign = direction === 'asc' ? 1 : -1;
			for (let i = 1; i < rows.length; i++) {
				const [a, b] = [key(rows[i - 1]), key(rows[i])];
				const step = a === b ? 0 : a < b ? 1 : -1;
				// Equal keys: the id decides, in the same direction.
				if (step === 0) expect(rows[i].id > rows[i - 1].id ? sign : -sign).toBe(1);
				else expect(step).toBe(sign);
			}
		}
	});

	it('filters by inclusive from/to on the consumption time', async () => {
		const lines = sandbox().state.consumption;
		const at = lines[100].occurredAt;
		const exact = await allLines(sandbox(), { 'filter[from]': at, 'filter[to]': at });
		expect(exact.length).toBe(lines.filter((line) => line.occurredAt === at).length);
		expect(exact.map((line) => line.id)).toContain(lines[100].id);
		const from = lines[50].occurredAt;
		const to = lines[250].occurredAt;
		const window = await allLines(sandbox(), { 'filter[from]': from, 'filter[to]': to });
		expect(window.length).toBe(lines.filter((line) => line.occurredAt >= from && line.occurredAt <= to).length);
		expect(window.every((line) => line.occurredAt >= from && line.occurredAt <= to)).toBe(true);
	});

	it('filters by provider key, order type, tag, order id and order name', async () => {
		const lines = sandbox().state.consumption;
		const sample = lines[42];
		const cases: Array<[Query, (line: any) => boolean]> = [
			[{ 'filter[provider]': sample.providerKey }, (line) => line.providerKey === sample.providerKey],
			[{ 'filter[orderType]': sample.orderType }, (line) => line.orderType === sample.orderType],
			[{ 'filter[tag]': sample.tags[0] }, (line) => line.tags.includes(sample.tags[0])],
			[{ 'filter[orderId]': sample.orderId }, (line) => line.orderId === sample.orderId],
			[{ 'filter[search]': sample.orderName.slice(2, 9).toUpperCase() }, (line) => line.orderName.toLowerCase().includes(sample.orderName.slice(2, 9).toLowerCase())],
		];
		for (const [query, matches] of cases) {
			const rows = await allLines(sandbox(), query);
			expect({ query, count: rows.length }).toEqual({ query, count: lines.filter(matches).length });
			expect(rows.every(matches)).toBe(true);
			expect(rows.length).toBeLessThan(lines.length);
		}
	});

	it('filters by requestor id or email', async () => {
		const lines = sandbox().state.consumption;
		const requestor = lines[7].createdBy;
		const expected = lines.filter((line) => line.createdBy.id === requestor.id).length;
		expect((await allLines(sandbox(), { 'filter[createdBy]': requestor.id })).length).toBe(expected);
		expect((await allLines(sandbox(), { 'filter[createdBy]': requestor.email.toUpperCase() })).length).toBe(expected);
		expect((await allLines(sandbox(), { 'filter[createdBy]': 'nobody@example.com' })).length).toBe(0);
	});

	it('searches freely across order name, provider, service and requestor (pageOptions[search])', async () => {
		const lines = sandbox().state.consumption;
		const rows = await allLines(sandbox(), { 'pageOptions[search]': 'text to speech' });
		expect(rows.length).toBe(lines.filter((line) => line.service === 'Text to Speech').length);
		expect(rows.length).toBeGreaterThan(0);
		const byRequestor = await allLines(sandbox(), { 'pageOptions[search]': lines[3].createdBy.name });
		expect(byRequestor.map((line) => line.id)).toContain(lines[3].id);
	});

	it('answers 403 ACCESS_DENIED (shape A) to a key without a billing role', async () => {
		const denied = await consumption(sandbox(), {}, sandbox().keys.member);
		expect(denied.status).toBe(403);
		expectShapeA(denied.body, 'ACCESS_DENIED');
		expect((await consumption(sandbox(), {}, sandbox().keys.billing)).status).toBe(200);
	});

	it('answers every page of a query from one view, and a line added since is in the next answer', async () => {
		const { state } = sandbox();
		const query = { 'pageOptions[orderBy]': 'occurredAt', 'pageOptions[orderDirection]': 'desc', 'pageOptions[take]': 50 };
		const expected = () =>
			[...state.consumption].sort((a, b) => (a.occurredAt === b.occurredAt ? (a.id < b.id ? 1 : -1) : a.occurredAt < b.occurredAt ? 1 : -1)).map((line) => line.id);

		const first = await allLines(sandbox(), query);
		const again = await allLines(sandbox(), query);
		expect(first.map((line: any) => line.id)).toEqual(expected());
		expect(again).toEqual(first);

		const [order] = sandbox().simulate.createOrders(1, { type: 'document' });
		sandbox().clock.advance(60);
		const added = state.consumption.filter((line) => line.orderId === order.id);
		expect(added.length).toBeGreaterThan(0);

		const after = await allLines(sandbox(), query);
		expect(after.map((line: any) => line.id)).toEqual(expected());
		const filtered = await consumption(sandbox(), { ...query, 'filter[orderId]': order.id });
		expect(filtered.body.meta.itemCount).toBe(added.length);
	});
});

describe('GET /integration/credits', () => {
	const sandbox = useSandbox();

	it('answers the wallet, consistent with consumption and the review ledger (1000 credits = 1 USD)', async () => {
		const response = await call(sandbox(), 'GET', '/integration/credits', { key: sandbox().keys.billing });
		expect(response.status).toBe(200);
		const body = response.body;
		const { consumption: lines, wallet } = sandbox().state;
		const spent = lines.reduce((sum, line) => sum + line.creditsUsed, 0) + wallet.ledger.reduce((sum, entry) => sum + entry.credits, 0);
		expect(body).toEqual({
			totalCredits: wallet.totalCredits,
			remainingCredits: wallet.totalCredits - spent,
			usedCredits: spent,
			currency: 'USD',
			creditsPerUsd: 1000,
			totalUsd: wallet.totalCredits / 1000,
			remainingUsd: (wallet.totalCredits - spent) / 1000,
			usedUsd: spent / 1000,
			lastSyncDate: expect.any(String),
		});
		expect(body.remainingCredits).toBeGreaterThan(0);
	});

	it('grows with the provider runs of an order as its AI stages run', async () => {
		const { state } = sandbox();
		const before = (await call(sandbox(), 'GET', '/integration/credits')).body.usedCredits;
		const [linesBefore, ledgerBefore] = [state.consumption.length, state.wallet.ledger.length];
		const [order] = sandbox().simulate.createOrders(1, { type: 'aiDubbing' });
		sandbox().clock.advance(60);
		// The order's AI stages bill its level-0 price, in several provider runs.
		const lines = state.consumption.filter((line) => line.orderId === order.id);
		expect(lines.length).toBeGreaterThanOrEqual(3);
		expect(lines.reduce((sum, line) => sum + line.creditsUsed, 0)).toBe(Math.round(order.pricing.level0Usd * 1000));
		// Seeded orders still in flight bill meanwhile too: the wallet moves by exactly what was added.
		const added =
			state.consumption.slice(linesBefore).reduce((sum, line) => sum + line.creditsUsed, 0) + state.wallet.ledger.slice(ledgerBefore).reduce((sum, entry) => sum + entry.credits, 0);
		const after = (await call(sandbox(), 'GET', '/integration/credits')).body;
		expect(after.usedCredits - before).toBe(added);
		expect(after.lastSyncDate).toBe(state.consumption.at(-1)!.occurredAt);
		const listed = await call(sandbox(), 'GET', '/integration/consumption', { query: { 'filter[orderId]': order.id } });
		expect(listed.body.meta.itemCount).toBe(lines.length);
	});

	it('answers 403 ACCESS_DENIED (shape A) to a key without a billing role', async () => {
		const response = await call(sandbox(), 'GET', '/integration/credits', { key: sandbox().keys.member });
		expect(response.status).toBe(403);
		expectShapeA(response.body, 'ACCESS_DENIED');
	});
});
