// Rows added to and removed from the paged listings, as the account's other users add and delete them while a
// client reads the pages (the generated listing tests: test/node/consistentListingSchedules.test.cts).
import { forgetConsumptionViews } from './api/billing.cts';
import { stageRuns } from './domain/catalog.cts';
import { addConsumptionLine } from './domain/orderBilling.cts';
import { createProject } from './domain/projects.cts';
import { createSimulate } from './simulate.cts';
import { onListingPage, type PageHook, type PagedListing } from './pageHooks.cts';
import type { OrderRecord, UserRecord } from './types.cts';
import type { World } from './world.cts';

/** What a new row carries: its name (orders, projects, folders), its order and credits (consumption lines). */
export interface NewListingRow {
	name?: string;
	/** Consumption: the order the line is for (required). */
	orderId?: string;
	creditsUsed?: number;
	/** Its creation time (default: the sandbox's now); earlier times make rows that were there before a read. */
	atMs?: number;
}

export interface ListingEdits {
	/** Runs `hook` after each answered page of the listing; answers a function that removes it. */
	onPage(listing: PagedListing, hook: PageHook): () => void;
	/** Adds one row; answers its id. */
	add(listing: PagedListing, row: NewListingRow): string;
	/** Removes a row by id; answers whether it was there. */
	remove(listing: PagedListing, id: string): boolean;
}

function iso(atMs: number): string {
	return new Date(atMs).toISOString();
}

function addLine(world: World, row: NewListingRow, atMs: number): string {
	const order = world.state.orders.get(row.orderId ?? '');
	if (order === undefined) throw new Error(`listing edits: a consumption line needs an existing orderId, got ${String(row.orderId)}`);
	const requestor = world.state.users.get(order.requestorId) as UserRecord;
	addConsumptionLine(world, order, requestor, row.creditsUsed ?? 1, stageRuns('aiDelivered', order.type)[0], atMs);
	return (world.state.consumption.at(-1) as { id: string }).id;
}

function addOrder(world: World, row: NewListingRow, atMs: number): string {
	const [order] = createSimulate(world).createOrders(1, { progress: false }) as [OrderRecord];
	order.name = row.name ?? order.name;
	order.createdAt = iso(atMs);
	return order.id;
}

function addProject(world: World, row: NewListingRow, atMs: number): string {
	const project = createProject(world, {
		name: row.name ?? 'Listing edit',
		folderId: world.fixtures.folders.writable,
		sourceLanguage: 'en',
		fileName: 'clip.mp4',
		size: 1_000_000,
	});
	project.createdAt = iso(atMs);
	return project.id;
}

function addFolder(world: World, row: NewListingRow, atMs: number): string {
	const id = world.ids.next(atMs);
	world.state.folders.set(id, { id, name: row.name ?? 'Listing edit', createdAt: iso(atMs), hexColor: '#B6B6B6', type: 'default' });
	return id;
}

function removeLine(world: World, id: string): boolean {
	const index = world.state.consumption.findIndex((line) => line.id === id);
	if (index < 0) return false;
	world.state.consumption.splice(index, 1);
	forgetConsumptionViews(world.state.consumption);
	return true;
}

export function createListingEdits(world: World): ListingEdits {
	const adders = { consumption: addLine, orders: addOrder, projects: addProject, folders: addFolder };
	return {
		onPage: (listing, hook) => onListingPage(world, listing, hook),
		add: (listing, row) => adders[listing](world, row, row.atMs ?? world.clock.nowMillis()),
		remove: (listing, id) => {
			if (listing === 'consumption') return removeLine(world, id);
			return world.state[listing].delete(id);
		},
	};
}
