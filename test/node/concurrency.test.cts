// How many requests the node keeps open at once, and that running them side by side changes nothing a user sees:
// item reads run a few items at a time (8, or what Read Concurrency says; writes one after another), Return All
// loads pages ten at a time, Memory > Import Items sends its jobs four at a time. Output order, pairing, Continue On Fail and "which failure stops the
// node" are as if everything ran in order. A local server holds every request for a while and counts how many
// are open together; the sandbox checks the same runs against real state.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { INodeProperties, NodeParameterValue } from 'n8n-workflow';
import { Ollang } from '../../nodes/Ollang/Ollang.node';
import { DEFAULT_PAGE_CONCURRENCY } from '../../nodes/Ollang/transport';
import { IMPORT_REQUEST_CONCURRENCY } from '../../nodes/Ollang/actions/memory/importItems.operation';
import { MAX_READ_CONCURRENCY, READ_ITEM_CONCURRENCY } from '../../nodes/Ollang/actions/common/readConcurrency';
import { resources } from '../../nodes/Ollang/actions/router';
import { byId, failure, pairedIndexes, run, startStub, useSandbox } from './setup.cts';
import type { Stub } from './setup.cts';

const sandbox = useSandbox();
const MISSING = 'bbbbbbbbbbbbbbbbbbbbbbbb';

interface Answer {
	status: number;
	json: unknown;
	/** How long the server holds this request before answering. */
	holdMs: number;
}

interface HoldingServer extends Stub {
	/** The most requests that were open at the same time. */
	maxOpen(): number;
}

/**
 * A server that answers every request after holding it, and records how many requests were open at once: with
 * every request held longer than the node takes to send a wave, that number is the node's concurrency.
 */
async function startHoldingServer(answer: (url: URL, body: Buffer) => Answer): Promise<HoldingServer> {
	let open = 0;
	let maxOpen = 0;
	const stub = await startStub((req: IncomingMessage, res: ServerResponse, body: Buffer) => {
		open++;
		maxOpen = Math.max(maxOpen, open);
		const { status, json, holdMs } = answer(new URL(req.url ?? '/', 'http://stub'), body);
		setTimeout(() => {
			open--;
			res.writeHead(status, { 'content-type': 'application/json' });
			res.end(JSON.stringify(json));
		}, holdMs);
	});
	return { ...stub, maxOpen: () => maxOpen };
}

const HOLD_MS = 400;
const orderIdOf = (url: URL) => decodeURIComponent(url.pathname.split('/').pop() ?? '');
const getOrder = { resource: 'order', operation: 'get', orderId: byId('={{ $json.orderId }}') };

