import { API_ROUTES } from '../../sandbox/index.cts';
import { compilePattern } from '../../sandbox/http/router.cts';
import { call, expectShapeA, expectShapeB, expectShapeC, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const ORDER = '000000000000000000000000';

/** Every API route, with the 401 shape the spec's "A or C depending on endpoint" resolves to (sandbox/README.md). */
const ROUTES: Array<[method: string, path: string, shape: 'A' | 'C']> = [
	['GET', '/integration/orders', 'A'],
	['POST', '/integration/orders/create', 'A'],
	['GET', `/integration/orders/${ORDER}`, 'A'],
	['POST', `/integration/orders/${ORDER}/human-review`, 'A'],
	['POST', `/integration/orders/${ORDER}/cancel-human-review`, 'A'],
	['POST', `/integration/orders/${ORDER}/subtitle-embedding`, 'A'],
	['GET', `/integration/orders/${ORDER}/export-xlsx`, 'A'],
	['GET', `/integration/orders/${ORDER}/review/info`, 'A'],
	['GET', `/v1/api/client/orders/${ORDER}/review/info`, 'A'],
	['POST', `/integration/orders/cancel/${ORDER}`, 'A'],
	['POST', `/integration/orders/${ORDER}/rerun`, 'A'],
	['POST', `/integration/orders/${ORDER}/qc`, 'A'],
	['POST', `/integration/revision/${ORDER}`, 'C'],
	['GET', `/integration/revision/${ORDER}`, 'C'],
	['DELETE', `/integration/revision/${ORDER}/${ORDER}`, 'C'],
	['GET', '/integration/consumption', 'A'],
	['GET', '/integration/credits', 'A'],
	['POST', '/integration/content/import', 'C'],
	['GET', '/integration/custom-instructions/suggestions', 'C'],
	['GET', '/integration/memories', 'C'],
	['POST', '/integration/memories', 'C'],
	['GET', `/integration/memories/${ORDER}`, 'C'],
	['PATCH', `/integration/memories/${ORDER}`, 'C'],
	['DELETE', `/integration/memories/${ORDER}`, 'C'],
	['POST', `/integration/memories/${ORDER}/items/import`, 'C'],
	['GET', `/integration/memories/import-jobs/${ORDER}`, 'C'],
	['POST', `/integration/folder/${ORDER}/unassign-translator-from-orders`, 'C'],
	['GET', `/integration/folder/${ORDER}/docs`, 'C'],
	['POST', `/integration/folder/${ORDER}/docs`, 'C'],
	['POST', `/integration/folder/${ORDER}/docs/upload`, 'C'],
	['DELETE', `/integration/folder/${ORDER}/docs/${ORDER}`, 'C'],
	['POST', '/integration/upload/direct', 'C'],
	['POST', '/integration/upload/direct-url', 'C'],
	['GET', '/integration/folder', 'C'],
	['POST', '/integration/folder/export-xlsx', 'C'],
	['GET', `/integration/folder/${ORDER}/order-language-pairs`, 'C'],
	['POST', `/integration/folder/${ORDER}/assign-translator-to-orders`, 'C'],
	['GET', '/integration/project', 'C'],
	['GET', `/integration/project/${ORDER}`, 'C'],
	['POST', '/integration/project/create-by-url', 'C'],
	['POST', '/integration/upload/vtt', 'C'],
	['GET', '/integration/content/export', 'C'],
	['GET', '/integration/custom-instructions', 'C'],
	['POST', '/integration/custom-instructions', 'C'],
	['PATCH', `/integration/custom-instructions/${ORDER}`, 'C'],
	['DELETE', `/integration/custom-instructions/${ORDER}`, 'C'],
	['GET', '/integration/locales/languages', 'C'],
	['GET', '/integration/locales/search', 'C'],
	['GET', '/integration/locales/validate/pt-PT', 'C'],
	['POST', '/integration/orders/figma/create', 'A'],
	['GET', '/integration/orders/figma', 'A'],
	['GET', `/integration/orders/figma/${ORDER}/status`, 'A'],
];

/** Routes served without a key. */
const PUBLIC_ROUTES: Array<[method: string, path: string]> = [['GET', '/health']];

describe('authentication (X-Api-Key)', () => {
	it('the table below covers every route the sandbox serves', () => {
		for (const route of API_ROUTES) {
			const { regex } = compilePattern(route.pattern);
			const covered =
				ROUTES.some(([method, path, shape]) => method === route.method && regex.test(path) && shape === route.auth) ||
				PUBLIC_ROUTES.some(([method, path]) => method === route.method && regex.test(path) && route.auth === 'none');
			expect({ route: `${route.method} ${route.pattern}`, covered }).toEqual({ route: `${route.method} ${route.pattern}`, covered: true });
		}
		expect(ROUTES.length + PUBLIC_ROUTES.length).toBe(API_ROUTES.length);
	});

	it.each(PUBLIC_ROUTES)('%s %s answers without a key', async (method, path) => {
		expect((await call(sandbox(), method, path, { key: null })).status).toBe(200);
	});

	it.each(ROUTES)('%s %s without a key answers 401 UNAUTHORIZED in shape %s', async (method, path, shape) => {
		const response = await call(sandbox(), method, path, { key: null });
		expect(response.status).toBe(401);
		if (shape === 'A') {
			expectShapeA(response.body, 'UNAUTHORIZED');
			expect(response.body.error).toBe('Unauthorized');
		} else {
			expectShapeC(response.body, 'UNAUTHORIZED');
		}
	});

	it.each(ROUTES)('%s %s with an unknown key answers 401 without echoing the key', async (method, path) => {
		const wrongKey = 'sbx_owner_not-a-real-key-0123456789';
		const response = await call(sandbox(), method, path, { key: wrongKey });
		expect(response.status).toBe(401);
		expect(response.text).not.toContain(wrongKey);
	});

	it('accepts each seeded key and never prints a key in a response', async () => {
		const { owner, billing, member } = sandbox().keys;
		expect(new Set([owner, billing, member]).size).toBe(3);
		for (const key of [owner, billing, member]) {
			const response = await call(sandbox(), 'GET', '/integration/custom-instructions/suggestions', { key });
			expect(response.status).toBe(200);
			expect(response.text).not.toContain(key);
		}
	});

	it("the request log names the user whose key made each request (two clients of one account told apart), never the key", async () => {
		const { owner, billing } = sandbox().keys;
		const users = sandbox().fixtures.users;
		sandbox().requests.reset();
		await call(sandbox(), 'GET', '/integration/credits', { key: owner });
		await call(sandbox(), 'GET', '/integration/credits', { key: billing });
		await call(sandbox(), 'GET', '/integration/credits', { key: 'sbx_owner_not-a-real-key-0123456789' });
		await call(sandbox(), 'GET', '/health', { key: null });
		expect(sandbox().requests.log.map((record) => [record.path, record.status, record.userId])).toEqual([
			['/integration/credits', 200, users.owner.id],
			['/integration/credits', 200, users.billing.id],
			['/integration/credits', 401, undefined],
			['/health', 200, undefined],
		]);
		expect(JSON.stringify(sandbox().requests.log)).not.toContain(owner);
	});

	it('an unknown route answers 404 shape B "Cannot METHOD /path" (before authentication)', async () => {
		const response = await call(sandbox(), 'GET', '/integration/nope', { key: null });
		expect(response.status).toBe(404);
		expect(response.body).toEqual({ statusCode: 404, message: 'Cannot GET /integration/nope', error: 'Not Found' });
		const wrongMethod = await call(sandbox(), 'PUT', '/integration/credits');
		expect(wrongMethod.status).toBe(404);
		expectShapeB(wrongMethod.body, 404, 'Not Found');
		expect(wrongMethod.body.message).toBe('Cannot PUT /integration/credits');
	});

	it('a malformed JSON body answers 400 shape B', async () => {
		const response = await fetch(new URL('/integration/memories', sandbox().baseUrl), {
			method: 'POST',
			headers: { 'x-api-key': sandbox().keys.owner, 'content-type': 'application/json' },
			body: '{"title": ',
		});
		expect(response.status).toBe(400);
		expectShapeB(await response.json(), 400, 'Bad Request');
	});
});
