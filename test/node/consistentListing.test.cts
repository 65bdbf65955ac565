// Return All reads one consistent listing (issue 28): while the sandbox adds rows at the listing's head after every
// answered page, the node returns every row of the listing as of page 1 exactly once, nothing else, and a quiet
// listing costs no extra request. Each case's counts are printed as a table at the end.
import type { Sandbox } from '../../sandbox/index.cts';
import { failure, pairedIndexes, run, startStub, useSandbox } from './setup.cts';

const sandbox = useSandbox({ volume: 'large' });

interface Tally {
	case: string;
	expected: number;
	out: number;
	duplicated: number;
	missing: number;
	unexpected: number;
	requests: number;
	extraRequests: number;
}

const tallies: Tally[] = [];
afterAll(() => {
	console.log(`Return All while the listing grows (issue 28):\n${formatTable(tallies)}`);
});

function formatTable(rows: Tally[]): string {
	const columns = Object.keys(rows[0] ?? {}) as Array<keyof Tally>;
	const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => String(row[column]).length)));
	const line = (cells: string[]) => cells.map((cell, index) => cell.padEnd(widths[index])).join(' | ');
	return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...rows.map((row) => line(columns.map((column) => String(row[column]))))].join('\n');
}

/** Compares what the node returned with the ids expected (in order when `ordered`), and records the counts. */
function tally(name: string, out: Array<Record<string, unknown>>, expected: string[], listingPath: string, pageSize = 50): Tally {
	const outIds = out.map((row) => String(row.id));
	const seen = new Set<string>();
	let duplicated = 0;
	for (const id of outIds) {
		if (seen.has(id)) duplicated++;
		seen.add(id);
	}
	const wanted = new Set(expected);
	const requests = sandbox().requests.count({ method: 'GET', path: listingPath });
	const result: Tally = {
		case: name,
		expected: expected.length,
		out: outIds.length,
		duplicated,
		missing: expected.filter((id) => !seen.has(id)).length,
		unexpected: [...seen].filter((id) => !wanted.has(id)).length,
		requests,
		extraRequests: requests - Math.max(1, Math.ceil(expected.length / pageSize)),
	};
	tallies.push(result);
	return result;
}

/** The node returned exactly `expected` (the listing as of page 1, in order): none doubled, missing or extra. */
function expectEachOnce(
	name: string,
	out: Array<Record<string, unknown>>,
	expected: string[],
	listingPath: string,
	{ pageSize = 50, extraRequests = 0 }: { pageSize?: number; extraRequests?: number | 'counted' } = {},
): Tally {
	const counts = tally(name, out, expected, listingPath, pageSize);
	expect(out.map((row) => row.id)).toEqual(expected);
	expect(counts).toMatchObject({ duplicated: 0, missing: 0, unexpected: 0 });
	if (extraRequests !== 'counted') expect(counts.extraRequests).toBe(extraRequests);
	return counts;
}

const consumption = (extra: Record<string, unknown>) => ({ resource: 'consumption', operation: 'getMany', simplify: false, ...extra });
const orders = (extra: Record<string, unknown>) => ({ resource: 'order', operation: 'getMany', ...extra });

/** The lines (newest first, ties by id) as they stand now, within an inclusive range. */
function linesNow(box: Sandbox, from = '', to = ''): string[] {
	return box.state.consumption
		.filter((line) => (from === '' || line.occurredAt >= from) && (to === '' || line.occurredAt <= to))
		.sort((a, b) => (a.occurredAt === b.occurredAt ? (a.id < b.id ? 1 : -1) : a.occurredAt < b.occurredAt ? 1 : -1))
		.map((line) => line.id);
}

function ordersNow(box: Sandbox): string[] {
	return [...box.state.orders.values()]
		.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
		.map((order) => order.id);
}

const CONSUMPTION = '/integration/consumption';
const ORDERS = '/integration/orders';