describe('item operations that only read run a few items at a time', () => {
	it(`Order > Get keeps ${READ_ITEM_CONCURRENCY} requests open, and outputs every order in item order`, async () => {
		const server = await startHoldingServer((url) => ({ status: 200, json: { id: orderIdOf(url) }, holdMs: HOLD_MS }));
		try {
			const items = Array.from({ length: 20 }, (_, index) => ({ json: { orderId: `order-${index}` } }));

			const result = await run(sandbox(), getOrder, { items, baseUrl: server.baseUrl });

			expect(server.maxOpen()).toBe(READ_ITEM_CONCURRENCY);
			expect(result.json.map((order) => order.id)).toEqual(items.map((item) => item.json.orderId));
			expect(pairedIndexes(result)).toEqual(items.map((_, index) => index));
		} finally {
			await server.close();
		}
	});

	it('Continue On Fail: each failed item is an error item in its place, the others go on (sandbox)', async () => {
		const orders = [...sandbox().state.orders.keys()].slice(0, 11);
		const ids = orders.map((id, index) => (index === 2 || index === 9 ? MISSING : id));

		const result = await run(sandbox(), getOrder, {
			items: ids.map((orderId) => ({ json: { orderId } })),
			continueOnFail: true,
		});

		expect(result.json).toHaveLength(ids.length);
		result.json.forEach((json, index) => {
			if (ids[index] === MISSING) expect(json.error).toMatch(/^The Ollang API answered 404/);
			else expect(json.id).toBe(ids[index]);
		});
		expect(pairedIndexes(result)).toEqual(ids.map((_, index) => index));
	});

	it('without Continue On Fail: the first failing item in item order stops the node, and no item starts after a failure', async () => {
		// Item 2 fails slowly, item 5 at once: item 5's failure comes first in time, item 2's first in item order.
		const server = await startHoldingServer((url) => {
			const id = orderIdOf(url);
			if (id === 'order-2') return { status: 404, json: { statusCode: 404, message: 'Order order-2 not found' }, holdMs: HOLD_MS * 2 };
			if (id === 'order-5') return { status: 404, json: { statusCode: 404, message: 'Order order-5 not found' }, holdMs: 0 };
			return { status: 200, json: { id }, holdMs: HOLD_MS };
		});
		try {
			const items = Array.from({ length: 20 }, (_, index) => ({ json: { orderId: `order-${index}` } }));

			const error = failure(await run(sandbox(), getOrder, { items, baseUrl: server.baseUrl }));

			expect(error.itemIndex).toBe(2);
			expect(error.message).toContain('Order order-2 not found');
			// Only the first wave went out: nothing started once item 5 had failed.
			const requested = server.requests.map((request) => orderIdOf(new URL(request.url, 'http://stub')));
			expect(requested.sort()).toEqual(items.slice(0, READ_ITEM_CONCURRENCY).map((item) => item.json.orderId).sort());
		} finally {
			await server.close();
		}
	});
});

