import { addConsumptionLine } from './domain/orderBilling.cts';
import { stageRuns } from './domain/catalog.cts';
import { createSimulate } from './simulate.cts';
import type { OrderRecord, UserRecord } from './types.cts';
import type { World } from './world.cts';

/**
 * Listings that grow while a client reads them, as the real service's do while the account is in use (an order's
 * AI run finishing adds consumption lines; users create orders): after each answered page of a listing, new rows
 * arrive at its head. Off by default (all counts 0).
 */
export interface ListingGrowth {
	/** New consumption lines after each answered page of GET /integration/consumption. */
	consumption: number;
	/** New orders (pending, in the writable folder) after each answered page of GET /integration/orders. */
	orders: number;
	/**
	 * How far the clock moves before each batch, in ms (default 1000: the new rows are stamped past the answer's
	 * Date header, whose resolution is a second). 0: the clock stands still, so the new rows carry the answer's own
	 * time, as a service whose clock and data disagree would show them.
	 */
	clockStepMs: number;
	/** Batches left before the growth stops (each answered page of a growing listing is one); null: no end. */
	batches: number | null;
}

export const NO_GROWTH: ListingGrowth = { consumption: 0, orders: 0, clockStepMs: 1000, batches: null };

export type GrowingListing = 'consumption' | 'orders';

/** Checks and applies a (partial) growth setting; answers the whole setting. */
export function setListingGrowth(world: World, growth: Partial<ListingGrowth>): ListingGrowth {
	for (const [name, value] of Object.entries(growth)) {
		if (value !== undefined && value !== null && !(Number.isInteger(value) && value >= 0)) {
			throw new RangeError(`listing growth: ${name} must be a whole number >= 0, got ${String(value)}`);
		}
	}
	world.growth = { ...world.growth, ...Object.fromEntries(Object.entries(growth).filter(([, value]) => value !== undefined)) };
	return { ...world.growth };
}

/** Called by a listing's handler once its page is built: the rows that arrive before the client's next request. */
export function growAfterPage(world: World, listing: GrowingListing): void {
	const count = world.growth[listing];
	if (count === 0 || world.growth.batches === 0) return;
	if (world.growth.batches !== null) world.growth.batches--;
	if (world.growth.clockStepMs > 0) world.clock.advanceTo(world.clock.nowMillis() + world.growth.clockStepMs);
	if (listing === 'orders') {
		createSimulate(world).createOrders(count);
		return;
	}
	const orders = [...world.state.orders.values()];
	for (let index = 0; index < count; index++) {
		// Round-robin over the orders and their provider runs: deterministic, and no draw from the seeded RNGs.
		const serial = world.state.consumption.length;
		const order = orders[serial % orders.length] as OrderRecord;
		const runs = stageRuns('aiDelivered', order.type);
		const requestor = world.state.users.get(order.requestorId) as UserRecord;
		addConsumptionLine(world, order, requestor, 1 + (serial % 40), runs[serial % runs.length]);
	}
}