afterEach(() => {
	sandbox().setListingGrowth({ consumption: 0, orders: 0, clockStepMs: 1000, batches: null });
	sandbox().setLatency(0);
	// A second passes between tests: rows a test added are not stamped in the second the next read starts in.
	sandbox().clock.advance(1 / 60);
});

describe('Consumption > Get Many, Return All, while lines arrive', () => {
	it('a quiet listing: every line once, one request per page and not one more', async () => {
		const expected = linesNow(sandbox());
		const result = await run(sandbox(), consumption({ returnAll: true }));

		expect(expected.length).toBeGreaterThanOrEqual(10_000);
		expectEachOnce('consumption quiet', result.json, expected, CONSUMPTION);
	});

	it('From only (To left empty): the lines as of page 1, each once, none of the lines that arrived, no extra request', async () => {
		const box = sandbox();
		const from = box.state.consumption[2_000].occurredAt;
		const expected = linesNow(box, from);
		box.setListingGrowth({ consumption: 3 });
		box.setLatency(5);

		const result = await run(box, consumption({ returnAll: true, filters: { from } }));

		expect(linesNow(box, from).length).toBeGreaterThan(expected.length);
		expectEachOnce('consumption From only', result.json, expected, CONSUMPTION);
		expect(new Set(pairedIndexes(result))).toEqual(new Set([0]));
	});

	it('To in the future: pinned at page 1 all the same', async () => {
		const box = sandbox();
		const expected = linesNow(box);
		box.setListingGrowth({ consumption: 5 });

		const result = await run(box, consumption({ returnAll: true, filters: { to: '2099-01-01T00:00:00Z' } }));

		expectEachOnce('consumption To 2099', result.json, expected, CONSUMPTION);
	});

	it('sort ascending: the new lines would land on the last page; none of them does', async () => {
		const box = sandbox();
		const expected = linesNow(box).reverse();
		box.setListingGrowth({ consumption: 4 });

		const result = await run(box, consumption({ returnAll: true, options: { orderDirection: 'asc', orderBy: 'occurredAt' } }));

		expectEachOnce('consumption ascending', result.json, expected, CONSUMPTION);
	});

	it('a Limit keeps its meaning: the first N of the listing as of page 1', async () => {
		const box = sandbox();
		const expected = linesNow(box).slice(0, 1_234);
		box.setListingGrowth({ consumption: 7 });

		const result = await run(box, consumption({ returnAll: false, limit: 1_234, options: { pageSize: 50 } }));

		expectEachOnce('consumption Limit 1234', result.json, expected, CONSUMPTION);
	});

	it("a service whose new lines carry page 1's own time (clock standing still): the shifted pages are read again, each line once", async () => {
		const box = sandbox();
		const before = linesNow(box);
		// Lines stamped with the answer's time enter the pinned listing: 6 after each of the first 3 answers.
		box.setListingGrowth({ consumption: 6, clockStepMs: 0, batches: 3 });

		const result = await run(box, consumption({ returnAll: true }));

		const expected = linesNow(box);
		expect(expected.length).toBe(before.length + 18);
		const counts = expectEachOnce('consumption clock still (re-read)', result.json, expected, CONSUMPTION, { extraRequests: 'counted' });
		// Page 1 and the pages answered before the last batch, once more; never a whole second pass per batch.
		expect(counts.extraRequests).toBeGreaterThan(0);
		expect(counts.extraRequests).toBeLessThanOrEqual(2 * Math.ceil(expected.length / 50));
	});

	it("a service that stamps lines ahead of its Date: page 1 shows it, so nothing is pinned, each line once, no extra request", async () => {
		const box = sandbox();
		// 30 lines an hour ahead of the service's clock: listed by page 1, left out by a pin at page 1's Date.
		const ahead = new Date(box.clock.now().getTime() + 3_600_000).toISOString();
		box.state.consumption.push(
			...box.state.consumption.slice(0, 30).map((line, index) => ({ ...line, id: `ffff${String(index).padStart(20, '0')}`, occurredAt: ahead })),
		);
		const expected = linesNow(box);

		const result = await run(box, consumption({ returnAll: true }));
		box.state.consumption.splice(-30);

		expectEachOnce('consumption stamped ahead (unpinned)', result.json, expected, CONSUMPTION);
	});

	it('a listing that never settles fails with an error that says so, after a bounded number of reads', async () => {
		const box = sandbox();
		// The last 400 lines (and the ones arriving, stamped now): 8 pages a pass.
		const from = box.state.consumption[box.state.consumption.length - 400].occurredAt;
		box.setListingGrowth({ consumption: 2, clockStepMs: 0 });

		const error = failure(await run(box, consumption({ returnAll: true, filters: { from } })));

		expect(error.message).toMatch(/^The listing GET \/integration\/consumption kept changing while its pages were read/);
		expect(error.description).toContain('Set a To (end time) in the past');
		const pages = Math.ceil(linesNow(box, from).length / 50);
		expect(box.requests.count({ method: 'GET', path: CONSUMPTION })).toBeLessThanOrEqual(5 * pages);
	});

	it('with a Limit, a listing that never settles returns its consistent leading pages', async () => {
		const box = sandbox();
		box.setListingGrowth({ consumption: 1, clockStepMs: 0 });

		const result = await run(box, consumption({ returnAll: false, limit: 120, options: { pageSize: 20, pageConcurrency: 1 } }));

		expect(result.error).toBeUndefined();
		const ids = result.json.map((row) => String(row.id));
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids.length).toBeLessThanOrEqual(120);
		// Whatever was returned is a run of the listing from its head at one moment: the head shifted by the new lines.
		const now = linesNow(box);
		const start = now.indexOf(ids[0]);
		expect(now.slice(start, start + ids.length)).toEqual(ids);
		expect(start).toBeGreaterThanOrEqual(0);
		expect(ids.length).toBeGreaterThanOrEqual(20);
	});
});