describe('Read Concurrency: how many items a read operation runs at once (sandbox)', () => {
	const getOrderAt = (readConcurrency: NodeParameterValue) => ({ ...getOrder, options: { readConcurrency } });
	/** The ids of every order the sandbox seeded, in a fixed order. */
	const orderIds = () => [...sandbox().state.orders.keys()];
	afterEach(() => sandbox().setLatency(0));

	it('at 1: one request at a time, the orders in item order', async () => {
		sandbox().setLatency(100);
		const ids = orderIds().slice(0, 5);

		const result = await run(sandbox(), getOrderAt(1), { items: ids.map((orderId) => ({ json: { orderId } })) });

		expect(sandbox().requests.maxInFlight()).toBe(1);
		expect(sandbox().requests.log.map((record) => record.path)).toEqual(ids.map((id) => `/integration/orders/${id}`));
		expect(result.json.map((order) => order.id)).toEqual(ids);
		expect(pairedIndexes(result)).toEqual(ids.map((_, index) => index));
	});

	it('at 32: 32 requests in flight, and the orders in item order although the first ones answer last', async () => {
		sandbox().setLatency(500);
		const ids = orderIds().slice(0, 40);
		// The first three orders answer a second later than the rest: output order must not be answer order.
		for (const id of ids.slice(0, 3)) sandbox().faults.add({ path: `/integration/orders/${id}`, kind: 'delay', delayMs: 1000 });

		const result = await run(sandbox(), getOrderAt(32), { items: ids.map((orderId) => ({ json: { orderId } })) });

		expect(sandbox().requests.maxInFlight()).toBe(32);
		expect(sandbox().requests.count()).toBe(ids.length);
		expect(result.json.map((order) => order.id)).toEqual(ids);
		expect(pairedIndexes(result)).toEqual(ids.map((_, index) => index));
	});

	it(`at ${MAX_READ_CONCURRENCY} (the maximum) with fewer items: every item at once`, async () => {
		sandbox().setLatency(500);
		const ids = orderIds().slice(0, 20);

		const result = await run(sandbox(), getOrderAt(MAX_READ_CONCURRENCY), { items: ids.map((orderId) => ({ json: { orderId } })) });

		expect(sandbox().requests.maxInFlight()).toBe(ids.length);
		expect(result.json.map((order) => order.id)).toEqual(ids);
	});

	it('at 32 in a 429 storm: every request waits as long as Retry-After asks, never more in flight, nothing lost or reordered', async () => {
		const latencyMs = 300;
		sandbox().setLatency(latencyMs);
		const ids = orderIds().slice(0, 40);
		// The first wave's 32 requests get a 429 (Retry-After 1 s), and so do their first retries; the third try passes.
		sandbox().faults.add({ method: 'GET', path: '/integration/orders/:orderId', kind: 'status', status: 429, retryAfterSeconds: 1, times: 64 });

		const result = await run(sandbox(), getOrderAt(32), { items: ids.map((orderId) => ({ json: { orderId } })) });

		expect(result.error).toBeUndefined();
		expect(result.json.map((order) => order.id)).toEqual(ids);
		expect(sandbox().requests.maxInFlight()).toBe(32);
		const log = sandbox().requests.log;
		expect(log.filter((record) => record.status === 429)).toHaveLength(64);
		expect(log.filter((record) => record.status === 200)).toHaveLength(ids.length);
		// Each order's requests, in the order they arrived: after a 429 (answered after the latency) the next one came
		// at least Retry-After later.
		const gapsAfter429 = ids.flatMap((id) => {
			const tries = log.filter((record) => record.path === `/integration/orders/${id}`);
			return tries.slice(1).flatMap((next, index) => (tries[index].status === 429 ? [next.receivedAtMs - tries[index].receivedAtMs] : []));
		});
		expect(gapsAfter429).toHaveLength(64);
		// 1 s asked; timers may fire a millisecond early.
		expect(Math.min(...gapsAfter429)).toBeGreaterThanOrEqual(latencyMs + 1000 - 2);
	});

	it.each([0, MAX_READ_CONCURRENCY + 1, 2.5, 'many', null])('%p is refused before any request, naming the field', async (value) => {
		const ids = orderIds().slice(0, 3);

		const error = failure(await run(sandbox(), getOrderAt(value), { items: ids.map((orderId) => ({ json: { orderId } })) }));

		expect(error.message).toBe(`Invalid Read Concurrency (item 0): must be a whole number from 1 to ${MAX_READ_CONCURRENCY}, got ${JSON.stringify(value)}`);
		expect(error.description).toContain('Nothing was sent to Ollang');
		expect(sandbox().requests.count()).toBe(0);
	});

	/** Reads with no field: every item sends the same request, so running items at once gains nothing. */
	const WITHOUT_READ_CONCURRENCY = ['health.check', 'creditWallet.get', 'customInstruction.getSuggestions'];

	it('is an option of every read operation with a field, and of no other (writes run one item at a time)', () => {
		const properties = new Ollang().description.properties;
		const offered = (resource: string, operation: string) =>
			properties.some((property) => {
				const show = property.displayOptions?.show;
				const here = (show?.resource as string[] | undefined)?.includes(resource) && (show?.operation as string[] | undefined)?.includes(operation);
				return here && property.name === 'options' && ((property.options ?? []) as INodeProperties[]).some((option) => option.name === 'readConcurrency');
			});
		const operations = Object.entries(resources).flatMap(([resource, byName]) =>
			Object.entries(byName as Record<string, { kind?: string }>).map(([operation, chosen]) => ({ key: `${resource}.${operation}`, kind: chosen.kind ?? 'batch', offered: offered(resource, operation) })),
		);
		expect(operations.filter(({ kind }) => kind === 'read').length).toBeGreaterThan(20);
		expect(operations.filter(({ key, kind, offered: has }) => has !== (kind === 'read' && !WITHOUT_READ_CONCURRENCY.includes(key)))).toEqual([]);
		// Each exception is a read whose only parameters would be Read Concurrency's Options.
		for (const key of WITHOUT_READ_CONCURRENCY) {
			const [resource, operation] = key.split('.');
			const own = properties.filter((property) => (property.displayOptions?.show?.resource as string[] | undefined)?.includes(resource) && (property.displayOptions?.show?.operation as string[] | undefined)?.includes(operation));
			expect({ key, kind: operations.find((entry) => entry.key === key)?.kind, fields: own.filter((property) => property.type !== 'notice').map((property) => property.name) }).toEqual({ key, kind: 'read', fields: [] });
		}
	});
});

