// The paged listings of the Ollang node as the generated listing tests see them: how a run's own listing is made in
// the sandbox, selected by the node's parameters, ordered as the API orders it, and edited between page reads.
import fc from 'fast-check';
import { sortBy } from '../../sandbox/api/common.cts';
import type { NewListingRow, PagedListing, Sandbox } from '../../sandbox/index.cts';

type Row = { id: string } & Record<string, unknown>;

export interface ListingSpec {
	resource: string;
	path: string;
	/** Sort fields the schedules draw from; the first is the rows' creation time. */
	sortFields: string[];
	/** The node pins the listing's time filter at page 1 (Consumption, Order); else it has none (Project, Folder). */
	pinned: boolean;
	/** The field whose value places a new row between two others (name or credits). */
	placeField: 'name' | 'creditsUsed';
	/** The rows of the run's listing (`tag`), unsorted, from the sandbox's records. */
	rows(box: Sandbox, tag: string): Row[];
	/** The node's filters that select the run's listing. */
	filters(tag: string): Record<string, unknown>;
}

const named = (rows: Iterable<{ id: string; name: string }>, tag: string): Row[] =>
	[...rows].filter((row) => row.name.includes(tag)) as unknown as Row[];

export const LISTINGS: Record<PagedListing, ListingSpec> = {
	consumption: {
		resource: 'consumption',
		path: '/integration/consumption',
		sortFields: ['occurredAt', 'creditsUsed', 'id'],
		pinned: true,
		placeField: 'creditsUsed',
		rows: (box, tag) => box.state.consumption.filter((line) => line.orderId === tag) as unknown as Row[],
		filters: (tag) => ({ orderId: tag }),
	},
	orders: {
		resource: 'order',
		path: '/integration/orders',
		sortFields: ['createdAt', 'name', 'id'],
		pinned: true,
		placeField: 'name',
		rows: (box, tag) => named(box.state.orders.values(), tag),
		filters: (tag) => ({ name: tag }),
	},
	projects: {
		resource: 'project',
		path: '/integration/project',
		sortFields: ['createdAt', 'name'],
		pinned: false,
		placeField: 'name',
		rows: (box, tag) => named(box.state.projects.values(), tag),
		filters: (tag) => ({ search: tag }),
	},
	folders: {
		resource: 'folder',
		path: '/integration/folder',
		sortFields: ['createdAt', 'name'],
		pinned: false,
		placeField: 'name',
		rows: (box, tag) => named(box.state.folders.values(), tag),
		filters: (tag) => ({ search: tag }),
	},
};

/** One edit: a row added next to, or the row removed at, `at` percent down the listing (0 head, 100 tail). */
export interface Edit {
	kind: 'insert' | 'delete';
	at: number;
}

/** The edits made after the listing's `afterPage`-th answered page; the clock moves `clockStepMs` first. */
export interface Step {
	afterPage: number;
	clockStepMs: 0 | 1000;
	edits: Edit[];
}

export interface Schedule {
	listing: PagedListing;
	size: number;
	pageSize: number;
	concurrency: number;
	sortField: number;
	direction: 'asc' | 'desc';
	/** null: Return All. */
	limit: number | null;
	/** Pinned listings: a To (Created Before) far in the future, else left empty. */
	futureEnd: boolean;
	steps: Step[];
}

const editArb: fc.Arbitrary<Edit> = fc.record({
	kind: fc.constantFrom('insert' as const, 'delete' as const),
	at: fc.oneof(fc.constantFrom(0, 100), fc.integer({ min: 0, max: 100 })),
});

const stepArb: fc.Arbitrary<Step> = fc.record({
	afterPage: fc.integer({ min: 1, max: 6 }),
	clockStepMs: fc.constantFrom(1000 as const, 0 as const),
	edits: fc.array(editArb, { minLength: 1, maxLength: 3 }),
});

/** Schedules over the given listings. */
export const scheduleArb = (listings: readonly PagedListing[]): fc.Arbitrary<Schedule> => fc.record({
	listing: fc.constantFrom(...listings),
	size: fc.integer({ min: 0, max: 60 }),
	pageSize: fc.oneof(fc.integer({ min: 1, max: 10 }), fc.constantFrom(25, 50)),
	concurrency: fc.constantFrom(1, 2, 10),
	sortField: fc.nat({ max: 2 }),
	direction: fc.constantFrom('desc' as const, 'asc' as const),
	limit: fc.option(fc.integer({ min: 1, max: 70 }), { freq: 3 }),
	futureEnd: fc.boolean(),
	steps: fc.array(stepArb, { maxLength: 4 }),
});

export function sortFieldOf(schedule: Schedule): string {
	const fields = LISTINGS[schedule.listing].sortFields;
	return fields[schedule.sortField % fields.length];
}

/** The run's listing as the API answers it now: its rows' ids in the drawn order (ties by id, as the API breaks them). */
export function listingNow(box: Sandbox, schedule: Schedule, tag: string): string[] {
	const field = sortFieldOf(schedule);
	return sortBy(LISTINGS[schedule.listing].rows(box, tag).slice(), (row) => row[field] as string | number, schedule.direction).map((row) => row.id);
}

/**
 * The run's own listing: `size` rows a second apart, all before now, whose names and credits do not follow their
 * times (so each sort field orders them differently). Consumption lines belong to a new order: its id is the tag.
 */
export function seedListing(box: Sandbox, listing: PagedListing, size: number, serial: number): string {
	const now = box.clock.now().getTime();
	const tag = listing === 'consumption' ? box.listings.add('orders', { name: `schedule ${serial}` }) : `run-${serial}-`;
	for (let index = 0; index < size; index++) {
		box.listings.add(listing, {
			name: `${tag}k${String((index * 7919) % 10007).padStart(5, '0')}`,
			orderId: tag,
			creditsUsed: 1 + ((index * 13) % 29),
			atMs: now - (size - index) * 1000,
		});
	}
	return tag;
}

/** Removes the run's listing (and the order of its lines), so every run starts from the same sandbox. */
export function clearListing(box: Sandbox, listing: PagedListing, tag: string): void {
	for (const row of LISTINGS[listing].rows(box, tag)) box.listings.remove(listing, row.id);
	if (listing === 'consumption') box.listings.remove('orders', tag);
}

/** The fields of a new row that land it next to `neighbour` in the drawn order (created now: time sorts put it at an end). */
export function rowNextTo(box: Sandbox, schedule: Schedule, tag: string, neighbour: string | undefined): NewListingRow {
	const spec = LISTINGS[schedule.listing];
	const row = neighbour === undefined ? undefined : spec.rows(box, tag).find((candidate) => candidate.id === neighbour);
	if (spec.placeField === 'creditsUsed') return { orderId: tag, creditsUsed: Number(row?.creditsUsed ?? 1) };
	return { name: `${String(row?.name ?? `${tag}k`)}+` };
}
