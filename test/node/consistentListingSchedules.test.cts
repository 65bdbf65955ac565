// Return All reads one consistent listing (issue 35, item 5), against generated schedules. For every paged listing
// of the node (Consumption, Order, Project, Folder > Get Many), a listing of drawn size is read with drawn page
// options while rows are added and removed at drawn positions between page reads (the sandbox's hook after the
// listing's N-th answered page). Checked on the sandbox's records: every row that stayed in the listing throughout
// the read is returned exactly once, in the listing's order, nothing outside the listing (as docs/internals/listings.md says
// per listing), or Return All fails with the documented error; a quiet listing costs one request per page.
// OLLANG_SCHEDULES=N runs N schedules (default 1,500); OLLANG_SCHEDULES_SEED / _PATH replay one;
// OLLANG_SCHEDULES_LISTING=projects draws that listing only.
import fc from 'fast-check';
import { PAGED_LISTINGS, type PagedListing, type Sandbox } from '../../sandbox/index.cts';
import { clearListing, LISTINGS, listingNow, rowNextTo, type Schedule, scheduleArb, seedListing, sortFieldOf } from './consistentListingModel.cts';
import { run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const NUM_RUNS = Number(process.env.OLLANG_SCHEDULES ?? 1_500);
const SEED = Number(process.env.OLLANG_SCHEDULES_SEED ?? 35);
const PATH = process.env.OLLANG_SCHEDULES_PATH;
const ONLY = process.env.OLLANG_SCHEDULES_LISTING;
const DRAWN = PAGED_LISTINGS.filter((listing) => ONLY === undefined || listing === ONLY);
const DOCUMENTED_ERROR = /^The listing GET \/integration\/\S+ kept changing while its pages were read/;

interface Tally {
	schedules: number;
	edited: number;
	documentedFailures: number;
	violations: number;
	quiet: number;
	quietExtraRequests: number;
	/** Requests past one per page, over the reads that met edits (the re-reads). */
	editedExtraRequests: number;
}
const tallies = new Map<PagedListing, Tally>(
	PAGED_LISTINGS.map((listing) => [listing, { schedules: 0, edited: 0, documentedFailures: 0, violations: 0, quiet: 0, quietExtraRequests: 0, editedExtraRequests: 0 }]),
);
let serial = 0;
const quietFigures: string[] = [];

/** One page request per page the read needs, as a quiet listing costs. */
function pagesNeeded(schedule: Schedule, size: number): number {
	const take = Math.min(schedule.pageSize, schedule.limit ?? Infinity);
	const forLimit = schedule.limit === null ? Infinity : Math.ceil(schedule.limit / take);
	return Math.max(1, Math.min(Math.ceil(size / take), forLimit));
}

interface Read {
	out: string[];
	error?: string;
	/** The listing when page 1 was answered, and the second of that answer (its Date header). */
	atPage1: string[];
	page1Second: number;
	inserted: Map<string, number>;
	deleted: Set<string>;
	requests: number;
	log: string[];
}

/** Runs the node once over a new listing while the schedule's edits land between its page reads. */
async function readUnderSchedule(box: Sandbox, schedule: Schedule): Promise<Read> {
	const spec = LISTINGS[schedule.listing];
	box.clock.advance(2 / 60);
	const tag = seedListing(box, schedule.listing, schedule.size, ++serial);
	const read: Read = { out: [], atPage1: [], page1Second: 0, inserted: new Map(), deleted: new Set(), requests: 0, log: [] };
	const off = box.listings.onPage(schedule.listing, (answered) => {
		if (answered === 1) {
			read.atPage1 = listingNow(box, schedule, tag);
			read.page1Second = Math.floor(box.clock.now().getTime() / 1000) * 1000;
		}
		for (const step of schedule.steps.filter((candidate) => candidate.afterPage === answered)) {
			box.clock.advance(step.clockStepMs / 60_000);
			for (const edit of step.edits) {
				const now = listingNow(box, schedule, tag);
				const index = Math.round((edit.at / 100) * Math.max(0, now.length - 1));
				if (edit.kind === 'delete') {
					if (now.length === 0) continue;
					box.listings.remove(schedule.listing, now[index]);
					read.deleted.add(now[index]);
				} else {
					read.inserted.set(box.listings.add(schedule.listing, rowNextTo(box, schedule, tag, now[index])), box.clock.now().getTime());
				}
				read.log.push(`after page answer ${answered} (+${step.clockStepMs} ms): ${edit.kind} at #${index} of ${now.length}`);
			}
		}
	});
	box.requests.reset();
	try {
		const filters = { ...spec.filters(tag), ...(schedule.futureEnd && schedule.listing === 'consumption' ? { to: '2099-01-01T00:00:00Z' } : {}), ...(schedule.futureEnd && schedule.listing === 'orders' ? { createdTo: '2099-01-01T00:00:00Z' } : {}) };
		const result = await run(box, {
			resource: spec.resource,
			operation: 'getMany',
			...(spec.resource === 'consumption' ? { simplify: false } : {}),
			returnAll: schedule.limit === null,
			...(schedule.limit === null ? {} : { limit: schedule.limit }),
			filters,
			options: { pageSize: schedule.pageSize, pageConcurrency: schedule.concurrency, orderBy: sortFieldOf(schedule), orderDirection: schedule.direction },
		});
		read.out = result.json.map((row) => String(row.id));
		read.error = result.error?.message;
		read.requests = box.requests.count({ method: 'GET', path: spec.path });
	} finally {
		off();
		clearListing(box, schedule.listing, tag);
	}
	return read;
}

/** What the read broke of the listing's guarantee (docs/internals/listings.md), by the sandbox's records; empty when it held. */
function violations(schedule: Schedule, read: Read): string[] {
	const problems: string[] = [];
	if (read.error !== undefined) {
		if (schedule.limit !== null || !DOCUMENTED_ERROR.test(read.error)) problems.push(`failed: ${read.error}`);
		return problems;
	}
	const seen = new Set<string>();
	for (const id of read.out) {
		if (seen.has(id)) problems.push(`${id} returned twice`);
		seen.add(id);
	}
	// Rows added during the read may be listed where the listing has no time filter, or within page 1's second.
	const allowed = new Set(read.atPage1);
	for (const [id, stampedAt] of read.inserted) {
		if (!LISTINGS[schedule.listing].pinned || stampedAt <= read.page1Second + 999) allowed.add(id);
	}
	for (const id of read.out) if (!allowed.has(id)) problems.push(`${id} returned, not in the listing at page 1`);
	// Return All: every row that stayed, in order. A Limit: the rows that stayed come in order (docs/internals/listings.md: a
	// row moving up past a page already read, as another is added past the last page a Limit reads, is not seen).
	const stayed = read.atPage1.filter((id) => !read.deleted.has(id));
	const stayedOut = read.out.filter((id) => stayed.includes(id));
	const expected = schedule.limit === null ? stayed : stayed.filter((id) => stayedOut.includes(id));
	if (stayedOut.join() !== expected.join()) {
		const missing = expected.filter((id) => !seen.has(id));
		problems.push(`stayed rows: ${missing.length > 0 ? `missing ${missing.join(', ')}` : 'out of order'}`);
	}
	if (schedule.limit !== null && read.out.length > schedule.limit) problems.push(`${read.out.length} rows for a Limit of ${schedule.limit}`);
	if (read.log.length === 0) {
		const expectedQuiet = schedule.limit === null ? read.atPage1 : read.atPage1.slice(0, schedule.limit);
		if (read.out.join() !== expectedQuiet.join()) problems.push('a quiet listing read otherwise than it stands');
		if (read.requests !== pagesNeeded(schedule, schedule.size)) problems.push(`a quiet listing cost ${read.requests} requests for ${pagesNeeded(schedule, schedule.size)} pages`);
	}
	return problems;
}

afterAll(() => {
	const lines = [...tallies].map(
		([listing, t]) =>
			`${listing.padEnd(11)} schedules ${t.schedules}, violations ${t.violations} (${t.edited} with edits during the read: ${t.documentedFailures} failed with the documented error, ${t.editedExtraRequests} re-reads; ${t.quiet} quiet: ${t.quietExtraRequests} extra requests)`,
	);
	console.log(`Return All against generated schedules (seed ${SEED}, ${NUM_RUNS} runs):\n${lines.join('\n')}\nquiet listings, requests / pages: ${quietFigures.join('; ')}`);
});

it(`every paged listing, ${NUM_RUNS} generated schedules of edits between page reads: each row that stayed once, nothing outside the listing`, async () => {
	const box = sandbox();
	await fc.assert(
		fc.asyncProperty(scheduleArb(DRAWN), async (schedule) => {
			const read = await readUnderSchedule(box, schedule);
			const problems = violations(schedule, read);
			const tally = tallies.get(schedule.listing) as Tally;
			tally.schedules++;
			if (read.log.length > 0) {
				tally.edited++;
				tally.editedExtraRequests += read.requests - pagesNeeded(schedule, schedule.size);
			} else {
				tally.quiet++;
				tally.quietExtraRequests += read.requests - pagesNeeded(schedule, schedule.size);
			}
			if (read.error !== undefined && problems.length === 0) tally.documentedFailures++;
			if (problems.length > 0) {
				tally.violations++;
				throw new Error(`${problems.join('; ')}\nedits: ${read.log.join('; ')}\nreturned ${read.out.length} rows in ${read.requests} requests`);
			}
		}),
		{ numRuns: NUM_RUNS, seed: SEED, ...(PATH ? { path: PATH } : {}), endOnFailure: false },
	);
}, 600_000);

it.each(PAGED_LISTINGS)('a quiet %s listing costs one request per page and not one more', async (listing) => {
	const box = sandbox();
	for (const [size, pageSize, concurrency] of [[37, 5, 10], [50, 50, 1], [0, 10, 10]]) {
		const schedule: Schedule = { listing, size, pageSize, concurrency, sortField: 0, direction: 'desc', limit: null, futureEnd: false, steps: [] };
		const read = await readUnderSchedule(box, schedule);
		quietFigures.push(`${listing} ${size} rows by ${pageSize} ${read.requests} / ${pagesNeeded(schedule, size)}`);
		expect(read.out).toEqual(read.atPage1);
		expect(read.requests).toBe(pagesNeeded(schedule, size));
	}
});