describe('item operations that write run one item at a time', () => {
	it('Memory > Create never has two requests open', async () => {
		let created = 0;
		// A create has a body; the read of the memories before it (Retry Protection) has none and lists none.
		const server = await startHoldingServer((_url, body) =>
			body.length > 0 ? { status: 201, json: { id: `memory-${created++}` }, holdMs: 150 } : { status: 200, json: [], holdMs: 150 },
		);
		try {
			const items = ['A', 'B', 'C', 'D'].map((title) => ({ json: { title } }));

			const result = await run(sandbox(), { resource: 'memory', operation: 'create', title: '={{ $json.title }}' }, { items, baseUrl: server.baseUrl });

			expect(server.maxOpen()).toBe(1);
			// Each create is preceded by its read of the memories (Retry Protection); the creates go in order.
			const creates = server.requests.filter((request) => request.method === 'POST');
			expect(creates.map((request) => JSON.parse(request.body.toString('utf8')).title)).toEqual(['A', 'B', 'C', 'D']);
			expect(pairedIndexes(result)).toEqual([0, 1, 2, 3]);
		} finally {
			await server.close();
		}
	});

	it('and none starts after a failure that stops the node (sandbox)', async () => {
		const before = sandbox().state.memories.size;

		const error = failure(
			await run(sandbox(), { resource: 'memory', operation: 'create', title: '={{ $json.title }}' }, {
				items: [{ json: { title: 'First of three' } }, { json: { title: '' } }, { json: { title: 'Never sent' } }],
			}),
		);

		expect(error.itemIndex).toBe(1);
		expect(sandbox().state.memories.size).toBe(before + 1);
		expect(sandbox().requests.count({ method: 'POST' })).toBe(1);
	});
});

describe('Return All loads the pages after the first a few at a time', () => {
	it(`keeps ${DEFAULT_PAGE_CONCURRENCY} page requests open by default, and returns the rows in page order`, async () => {
		const pageCount = 25;
		const server = await startHoldingServer((url) => {
			const page = Number(url.searchParams.get('pageOptions[page]'));
			return { status: 200, json: { data: [{ id: `line-${page}` }], meta: { pageCount } }, holdMs: HOLD_MS };
		});
		try {
			const result = await run(sandbox(), { resource: 'consumption', operation: 'getMany', returnAll: true }, { baseUrl: server.baseUrl });

			expect(server.maxOpen()).toBe(DEFAULT_PAGE_CONCURRENCY);
			expect(result.json.map((row) => row.id)).toEqual(Array.from({ length: pageCount }, (_, index) => `line-${index + 1}`));
		} finally {
			await server.close();
		}
	});

	it('keeps the number Parallel Page Requests asks for', async () => {
		const server = await startHoldingServer((url) => {
			const page = Number(url.searchParams.get('pageOptions[page]'));
			return { status: 200, json: { data: [{ id: `line-${page}` }], meta: { pageCount: 10 } }, holdMs: HOLD_MS };
		});
		try {
			await run(sandbox(), { resource: 'consumption', operation: 'getMany', returnAll: true, options: { pageConcurrency: 3 } }, { baseUrl: server.baseUrl });

			expect(server.maxOpen()).toBe(3);
		} finally {
			await server.close();
		}
	});
});