describe('Order > Get Many, Return All, while orders are created', () => {
	it('a quiet listing: every order once, no extra request', async () => {
		const expected = ordersNow(sandbox());
		const result = await run(sandbox(), orders({ returnAll: true, options: { orderBy: 'createdAt' } }));

		expectEachOnce('orders quiet', result.json, expected, ORDERS);
	});

	it.each([
		['newest first', {}, false],
		['Created Before in the future', { createdTo: '2099-01-01T00:00:00Z' }, false],
		['ascending', {}, true],
	])('%s: the orders as of page 1, each once, none created during the read', async (name, filters, ascending) => {
		const box = sandbox();
		const expected = ascending ? ordersNow(box).reverse() : ordersNow(box);
		box.setListingGrowth({ orders: 2 });

		const result = await run(
			box,
			orders({ returnAll: true, filters, options: { orderBy: 'createdAt', orderDirection: ascending ? 'asc' : 'desc', pageSize: 25 } }),
		);

		expect(ordersNow(box).length).toBeGreaterThan(expected.length);
		expectEachOnce(`orders ${name}`, result.json, expected, ORDERS, { pageSize: 25 });
	});

	it('a Limit: the first N orders as of page 1', async () => {
		const box = sandbox();
		const expected = ordersNow(box).slice(0, 333);
		box.setListingGrowth({ orders: 3 });

		const result = await run(box, orders({ returnAll: false, limit: 333, options: { orderBy: 'createdAt' } }));

		expectEachOnce('orders Limit 333', result.json, expected, ORDERS);
	});
});

