// Where an edit starts what it newly watches: from when the last poll before it began to look, not from its last
// answer. Found in a real n8n (2.41, durable cursors, an edit published during a slow poll): the poll before the edit
// listed the orders, then read details for seconds while the service's clock moved on and new orders were created;
// the edit took the time of that poll's last answer as "the last poll", so the orders created after its listing (new
// to both configurations) counted as history and their events were never emitted. Here the same order of things
// is made exact: the detail reads of one poll wait until the test has moved the clock and created orders.
import { EventLedger, itemsOf, orderEventParameters, triggerRunner, useSandbox } from './helpers.cts';

const sandbox = useSandbox({ seed: 31 });

afterEach(() => {
	sandbox().faults.clear();
});

/** Waits (real time) until `done` holds; the sandbox answers on its own event loop turns. */
async function until(what: string, done: () => boolean): Promise<void> {
	for (let waited = 0; !done(); waited += 20) {
		if (waited > 10_000) throw new Error(`timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

describe('an edit right after a poll that kept reading while new orders came', () => {
	it.each([
		['an event type added', { eventTypes: ['ai_delivered', 'order_delivered'] }],
		['the look-back days changed', { lookbackDays: 30 }],
	])('%s: the orders created after that poll listed are new to the edited trigger, every event once', async (_label, edit) => {
		const target = sandbox();
		const before = orderEventParameters({ eventTypes: ['ai_delivered'], lookbackDays: 7, options: { recheckPerPoll: 50 } });
		const runner = triggerRunner(target, before, { nodeName: 'Edit boundary' });
		expect(await runner.poll()).toBeNull();
		const ledger = new EventLedger(target);
		// Orders the trigger watches before the edit: their detail reads are what the slow poll spends its time on.
		target.clock.advance(1);
		target.simulate.createOrders(3, { type: 'document', level: 0, status: 'delivered', progress: false });
		target.clock.advance(1);
		ledger.record(itemsOf(await runner.poll()));
		expect(ledger.emitted.size).toBe(3);

		// The poll before the edit: its listing answers at once, its detail reads wait 400 ms each, and meanwhile the
		// service's time moves on and new orders are AI-delivered.
		target.clock.advance(1);
		target.faults.add({ kind: 'delay', delayMs: 400, path: '/integration/orders/:orderId' });
		const listings = () => target.requests.count({ method: 'GET', path: '/integration/orders' });
		const listedBefore = listings();
		const polling = runner.poll();
		await until('the listing of the poll before the edit', () => listings() > listedBefore);
		target.clock.advance(1);
		const late = target.simulate.createOrders(2, { type: 'document', level: 0, status: 'delivered', progress: false });
		target.clock.advance(1);
		ledger.record(itemsOf(await polling));
		target.faults.clear();
		// That poll listed before the late orders existed: it could not emit them.
		expect(late.some((order) => [...ledger.emitted.keys()].some((id) => id.startsWith(order.id)))).toBe(false);

		// The edit, then polls of the new configuration.
		runner.setParameters({ ...before, ...edit });
		target.clock.advance(1);
		for (let poll = 0; poll < 2; poll++) {
			ledger.record(itemsOf(await runner.poll()));
			target.clock.advance(1);
		}
		const aiDelivered = (orderId: string) =>
			(target.state.orders.get(orderId)?.deliveryEvents ?? []).flatMap((event, index) => (event.type === 'ai_delivered' ? [`${orderId}:${index}`] : []));
		for (const order of late) {
			for (const eventId of aiDelivered(order.id)) expect({ eventId, emitted: ledger.emitted.has(eventId) }).toEqual({ eventId, emitted: true });
		}
		// The ledger has checked every emitted item as it arrived: a real event of the sandbox, none twice.
	});
});
