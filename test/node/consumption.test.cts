import type { ConsumptionLine } from '../../sandbox/index.cts';
import { failure, pairedIndexes, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();

const getMany = (extra: Record<string, unknown>) => ({ resource: 'consumption', operation: 'getMany', ...extra });
const lines = () => sandbox().state.consumption;
const ids = (rows: Array<{ id?: unknown }>) => rows.map((row) => String(row.id)).sort();

describe('Consumption > Get Many', () => {
	it('Return All: every line, page 1 then the rest, all paired with the input item', async () => {
		const result = await run(sandbox(), getMany({ returnAll: true }));

		expect(result.json).toHaveLength(lines().length);
		expect(ids(result.json)).toEqual(ids(lines()));
		expect(sandbox().requests.count({ path: '/integration/consumption' })).toBe(Math.ceil(lines().length / 50));
		expect(new Set(pairedIndexes(result))).toEqual(new Set([0]));
	});

	it('Limit: only the rows and pages needed', async () => {
		const result = await run(sandbox(), getMany({ returnAll: false, limit: 7 }));

		expect(result.json).toHaveLength(7);
		expect(sandbox().requests.count()).toBe(1);
	});

	it('sorts by the chosen field and direction', async () => {
		const result = await run(sandbox(), getMany({ returnAll: true, options: { orderBy: 'creditsUsed', orderDirection: 'asc' } }));
		const credits = result.json.map((row) => Number(row.creditsUsed));

		expect(credits).toEqual([...credits].sort((a, b) => a - b));
		expect(credits[0]).toBeLessThan(credits[credits.length - 1]);
	});

	it('Simplify (on by default): the line, its order and service, credits, when, and the requestor\'s name only', async () => {
		const simplified = (await run(sandbox(), getMany({ returnAll: false, limit: 20 }))).json;
		const raw = (await run(sandbox(), getMany({ returnAll: false, limit: 20, simplify: false }))).json;
		const byId = new Map(lines().map((line) => [line.id, line]));

		expect(simplified).toHaveLength(20);
		for (const row of simplified) {
			const line = byId.get(String(row.id));
			expect(line).toBeDefined();
			expect(row).toEqual({
				id: line?.id,
				orderId: line?.orderId,
				orderName: line?.orderName,
				orderType: line?.orderType,
				service: line?.service,
				provider: line?.provider,
				creditsUsed: line?.creditsUsed,
				usdEquivalent: line?.usdEquivalent,
				occurredAt: line?.occurredAt,
				requestedBy: line?.createdBy.name,
			});
		}
		expect(raw[0].createdBy).toMatchObject({ email: expect.stringContaining('@') });
		expect(JSON.stringify(simplified)).not.toContain('@');
	});

	it('Simplify off keeps the raw lines', async () => {
		const result = await run(sandbox(), getMany({ returnAll: false, limit: 3, simplify: false }));

		expect(result.json[0]).toMatchObject({ createdBy: { email: expect.stringContaining('@') }, tags: expect.any(Array) });
	});

	it('the billing key may read it too', async () => {
		const result = await run(sandbox(), getMany({ returnAll: false, limit: 3 }), { key: 'billing' });

		expect(result.json).toHaveLength(3);
	});

	const sample = (): ConsumptionLine => lines()[17];
	const filterCases: Array<[string, () => Record<string, unknown>, (line: ConsumptionLine) => boolean]> = [
		['provider', () => ({ provider: sample().providerKey }), (line) => line.providerKey === sample().providerKey],
		['order type', () => ({ orderType: sample().orderType }), (line) => line.orderType === sample().orderType],
		['requestor email', () => ({ createdBy: sample().createdBy.email }), (line) => line.createdBy.email === sample().createdBy.email],
		['requestor id', () => ({ createdBy: sample().createdBy.id }), (line) => line.createdBy.id === sample().createdBy.id],
		['tag', () => ({ tag: sample().tags[0] }), (line) => line.tags.includes(sample().tags[0])],
		['order id', () => ({ orderId: { __rl: true, mode: 'list', value: sample().orderId } }), (line) => line.orderId === sample().orderId],
		[
			'order name contains',
			() => ({ orderName: sample().orderName.slice(2, 9).toUpperCase() }),
			(line) => line.orderName.toLowerCase().includes(sample().orderName.slice(2, 9).toLowerCase()),
		],
		[
			'free search',
			() => ({ search: sample().service }),
			(line) =>
				[line.orderName, line.orderId, line.provider, line.providerKey, line.service, line.createdBy.name, line.createdBy.email, ...line.tags].some(
					(value) => value.toLowerCase().includes(sample().service.toLowerCase()),
				),
		],
		[
			'time range (inclusive)',
			() => ({ from: sample().occurredAt, to: lines()[3].occurredAt > sample().occurredAt ? lines()[3].occurredAt : sample().occurredAt }),
			(line) => line.occurredAt >= sample().occurredAt && line.occurredAt <= (lines()[3].occurredAt > sample().occurredAt ? lines()[3].occurredAt : sample().occurredAt),
		],
	];

	it.each(filterCases)('filters by %s', async (_name, filters, keep) => {
		const expected = lines().filter(keep);

		const result = await run(sandbox(), getMany({ returnAll: true, filters: filters() }));

		expect(expected.length).toBeGreaterThan(0);
		expect(expected.length).toBeLessThan(lines().length);
		expect(ids(result.json)).toEqual(ids(expected));
	});

	it('403 with the member key: ACCESS_DENIED and which roles the key needs', async () => {
		const error = failure(await run(sandbox(), getMany({ returnAll: true }), { key: 'member' }));

		expect(error.message).toMatch(/^The Ollang API answered 403 ACCESS_DENIED: /);
		expect(error.description).toContain('client_owner or client_accessBillings role');
	});

	it('401 with a wrong key', async () => {
		const error = failure(await run(sandbox(), getMany({ returnAll: true }), { key: 'wrong-key-1234567' }));

		expect(error.httpCode).toBe('401');
	});

	it.each([
		[{ filters: { from: '2026-03-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } }, 'Invalid From (item 0): must not be after To'],
		[{ filters: { to: '2026-13-45' } }, 'Invalid To (item 0): "2026-13-45" is not a valid ISO 8601 date'],
		[{ options: { pageSize: 0 } }, 'Invalid Page Size (item 0): must be a whole number from 1 to 50'],
		[{ filters: { orderId: 'a/b' } }, "Invalid Order (item 0): the ID must not contain '/'"],
	])('refuses bad input before any request: %j', async (extra, message) => {
		const error = failure(await run(sandbox(), getMany({ returnAll: true, ...extra })));

		expect(error.message).toContain(message);
		expect(sandbox().requests.count()).toBe(0);
	});
});
