// The transport (nodes/Ollang/transport) through real operations: retries, what a failure says about whether
// the service acted, base URL and redirect rules, path ids, every error body shape, unexpected answers, and
// the API key staying out of everything a run leaves behind. Faults come from the sandbox; the few answers the
// sandbox never gives (a redirect, the production error shape, a non-JSON 200) come from a stub server here.
import { RETRY_POLICY } from '../../nodes/Ollang/transport';
import { credentialDecryptions, readBinary } from '../harness/engine.cts';
import { createPollRunner } from '../harness/poll.cts';
import { byId, failure, run, startStub, useSandbox } from './setup.cts';
import type { Stub } from './setup.cts';

const sandbox = useSandbox();

const getOrder = (orderId: string) => ({ resource: 'order', operation: 'get', orderId: byId(orderId) });
const requestReview = (orderId: string) => ({ resource: 'order', operation: 'requestHumanReview', orderId: byId(orderId) });

async function freePort(): Promise<number> {
	const stub = await startStub(() => undefined);
	const port = Number(new URL(stub.baseUrl).port);
	await stub.close();
	return port;
}

describe('safe requests are retried', () => {
	it('after a 429 with Retry-After', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;
		sandbox().faults.add({ method: 'GET', path: '/integration/orders/:orderId', kind: 'status', status: 429, retryAfterSeconds: 1, times: 1 });

		const result = await run(sandbox(), getOrder(orderId));

		expect(result.error).toBeUndefined();
		expect(result.json[0]).toMatchObject({ id: orderId });
		expect(sandbox().requests.log.map((entry) => entry.status)).toEqual([429, 200]);
	});

	it('after two 503s', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;
		sandbox().faults.add({ method: 'GET', path: '/integration/orders/:orderId', kind: 'status', status: 503, times: 2 });

		const result = await run(sandbox(), getOrder(orderId));

		expect(result.json[0]).toMatchObject({ id: orderId });
		expect(sandbox().requests.log.map((entry) => entry.status)).toEqual([503, 503, 200]);
	});

	it('after a dropped connection', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;
		sandbox().faults.add({ method: 'GET', path: '/integration/orders/:orderId', kind: 'drop', times: 1 });

		const result = await run(sandbox(), getOrder(orderId));

		expect(result.json[0]).toMatchObject({ id: orderId });
		expect(sandbox().requests.log.map((entry) => entry.status)).toEqual([null, 200]);
	});

	it('a bounded number of times, then fails naming the last status', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;
		sandbox().faults.add({ method: 'GET', path: '/integration/orders/:orderId', kind: 'status', status: 503 });

		const error = failure(await run(sandbox(), getOrder(orderId)));

		expect(sandbox().requests.count({ path: '/integration/orders/:orderId' })).toBe(4);
		expect(error.message).toMatch(/^The Ollang API answered 503/);
		expect(error.message).toContain('gave up after 4 attempts');
		expect(error.httpCode).toBe('503');
	});

	it('after a 500 too (a read is safe to repeat), and names the last status once the retries are spent', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;
		sandbox().faults.add({ method: 'GET', path: '/integration/orders/:orderId', kind: 'status', status: 500 });

		const error = failure(await run(sandbox(), getOrder(orderId)));

		expect(sandbox().requests.count()).toBe(1 + RETRY_POLICY.maxRetries);
		expect(error.httpCode).toBe('500');
	});

	it('not when Retry-After asks for longer than the node waits; the error says how long', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;
		sandbox().faults.add({ method: 'GET', path: '/integration/orders/:orderId', kind: 'status', status: 429, retryAfterSeconds: 120 });

		const error = failure(await run(sandbox(), getOrder(orderId)));

		expect(sandbox().requests.count()).toBe(1);
		expect(error.message).toContain('429');
		expect(error.description).toContain('asked to wait 120 s');
	});
});