describe('Memory > Import Items sends its jobs a few at a time', () => {
	const importEach = {
		resource: 'memory',
		operation: 'importItems',
		memoryId: byId('memory-1'),
		sourceLanguage: '={{ $json.sourceLanguage }}',
		targetLanguage: '={{ $json.targetLanguage }}',
		options: { unitsPerRequest: 1 },
	};
	const unitItems = (count: number, ...failing: number[]) =>
		Array.from({ length: count }, (_, index) => ({
			json: { sourceLanguage: 'en', targetLanguage: 'de', sourceText: failing.includes(index) ? 'FAIL' : `Line ${index}`, targetText: `Zeile ${index}` },
		}));
	/** Answers a job per request, holding each; a unit with the text FAIL gets a 500 at once. */
	const importServer = () =>
		startHoldingServer((_url, body) => {
			const [unit] = JSON.parse(body.toString('utf8')).items as Array<{ sourceText: string }>;
			if (unit.sourceText === 'FAIL') return { status: 500, json: { statusCode: 500, message: 'Internal server error' }, holdMs: 0 };
			return { status: 201, json: { jobId: `job-${unit.sourceText.replace(/\D/g, '')}`, status: 'pending' }, holdMs: HOLD_MS };
		});

	it(`keeps ${IMPORT_REQUEST_CONCURRENCY} requests open, and outputs the jobs in item order`, async () => {
		const server = await importServer();
		try {
			const result = await run(sandbox(), importEach, { items: unitItems(10), baseUrl: server.baseUrl });

			expect(server.maxOpen()).toBe(IMPORT_REQUEST_CONCURRENCY);
			expect(result.json.map((job) => job.jobId)).toEqual(Array.from({ length: 10 }, (_, index) => `job-${index}`));
			expect(pairedIndexes(result)).toEqual(Array.from({ length: 10 }, (_, index) => index));
		} finally {
			await server.close();
		}
	});

	it('without Continue On Fail: no job starts after a failure, and the error names every job already queued', async () => {
		const server = await importServer();
		try {
			const error = failure(await run(sandbox(), importEach, { items: unitItems(10, 1), baseUrl: server.baseUrl }));

			// Only the first wave went out; the three beside the failed one were queued.
			expect(server.requests).toHaveLength(IMPORT_REQUEST_CONCURRENCY);
			expect(error.itemIndex).toBe(1);
			expect(error.httpCode).toBe('500');
			expect(error.description).toContain('may have been applied');
			expect(error.description).toContain('Jobs already queued by this run: job-0 (memory memory-1), job-2 (memory memory-1), job-3 (memory memory-1).');
		} finally {
			await server.close();
		}
	});

	it('without Continue On Fail: a request that failed beside the one that stops the node is named with what it may have done', async () => {
		const server = await importServer();
		try {
			const error = failure(await run(sandbox(), importEach, { items: unitItems(10, 1, 2), baseUrl: server.baseUrl }));

			expect(error.itemIndex).toBe(1);
			expect(error.description).toContain('Jobs already queued by this run: job-0 (memory memory-1), job-3 (memory memory-1).');
			expect(error.description).toMatch(/Also failed in this run: memory memory-1 \(item 2\): The Ollang API answered 500: Internal server error\. .*may have been applied/);
		} finally {
			await server.close();
		}
	});

	it('with Continue On Fail: every job is sent, the failed one is an error item in its place', async () => {
		const server = await importServer();
		try {
			const result = await run(sandbox(), importEach, { items: unitItems(10, 4), baseUrl: server.baseUrl, continueOnFail: true });

			expect(server.requests).toHaveLength(10);
			expect(result.json.map((json) => json.jobId ?? 'error')).toEqual(['job-0', 'job-1', 'job-2', 'job-3', 'error', 'job-5', 'job-6', 'job-7', 'job-8', 'job-9']);
			expect(String(result.json[4].error)).toMatch(/^The Ollang API answered 500/);
			expect(pairedIndexes(result)).toEqual(Array.from({ length: 10 }, (_, index) => index));
		} finally {
			await server.close();
		}
	});

	it('on the sandbox: every unit lands in the memory, one job per request', async () => {
		const memoryId = sandbox().fixtures.memories[1];
		const items = unitItems(9).map((item) => ({ json: { ...item.json, sourceText: `Concurrent ${item.json.sourceText}` } }));

		const result = await run(sandbox(), { ...importEach, memoryId: byId(memoryId), options: { unitsPerRequest: 2 } }, { items });

		expect(sandbox().requests.count({ method: 'POST', path: '/integration/memories/:memoryId/items/import' })).toBe(5);
		expect(pairedIndexes(result)).toEqual([[0, 1], [2, 3], [4, 5], [6, 7], 8]);
		const pending = result.json.flatMap((job) => sandbox().state.importJobs.get(String(job.jobId))?.pendingItems ?? []);
		expect(pending.map((unit) => unit.sourceText)).toEqual(items.map((item) => item.json.sourceText));
	});
});
