// The trigger's window listing while orders are created during a poll (issue 28): the listing is read as it stood
// at its first page, so no watched order is pushed past the last page (and read again as "gone"), and the orders
// created meanwhile are taken up by the next poll, their events emitted once.
import { DEFAULT_RECHECK_PER_POLL } from '../../nodes/OllangTrigger/config';
import { itemsOf, orderEventParameters, triggerRunner, useSandbox, watchedOrderIds } from './helpers.cts';

const sandbox = useSandbox({ volume: 'large', seed: 5 });
const PAGE_SIZE = 50;

it('orders created while a poll lists its window: every listed order once, no extra read, the new ones in the next poll', async () => {
	const runner = triggerRunner(sandbox(), orderEventParameters({ lookbackDays: 365 }));
	expect(await runner.poll()).toBeNull();
	const before = [...sandbox().state.orders.keys()].sort();
	expect(watchedOrderIds(runner).sort()).toEqual(before);
	sandbox().clock.advance(1);
	await runner.poll();

	// 3 new orders after each answered page of the listing (a second later each time).
	sandbox().setListingGrowth({ orders: 3 });
	sandbox().requests.reset();
	await runner.poll();
	sandbox().setListingGrowth({ orders: 0 });
	const pages = Math.ceil(before.length / PAGE_SIZE);
	const created = [...sandbox().state.orders.keys()].filter((id) => !before.includes(id));

	expect(created).toHaveLength(3 * pages);
	// Every order of the window as of the first page is still watched; none was pushed out and read as "gone".
	expect(watchedOrderIds(runner).sort()).toEqual(before);
	expect(sandbox().requests.count({ path: '/integration/orders' })).toBe(pages);
	expect(sandbox().requests.count({ path: '/integration/orders/:orderId' })).toBe(DEFAULT_RECHECK_PER_POLL);

	// The next poll takes up the orders created during the previous one; one of them is delivered and its events emitted.
	const [delivered] = created;
	sandbox().simulate.advanceOrderTo(delivered, 'delivered');
	const items = itemsOf(await runner.poll());
	expect(watchedOrderIds(runner).sort()).toEqual([...before, ...created].sort());
	const events = items.filter((item) => item.orderId === delivered).map((item) => item.eventId);
	const order = sandbox().state.orders.get(delivered);
	expect(events).toEqual(order?.deliveryEvents.map((_event, index) => `${delivered}:${index}`));
	expect(events.length).toBeGreaterThan(0);
	// And never again.
	expect(itemsOf(await runner.poll()).filter((item) => item.orderId === delivered)).toEqual([]);
});