describe('a credit-spending request (Request Human Review)', () => {
	it('is sent exactly once when the service answered 500, and the error says it may have been applied', async () => {
		const orderId = sandbox().fixtures.orders.completedLevel0;
		sandbox().faults.add({ method: 'POST', path: '/integration/orders/:orderId/human-review', kind: 'status', status: 500, when: 'after', times: 1 });

		const error = failure(await run(sandbox(), requestReview(orderId)));

		expect(sandbox().requests.count({ method: 'POST' })).toBe(1);
		expect(error.httpCode).toBe('500');
		expect(error.description).toMatch(/the request may have been applied; check before retrying/i);
		// The service did act: the order now includes human review.
		expect(sandbox().state.orders.get(orderId)?.level).toBe(1);
	});

	it('is sent exactly once when the connection dropped, and the error says it may have been applied', async () => {
		const orderId = sandbox().fixtures.orders.deliveredLevel0;
		sandbox().faults.add({ method: 'POST', path: '/integration/orders/:orderId/human-review', kind: 'drop', times: 1 });

		const error = failure(await run(sandbox(), requestReview(orderId)));

		expect(sandbox().requests.count({ method: 'POST' })).toBe(1);
		expect(error.message).toContain('dropped');
		expect(error.description).toContain('may have been applied; check before retrying');
	});

	it('is retried after a 429, which the service answers without acting', async () => {
		const [order] = sandbox().simulate.createOrders(1, { status: 'completed', level: 0 });
		sandbox().faults.add({ method: 'POST', path: '/integration/orders/:orderId/human-review', kind: 'status', status: 429, retryAfterSeconds: 1, times: 1 });

		const result = await run(sandbox(), requestReview(order.id));

		expect(result.json).toEqual([{ success: true, orderId: order.id, humanReviewRequested: true }]);
		expect(sandbox().requests.log.map((entry) => entry.status)).toEqual([429, 204]);
	});

	it('says nothing was applied when the service refused it (ORDER_NOT_ELIGIBLE)', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.ongoing;

		const error = failure(await run(sandbox(), requestReview(orderId)));

		expect(error.message).toContain('ORDER_NOT_ELIGIBLE');
		expect(error.description).toContain('status is completed or delivered');
		expect(error.description).toContain('did not act on this request');
		// Sent once; outside a retry of a run that sent it, a refusal is the answer (no read of the order's state).
		expect(sandbox().requests.log.map((entry) => `${entry.method} ${entry.status}`)).toEqual(['POST 400']);
	});

	it('is retried on a refused connection and then says the service did not act', async () => {
		const baseUrl = `http://127.0.0.1:${await freePort()}`;

		const error = failure(await run(sandbox(), requestReview('aaaaaaaaaaaaaaaaaaaaaaaa'), { baseUrl }));

		expect(error.message).toContain('connection to http://127.0.0.1');
		expect(error.message).toContain('ECONNREFUSED');
		expect(error.message).toContain('gave up after 4 attempts');
		expect(error.description).toContain('did not act on this request');
	});
});

describe('base URL', () => {
	it('refuses plain http to a remote host before sending', async () => {
		const error = failure(await run(sandbox(), getOrder('aaaaaaaaaaaaaaaaaaaaaaaa'), { baseUrl: 'http://api.example.com' }));

		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toContain('Invalid Base URL');
		expect(error.message).toContain('use https');
	});

	it('refuses a value that is not a URL', async () => {
		const error = failure(await run(sandbox(), getOrder('aaaaaaaaaaaaaaaaaaaaaaaa'), { baseUrl: 'api-integration.ollang.com' }));

		expect(error.message).toContain('is not a valid URL');
	});

	it('accepts a loopback address with a trailing slash', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;

		const result = await run(sandbox(), getOrder(orderId), { baseUrl: `${sandbox().baseUrl}/` });

		expect(result.json[0]).toMatchObject({ id: orderId });
		expect(sandbox().requests.log[0].path).toBe(`/integration/orders/${orderId}`);
	});
});

describe('redirects', () => {
	it('are not followed to another host, so the key is not sent there', async () => {
		const elsewhere = await startStub((_req, res) => res.end('[]'));
		const redirecting = await startStub((_req, res) => {
			res.writeHead(302, { location: `${elsewhere.baseUrl}/integration/custom-instructions/suggestions` });
			res.end();
		});
		try {
			const error = failure(
				await run(sandbox(), { resource: 'customInstruction', operation: 'getSuggestions' }, { baseUrl: redirecting.baseUrl }),
			);

			expect(error.message).toContain(`redirected GET /integration/custom-instructions/suggestions to ${elsewhere.baseUrl}`);
			expect(error.description).toContain('not sent there');
			expect(redirecting.requests).toHaveLength(1);
			expect(elsewhere.requests).toHaveLength(0);
		} finally {
			await redirecting.close();
			await elsewhere.close();
		}
	});

	it('are followed on the same host', async () => {
		const stub = await startStub((req, res) => {
			if (req.url === '/integration/custom-instructions/suggestions') {
				res.writeHead(307, { location: '/integration/custom-instructions/suggestions/v2' });
				res.end();
				return;
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify([{ key: 'tone', value: 'Friendly', active: true }]));
		});
		try {
			const result = await run(sandbox(), { resource: 'customInstruction', operation: 'getSuggestions' }, { baseUrl: stub.baseUrl, key: 'stub-key-123456' });

			expect(result.json).toEqual([{ key: 'tone', value: 'Friendly', active: true }]);
			expect(stub.requests.map((request) => request.url)).toEqual([
				'/integration/custom-instructions/suggestions',
				'/integration/custom-instructions/suggestions/v2',
			]);
			expect(stub.requests.every((request) => request.apiKey === 'stub-key-123456')).toBe(true);
		} finally {
			await stub.close();
		}
	});
});

