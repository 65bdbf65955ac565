import { z } from 'zod';
import { compareWithSchema } from '../../contract/compare.cts';
import { endpointFor, READ_ENDPOINTS } from '../../contract/endpoints.cts';
import { pageOf, timestamp } from '../../contract/schemas.cts';

const lines = (value: unknown, schema: z.ZodTypeAny) =>
	compareWithSchema(schema, value).differences.map(({ path, expected, received }) => `${path}: expected ${expected}, got ${received}`);

describe('compareWithSchema', () => {
	const row = z.object({ id: z.string(), finance: z.object({ totalPrice: z.number() }), status: z.enum(['pending', 'completed']), note: z.string().nullable(), at: timestamp, vttUrl: z.string().optional() });
	const page = pageOf(row);
	const good = { id: 'a', finance: { totalPrice: 1.5 }, status: 'pending', note: null, at: '2026-11-01T12:00:00.000Z' };
	const meta = { page: 1, take: 10, itemCount: 4, pageCount: 1, hasPreviousPage: false, hasNextPage: false };

	it('a matching answer has no differences and no additions', () => {
		expect(compareWithSchema(page, { data: [good, { ...good, vttUrl: 'https://x' }], meta })).toEqual({ differences: [], additions: [] });
	});

	it('names each difference by its path, with the expected and the received type or value', () => {
		const data = [good, good, good, { ...good, finance: { totalPrice: '1.50' } }];
		expect(lines({ data, meta }, page)).toEqual(['data[3].finance.totalPrice: expected number, got string "1.50"']);
		expect(lines({ data: [{ ...good, status: 'archived', note: 3, at: 1700000000000 }], meta: { ...meta, hasNextPage: 'no' } }, page)).toEqual([
			'data[0].status: expected one of pending, completed, got string "archived"',
			'data[0].note: expected string or null, got number 3',
			'data[0].at: expected an ISO 8601 timestamp, got number 1700000000000',
			'meta.hasNextPage: expected boolean, got string "no"',
		]);
		expect(lines({ data: [{ id: 'a' }] }, page)).toEqual([
			'data[0].finance: expected object, got nothing (missing)',
			'data[0].status: expected one of pending, completed, got nothing (missing)',
			'data[0].note: expected string or null, got nothing (missing)',
			'data[0].at: expected an ISO 8601 timestamp, got nothing (missing)',
			'meta: expected object, got nothing (missing)',
		]);
		expect(lines('<html>', page)).toEqual(['(answer): expected object, got string "<html>"']);
		expect(lines({ ...good, at: 'yesterday' }, row)).toEqual(['at: expected an ISO 8601 timestamp, got string "yesterday"']);
	});

	it('fields the contract does not name are additions, not differences', () => {
		expect(compareWithSchema(page, { data: [{ ...good, priority: 1, finance: { totalPrice: 1, currency: 'USD' } }], meta, links: {} })).toEqual({
			differences: [],
			additions: ['data[0].finance.currency', 'data[0].priority', 'links'],
		});
	});

	it('a union takes the option that fits', () => {
		const map = z.union([z.record(z.string()), z.record(z.record(z.string()))]);
		expect(lines({ Hello: 'Bonjour' }, map)).toEqual([]);
		expect(lines({ fr: { Hello: 'Bonjour' } }, map)).toEqual([]);
		expect(lines({ fr: { Hello: 7 } }, map)).toEqual(['["fr"]["Hello"]: expected string, got number 7']);
	});
});

describe('the read endpoints', () => {
	it('each request path finds its own schema (specific paths before :id ones)', () => {
		expect(endpointFor('GET', '/integration/orders/figma')?.pattern).toBe('/integration/orders/figma');
		expect(endpointFor('GET', '/integration/orders/abc')?.pattern).toBe('/integration/orders/:orderId');
		expect(endpointFor('GET', '/integration/orders/abc/review/info')?.pattern).toBe('/integration/orders/:orderId/review/info');
		expect(endpointFor('GET', '/integration/memories/import-jobs/j1')?.pattern).toBe('/integration/memories/import-jobs/:jobId');
		expect(endpointFor('GET', '/integration/memories/m1')?.pattern).toBe('/integration/memories/:memoryId');
		expect(endpointFor('POST', '/integration/orders/create')).toBeUndefined();
		expect(new Set(READ_ENDPOINTS.map((endpoint) => endpoint.pattern)).size).toBe(READ_ENDPOINTS.length);
	});
});