describe('Project > Get Many (no time filter) while projects are created', () => {
	it('the pages that shifted are read again: one consistent listing, each project once, the extra reads counted', async () => {
		const box = sandbox();
		// Pages after the first wait 400 ms; meanwhile 3 projects are created through the API (newest first: at the head).
		box.faults.add({ method: 'GET', path: '/integration/project', kind: 'delay', delayMs: 400, skip: 1 });
		const running = run(box, { resource: 'project', operation: 'getMany', returnAll: true, options: { pageSize: 10, orderBy: 'createdAt' } });
		while (box.requests.count({ method: 'GET', path: '/integration/project' }) < 2) await new Promise((resolve) => setTimeout(resolve, 5));
		for (const name of ['Growing A', 'Growing B', 'Growing C']) {
			const created = await fetch(`${box.baseUrl}/integration/project/create-by-url`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'x-api-key': box.keys.owner },
				body: JSON.stringify({ url: 'https://example.com/media/clip.mp4', name, sourceLanguage: 'en' }),
			});
			expect(created.status).toBe(201);
		}
		const result = await running;
		box.faults.clear();

		// Project rows carry no time filter: the listing as it stands after the read, each project once.
		const expected = [...box.state.projects.values()]
			.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1))
			.map((project) => project.id);
		const counts = expectEachOnce('projects, 3 created during the read', result.json, expected, '/integration/project', { pageSize: 10, extraRequests: 'counted' });
		expect(result.json.slice(0, 3).map((row) => row.name)).toEqual(['Growing C', 'Growing B', 'Growing A']);
		// Page 1 (answered before the projects were created), and pages 2 to 8: answered in the second the projects
		// are stamped with, so the Date header cannot tell whether they came before the projects or after.
		expect(counts.extraRequests).toBe(8);
	});
});

describe('a service whose rows sharing a sort value change places between requests (no stable tiebreaker)', () => {
	const rows = Array.from({ length: 10 }, (_, index) => ({ id: `p${index}`, name: `Project ${index}`, createdAt: '2026-11-01T12:00:00.000Z' }));
	/** Project pages of 5 with a steady count; page 2 swaps p5 for a second p4 on its first `unstable` answers. */
	async function tiedStub(unstable: number) {
		let page2Answers = 0;
		return await startStub((req, res) => {
			const query = new URL(req.url ?? '/', 'http://stub.invalid').searchParams;
			const page = Number(query.get('page'));
			let data = rows.slice((page - 1) * 5, page * 5);
			if (page === 2 && page2Answers++ < unstable) data = [rows[4], ...data.slice(1)];
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ data, meta: { page, take: 5, itemCount: 10, pageCount: 2, hasPreviousPage: page > 1, hasNextPage: page < 2 } }));
		});
	}
	const projects = (extra: Record<string, unknown>) => ({ resource: 'project', operation: 'getMany', options: { pageSize: 5 }, ...extra });

	it('a row shown twice once: its page is read again, every row once', async () => {
		const stub = await tiedStub(1);
		try {
			const result = await run(sandbox(), projects({ returnAll: true }), { baseUrl: stub.baseUrl });

			expect(result.json.map((row) => row.id)).toEqual(rows.map((row) => row.id));
			// Both pages that held the row: either may be the one that moved.
			expect(stub.requests.map((request) => new URL(request.url, 'http://stub.invalid').searchParams.get('page'))).toEqual(['1', '2', '1', '2']);
		} finally {
			await stub.close();
		}
	});

	it('a row shown twice on every read: Return All fails, a Limit returns the pages before the repeat', async () => {
		const stub = await tiedStub(Infinity);
		try {
			const error = failure(await run(sandbox(), projects({ returnAll: true }), { baseUrl: stub.baseUrl }));
			expect(error.message).toMatch(/^The listing GET \/integration\/project kept changing while its pages were read/);
			// Page 1, page 2, then both read again three times.
			expect(stub.requests).toHaveLength(8);

			const limited = await run(sandbox(), projects({ returnAll: false, limit: 10 }), { baseUrl: stub.baseUrl });
			expect(limited.json.map((row) => row.id)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
		} finally {
			await stub.close();
		}
	});
});