describe('path ids', () => {
	// Given by expression, so the value reaches the node at run time (a fixed value is checked by the editor).
	it.each([
		['a/b', "must not contain '/'"],
		['..', "must not contain '..'"],
		['   ', 'must not be empty'],
	])('refuses %j before any request', async (orderId, rule) => {
		const error = failure(await run(sandbox(), getOrder(`={{ ${JSON.stringify(orderId)} }}`)));

		expect(error.name).toBe('NodeOperationError');
		expect(error.message).toBe(`Invalid Order (item 0): the ID ${rule}`);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('refuses a fixed ID with "/" in the editor\'s validation, before the node runs', async () => {
		await expect(run(sandbox(), getOrder('a/b'))).rejects.toThrow('An ID is a single word without "/"');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('URL-encodes characters that would change the path or query', async () => {
		const error = failure(await run(sandbox(), getOrder('abc?x=1#y')));

		expect(error.httpCode).toBe('404');
		expect(sandbox().requests.log[0].path).toBe('/integration/orders/abc%3Fx%3D1%23y');
	});
});

describe('error bodies become messages in the API\'s words', () => {
	it('shape A: code and message, with the status', async () => {
		const error = failure(await run(sandbox(), getOrder('aaaaaaaaaaaaaaaaaaaaaaaa')));

		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe('The Ollang API answered 404 ORDER_NOT_FOUND: Order aaaaaaaaaaaaaaaaaaaaaaaa not found');
		expect(error.description).toContain('GET /integration/orders/aaaaaaaaaaaaaaaaaaaaaaaa failed with HTTP 404');
	});

	it('shape B: every validation message', async () => {
		const memoryId = sandbox().fixtures.memories[0];
		const error = failure(
			await run(sandbox(), { resource: 'memory', operation: 'rename', memoryId: byId(memoryId), title: 'x'.repeat(201) }),
		);

		expect(error.httpCode).toBe('400');
		expect(error.message).toMatch(/^The Ollang API answered 400 Bad Request: .*title/);
	});

	it('shape C on 401: the code, and a hint to check the key', async () => {
		const error = failure(await run(sandbox(), { resource: 'memory', operation: 'getMany', returnAll: true }, { key: 'wrong-key-0000000' }));

		expect(error.httpCode).toBe('401');
		expect(error.message).toMatch(/^The Ollang API answered 401 UNAUTHORIZED/);
		expect(error.description).toContain('Check the API key');
	});

	it('production shape { code: -1, error, message, detail }: the detail and the message', async () => {
		const stub = await startStub((_req, res) => {
			res.writeHead(400, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ code: -1, error: 'Bad Request', message: 'Validation failed', detail: 'title must be shorter than 200 characters' }));
		});
		try {
			const error = failure(
				await run(sandbox(), { resource: 'memory', operation: 'create', title: 'Glossary' }, { baseUrl: stub.baseUrl }),
			);

			expect(error.message).toBe('The Ollang API answered 400 Bad Request: title must be shorter than 200 characters; Validation failed');
			expect(error.description).toContain('did not act on this request');
		} finally {
			await stub.close();
		}
	});
});

describe('unexpected answers are clear errors, not crashes', () => {
	let stub: Stub;
	beforeAll(async () => {
		stub = await startStub((req, res) => {
			if (req.url === '/integration/credits') {
				res.writeHead(200, { 'content-type': 'text/html' });
				res.end('<html><body>Maintenance</body></html>');
			} else if (req.url === '/integration/custom-instructions/suggestions') {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end();
			} else {
				res.writeHead(200, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ unexpected: true }));
			}
		});
	});
	afterAll(async () => {
		await stub.close();
	});

	it('a body that is not JSON', async () => {
		const error = failure(await run(sandbox(), { resource: 'creditWallet', operation: 'get' }, { baseUrl: stub.baseUrl }));

		expect(error.message).toBe('The Ollang API answered GET /integration/credits with an unexpected response: expected a JSON body');
		expect(error.description).toContain('Maintenance');
	});

	it('an empty body where JSON is expected', async () => {
		const error = failure(await run(sandbox(), { resource: 'customInstruction', operation: 'getSuggestions' }, { baseUrl: stub.baseUrl }));

		expect(error.message).toContain('expected a JSON body, got an empty answer (HTTP 200)');
	});

	it('JSON of the wrong shape', async () => {
		const error = failure(await run(sandbox(), getOrder('aaaaaaaaaaaaaaaaaaaaaaaa'), { baseUrl: stub.baseUrl }));

		expect(error.message).toContain('expected an object with id');
		expect(error.description).toContain('"unexpected":true');
	});

	it('a list that is not a page', async () => {
		const error = failure(
			await run(sandbox(), { resource: 'consumption', operation: 'getMany', returnAll: true }, { baseUrl: stub.baseUrl }),
		);

		expect(error.message).toContain('expected a page: { data: [objects], meta: {...} }');
	});
});

describe('the API key', () => {
	const key = 'leak-check-key-7c1f';

	it('appears in no error, even one that echoes the request', async () => {
		const stub = await startStub((req, res) => {
			res.writeHead(400, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ statusCode: 400, message: [`bad header ${String(req.headers['x-api-key'])}`], error: 'Bad Request' }));
		});
		try {
			// run() fails the test if the key appears anywhere in the run data, output or error.
			const error = failure(await run(sandbox(), { resource: 'memory', operation: 'create', title: 'x' }, { baseUrl: stub.baseUrl, key }));

			expect(stub.requests[0].apiKey).toBe(key);
			expect(error.message).toContain('bad header [redacted]');
		} finally {
			await stub.close();
		}
	});

	it('is taken out of a downloaded file that carries it, and the rest of the file is kept', async () => {
		// A long answer, so the key straddles the chunks the stored file is checked in.
		const before = 'a'.repeat(64 * 1024 - 5);
		const stub = await startStub((req, res) => {
			res.writeHead(200, { 'content-type': 'text/plain', 'content-disposition': 'attachment; filename="debug.txt"' });
			res.end(`${before}${String(req.headers['x-api-key'])} after`);
		});
		try {
			const result = await run(sandbox(), { resource: 'order', operation: 'exportXlsx', orderId: byId('any') }, { baseUrl: stub.baseUrl, key });

			const stored = (await readBinary(result.items[0])).toString('utf8');
			expect(stored).toBe(`${before}[redacted] after`);
			expect(result.json[0]).toMatchObject({ fileName: 'debug.txt', mimeType: 'text/plain', fileSize: stored.length });
		} finally {
			await stub.close();
		}
	});

	it('appears in no output item of a run that continued on fail', async () => {
		const result = await run(sandbox(), getOrder('aaaaaaaaaaaaaaaaaaaaaaaa'), { key, continueOnFail: true });

		expect(result.json).toHaveLength(1);
		expect(result.json[0].error).toContain('401');
		expect(JSON.stringify(result.items)).not.toContain(key);
	});
});

describe('the credential is resolved once per execution and item, not per request', () => {
	const consumptionPages = { resource: 'consumption', operation: 'getMany', returnAll: true, options: { pageSize: 10 } };

	it('one read for a Return All over many pages', async () => {
		const before = credentialDecryptions();

		const result = await run(sandbox(), consumptionPages);

		expect(sandbox().requests.count({ path: '/integration/consumption' })).toBe(Math.ceil(sandbox().state.consumption.length / 10));
		expect(result.json).toHaveLength(sandbox().state.consumption.length);
		expect(credentialDecryptions() - before).toBe(1);
	});

	it('one read per item (a credential may read the item), whatever the requests of each', async () => {
		const before = credentialDecryptions();
		const orders = [...sandbox().state.orders.keys()].slice(0, 3);

		await run(sandbox(), { resource: 'order', operation: 'get', orderId: byId('={{ $json.orderId }}') }, { items: orders.map((orderId) => ({ json: { orderId } })) });

		expect(credentialDecryptions() - before).toBe(orders.length);
	});

	it('again in the next execution: a changed key is used at once', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.completed;

		const first = await run(sandbox(), getOrder(orderId));
		const second = await run(sandbox(), getOrder(orderId), { key: 'rotated-key-0000000' });

		expect(first.error).toBeUndefined();
		expect(failure(second).httpCode).toBe('401');
	});

	it('on every poll of an active trigger, whose context lives as long as the activation', async () => {
		const runner = createPollRunner({
			parameters: { event: 'orderDeliveryEvent', watch: 'recentOrders', lookbackDays: 365 },
			credentials: { baseUrl: sandbox().baseUrl, apiKey: sandbox().keys.owner },
		});
		await runner.poll();

		await runner.setCredentials({ baseUrl: sandbox().baseUrl, apiKey: 'rotated-key-0000000' });

		await expect(runner.poll()).rejects.toThrow(/401/);
	});

	it('and the base URL rule still holds for it: plain http to a remote host is refused before anything is sent', async () => {
		const error = failure(await run(sandbox(), consumptionPages, { baseUrl: 'http://api-integration.ollang.com' }));

		expect(error.message).toMatch(/^Invalid Base URL in the Ollang API credential: .*plain http to a remote host/);
		expect(sandbox().requests.count()).toBe(0);
	});
});
