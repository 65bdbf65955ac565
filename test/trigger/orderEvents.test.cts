// The Order Delivery Event through the real poll() (n8n-core PollContext) against the sandbox over loopback HTTP.
import type { IDataObject } from 'n8n-workflow';
import { DEFAULT_RECHECK_PER_POLL } from '../../nodes/OllangTrigger/config';
import { AI_ACTOR_ID } from '../../sandbox/index.cts';
import type { PollRunner } from '../harness/poll.cts';
import {
	ALL_EVENT_TYPES,
	EventLedger,
	backgroundRounds,
	baselineOf,
	expectedEvents,
	itemsOf,
	orderEventParameters,
	triggerRunner,
	useSandbox,
	watchedOrderIds,
} from './helpers.cts';

const sandbox = useSandbox({ seed: 7 });

/** Polls without moving the clock, recording what comes out. */
async function pollTimes(runner: PollRunner, ledger: EventLedger, times: number): Promise<number> {
	let items = 0;
	for (let poll = 0; poll < times; poll++) {
		const emitted = itemsOf(await runner.poll());
		ledger.record(emitted);
		items += emitted.length;
	}
	return items;
}

function deliveredOrderIds(): string[] {
	return [...sandbox().state.orders.values()]
		.filter((order) => order.status === 'delivered' && order.deliveryEvents.length > 0)
		.map((order) => order.id);
}

describe('first activation', () => {
	it('starts from now: existing history is not emitted, later events are, each once', async () => {
		const historyBefore = [...sandbox().state.orders.values()].reduce((sum, order) => sum + order.deliveryEvents.length, 0);
		expect(historyBefore).toBeGreaterThan(20);
		const perPoll = 20;
		const runner = triggerRunner(sandbox(), orderEventParameters({ options: { recheckPerPoll: perPoll } }));
		expect(await runner.poll()).toBeNull();
		// "Now" is the service's clock (its Date header, to the second), not this machine's.
		expect(baselineOf(runner)).toBe(Math.floor(sandbox().clock.now().getTime() / 1000) * 1000);
		const ledger = new EventLedger(sandbox());
		expect(await pollTimes(runner, ledger, 4)).toBe(0);

		sandbox().simulate.createOrders(4, { level: 1 });
		sandbox().simulate.createOrders(4, { level: 0 });
		for (let step = 0; step < 12; step++) {
			sandbox().clock.advance(20);
			ledger.record(itemsOf(await runner.poll()));
		}
		// Events that changed no listed status (re-deliveries) are found once the background checks reach them.
		await pollTimes(runner, ledger, backgroundRounds(runner, perPoll));
		const expected = expectedEvents(sandbox(), baselineOf(runner));
		expect(expected.size).toBeGreaterThanOrEqual(16);
		ledger.expectExactly(expected);
	});

	it('emits items with the event, a stable event id and the order fields', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters());
		await runner.poll();
		const [order] = sandbox().simulate.createOrders(1, { level: 0, type: 'document' });
		sandbox().clock.advance(60);
		const items = itemsOf(await runner.poll()).filter((item) => item.orderId === order.id);
		expect(items.map((item) => item.type)).toEqual(['ai_delivered', 'order_delivered']);
		const [first] = items;
		expect(Object.keys(first).sort()).toEqual(
			['actorId', 'actorType', 'eventId', 'eventIndex', 'occurredAt', 'order', 'orderId', 'type'].sort(),
		);
		expect(first).toMatchObject({
			eventId: `${order.id}:0`,
			eventIndex: 0,
			occurredAt: order.deliveryEvents[0].occurredAt,
			actorType: 'ai',
			actorId: AI_ACTOR_ID,
		});
		expect(first.order).toEqual({
			id: order.id,
			name: order.name,
			type: 'document',
			status: order.status,
			level: 0,
			sourceLanguage: order.sourceLanguage,
			targetLanguage: order.targetLanguage,
			folderId: order.folderId,
			projectId: order.projectId,
			createdAt: order.createdAt,
		});
	});

	it('with "Include Existing Events", the first poll emits the history of watched orders, later polls nothing again', async () => {
		const runner = triggerRunner(
			sandbox(),
			orderEventParameters({ lookbackDays: 20, options: { emitExisting: true, recheckPerPoll: 5 } }),
		);
		const ledger = new EventLedger(sandbox());
		ledger.record(itemsOf(await runner.poll()));
		// Long enough for the background checks to re-read every watched order at least once.
		await pollTimes(runner, ledger, Math.max(3, backgroundRounds(runner, 5)));
		const windowStart = sandbox().clock.now().getTime() - 20 * 86_400_000;
		const expected = expectedEvents(sandbox(), 0, ALL_EVENT_TYPES, (order) => Date.parse(order.createdAt) >= windowStart);
		expect(expected.size).toBeGreaterThan(0);
		ledger.expectExactly(expected);
	});
});

describe('what is watched', () => {
	it('emits only the chosen event types; the others are consumed and never emitted later', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters({ eventTypes: ['order_delivered'] }));
		await runner.poll();
		const orders = sandbox().simulate.createOrders(3, { level: 1 });
		const ledger = new EventLedger(sandbox());
		for (let step = 0; step < 8; step++) {
			sandbox().clock.advance(30);
			ledger.record(itemsOf(await runner.poll()));
		}
		const ids = new Set(orders.map((order) => order.id));
		const emitted = [...ledger.emitted.values()].filter((item) => ids.has(String(item.orderId)));
		expect(emitted.map((item) => item.type)).toEqual(['order_delivered', 'order_delivered', 'order_delivered']);
		ledger.expectExactly(expectedEvents(sandbox(), baselineOf(runner), ['order_delivered']));
	});

	it('a status filter watches orders in that status, and still emits the event found as an order leaves it', async () => {
		// Level 0: ongoing -> (ai_delivered) completed -> (order_delivered) delivered.
		const runner = triggerRunner(sandbox(), orderEventParameters({ filters: { statuses: ['ongoing'] } }));
		await runner.poll();
		const orders = sandbox().simulate.createOrders(3, { level: 0, type: 'document' });
		sandbox().clock.advance(2);
		expect(itemsOf(await runner.poll()).filter((item) => orders.some((order) => order.id === item.orderId))).toEqual([]);
		sandbox().clock.advance(12);
		const items = itemsOf(await runner.poll()).filter((item) => orders.some((order) => order.id === item.orderId));
		expect(items.map((item) => [item.orderId, item.type])).toEqual(orders.map((order) => [order.id, 'ai_delivered']));
		expect(items.map((item) => (item.order as IDataObject).status)).toEqual(['completed', 'completed', 'completed']);
		sandbox().clock.advance(30);
		const later = itemsOf(await runner.poll());
		expect(later.filter((item) => orders.some((order) => order.id === item.orderId))).toEqual([]);
		expect(orders.every((order) => order.status === 'delivered')).toBe(true);
	});

	it('a folder and type filter leave out orders of other folders and types', async () => {
		const { folders, projects } = sandbox().fixtures;
		const runner = triggerRunner(
			sandbox(),
			orderEventParameters({
				filters: { folderId: { __rl: true, mode: 'id', value: folders.readOnlyForMember }, types: ['document', 'cc'] },
			}),
		);
		await runner.poll();
		const inFolder = sandbox().simulate.createOrders(2, { level: 0, type: 'document', projectId: projects.readOnlyForMember });
		const otherFolder = sandbox().simulate.createOrders(2, { level: 0, type: 'document', projectId: projects.writable });
		const otherType = sandbox().simulate.createOrders(1, { level: 0, type: 'subtitle', projectId: projects.readOnlyForMember });
		sandbox().clock.advance(60);
		const ledger = new EventLedger(sandbox());
		ledger.record(itemsOf(await runner.poll()));
		const seenOrders = new Set([...ledger.emitted.values()].map((item) => item.orderId));
		for (const order of inFolder) expect(seenOrders.has(order.id)).toBe(true);
		for (const order of [...otherFolder, ...otherType]) expect(seenOrders.has(order.id)).toBe(false);
		ledger.expectExactly(
			expectedEvents(
				sandbox(),
				baselineOf(runner),
				ALL_EVENT_TYPES,
				(order) => order.folderId === folders.readOnlyForMember && ['document', 'cc'].includes(order.type),
			),
		);
	});

	it('Specific Orders: only the given ids; an added one is watched from the last poll, a removed one drops its cursor', async () => {
		const [first, second, third] = sandbox().simulate.createOrders(3, { level: 1, type: 'document' });
		sandbox().clock.advance(1);
		const runner = triggerRunner(sandbox(), orderEventParameters({ watch: 'orderIds', orderIds: `${first.id}, ${second.id}` }));
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		sandbox().clock.advance(30);
		ledger.record(itemsOf(await runner.poll()));
		expect(new Set([...ledger.emitted.values()].map((item) => item.orderId))).toEqual(new Set([first.id, second.id]));
		const since = baselineOf(runner);

		const switchedAt = sandbox().clock.now().getTime();
		runner.setParameters(orderEventParameters({ watch: 'orderIds', orderIds: [first.id, third.id] }));
		sandbox().clock.advance(200);
		ledger.record(itemsOf(await runner.poll()));
		expect(baselineOf(runner)).toBe(since);
		expect(Object.keys(runner.staticData.orders as IDataObject).sort()).toEqual([first.id, third.id].sort());
		const expected = expectedEvents(sandbox(), since, ALL_EVENT_TYPES, (order) => order.id === first.id);
		// The added order's events count from the last poll before it was added (its first one is history).
		const added = expectedEvents(sandbox(), switchedAt, ALL_EVENT_TYPES, (order) => order.id === third.id);
		expect(third.deliveryEvents.length).toBeGreaterThan(added.size);
		for (const [eventId, event] of added) expected.set(eventId, event);
		// The removed order's events count up to its removal.
		for (const [eventId, event] of expectedEvents(sandbox(), since, ALL_EVENT_TYPES, (order) => order.id === second.id)) {
			if (Date.parse(event.occurredAt) <= switchedAt) expected.set(eventId, event);
		}
		ledger.expectExactly(expected);
	});

	it('a given order id that does not exist fails the poll with an error naming it; the others keep their place', async () => {
		const [order] = sandbox().simulate.createOrders(1, { level: 0 });
		const missing = 'ffffffffffffffffffffffff';
		const runner = triggerRunner(sandbox(), orderEventParameters({ watch: 'orderIds', orderIds: order.id }));
		await runner.poll();
		sandbox().clock.advance(60);
		runner.setParameters(orderEventParameters({ watch: 'orderIds', orderIds: `${order.id}\n${missing}` }));
		const before = JSON.stringify(runner.staticData);
		await expect(runner.poll()).rejects.toThrow(`Invalid Order IDs: ${missing}`);
		expect(JSON.stringify(runner.staticData)).toBe(before);
		runner.setParameters(orderEventParameters({ watch: 'orderIds', orderIds: order.id }));
		const items = itemsOf(await runner.poll());
		expect(items.map((item) => item.eventId)).toEqual(order.deliveryEvents.map((_, index) => `${order.id}:${index}`));
	});
});

describe('background checks', () => {
	it('finds a re-delivery that changes no status within ceil(watched / per poll) polls, once', async () => {
		const perPoll = 4;
		const runner = triggerRunner(sandbox(), orderEventParameters({ options: { recheckPerPoll: perPoll } }));
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		await pollTimes(runner, ledger, 2);
		const delivered = deliveredOrderIds().slice(0, 3);
		expect(delivered).toHaveLength(3);
		sandbox().clock.advance(1);
		for (const orderId of delivered) sandbox().simulate.appendDeliveryEvent(orderId, 'order_delivered');
		const bound = backgroundRounds(runner, perPoll);
		// More than one poll: the background checks, not a read of every order, find the re-deliveries.
		expect(bound).toBeGreaterThan(1);
		let polls = 0;
		const found = () => delivered.filter((orderId) => [...ledger.emitted.values()].some((item) => item.orderId === orderId));
		while (found().length < delivered.length && polls < bound + 1) {
			ledger.record(itemsOf(await runner.poll()));
			polls++;
		}
		expect(found()).toEqual(delivered);
		expect(polls).toBeLessThanOrEqual(bound);
		await pollTimes(runner, ledger, bound);
		ledger.expectExactly(expectedEvents(sandbox(), baselineOf(runner)));
	});

	it('reads the same number of orders in the background every poll, and every watched order within the bound', async () => {
		const perPoll = 7;
		const runner = triggerRunner(sandbox(), orderEventParameters({ options: { recheckPerPoll: perPoll } }));
		await runner.poll();
		await runner.poll();
		const watched = watchedOrderIds(runner);
		expect(watched.length).toBeGreaterThan(perPoll);
		const bound = backgroundRounds(runner, perPoll);
		const read = new Set<string>();
		const perPollReads: number[] = [];
		for (let poll = 0; poll < bound; poll++) {
			sandbox().requests.reset();
			expect(await runner.poll()).toBeNull();
			const paths = sandbox()
				.requests.log.filter((request) => request.route === '/integration/orders/:orderId')
				.map((request) => request.path);
			perPollReads.push(paths.length);
			for (const path of paths) read.add(decodeURIComponent(path.slice(path.lastIndexOf('/') + 1)));
		}
		expect(perPollReads).toEqual(Array.from({ length: bound }, () => perPoll));
		expect(watched.filter((orderId) => !read.has(orderId))).toEqual([]);
	});
});

describe('state', () => {
	it('drops the cursors of orders that leave the watch window, and stays small', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters({ lookbackDays: 2 }));
		await runner.poll();
		const created = sandbox().simulate.createOrders(5, { level: 0 });
		sandbox().clock.advance(60);
		await runner.poll();
		const cursors = () => Object.keys(runner.staticData.orders as IDataObject);
		for (const order of created) expect(cursors()).toContain(order.id);
		sandbox().clock.advance(3 * 24 * 60);
		await runner.poll();
		await runner.poll();
		for (const order of created) expect(cursors()).not.toContain(order.id);
		const windowStart = sandbox().clock.now().getTime() - 2 * 86_400_000;
		const inWindow = [...sandbox().state.orders.values()].filter((order) => Date.parse(order.createdAt) >= windowStart - 3_600_000);
		expect(cursors().length).toBeLessThanOrEqual(inWindow.length);
	});

	it('a workflow saved with the previous option (recheckCycle) keeps its place; the per-poll count resets nothing', async () => {
		const detailReads = async (runner: PollRunner) => {
			sandbox().requests.reset();
			expect(await runner.poll()).toBeNull();
			return sandbox().requests.count({ path: '/integration/orders/:orderId' });
		};
		// As the previous version saved it: an option this version no longer has.
		const runner = triggerRunner(sandbox(), orderEventParameters({ options: { recheckCycle: 60 } }));
		await runner.poll();
		const since = baselineOf(runner);
		expect(await detailReads(runner)).toBe(DEFAULT_RECHECK_PER_POLL);
		runner.setParameters(orderEventParameters({ options: { recheckPerPoll: 3 } }));
		expect(await detailReads(runner)).toBe(3);
		expect(baselineOf(runner)).toBe(since);
	});

	it('an edit of the event types: the kept type goes on, the added one starts from the last poll; re-activating unchanged keeps every cursor', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters({ eventTypes: ['ai_delivered'] }));
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		// Level 1 document: ai_delivered at 11 min, translator_delivered 136, lsp_approved 166, order_delivered 181.
		const orders = sandbox().simulate.createOrders(2, { level: 1, type: 'document' });
		sandbox().clock.advance(5);
		ledger.record(itemsOf(await runner.poll()));
		const since = baselineOf(runner);

		// Saved again unchanged (a re-activation): same baseline, and no cursor moves back or disappears.
		const cursorsBefore = runner.staticData.orders as Record<string, number[]>;
		runner.setParameters(orderEventParameters({ eventTypes: ['ai_delivered'] }));
		expect(itemsOf(await runner.poll())).toEqual([]);
		expect(baselineOf(runner)).toBe(since);
		const cursorsAfter = runner.staticData.orders as Record<string, number[]>;
		expect(Object.keys(cursorsAfter).sort()).toEqual(Object.keys(cursorsBefore).sort());
		for (const [orderId, cursor] of Object.entries(cursorsBefore)) {
			expect(cursorsAfter[orderId][0]).toBeGreaterThanOrEqual(cursor[0]);
		}

		// ai_delivered (watched before and after) and translator_delivered (added) happen after the last poll and
		// before the edit's first poll: both come out once. lsp_approved happens after the edit.
		sandbox().clock.advance(140);
		runner.setParameters(orderEventParameters({ eventTypes: ['ai_delivered', 'translator_delivered', 'lsp_approved'] }));
		ledger.record(itemsOf(await runner.poll()));
		sandbox().clock.advance(60);
		ledger.record(itemsOf(await runner.poll()));
		for (const order of orders) {
			const emitted = [...ledger.emitted.values()].filter((item) => item.orderId === order.id).map((item) => item.type);
			expect(emitted).toEqual(['ai_delivered', 'translator_delivered', 'lsp_approved']);
		}

		// order_delivered (at 181 min) was before the last poll: history for the type added now. A re-delivery
		// after that poll is not.
		runner.setParameters(orderEventParameters({ eventTypes: ALL_EVENT_TYPES }));
		sandbox().clock.advance(10);
		const redelivered = sandbox().simulate.appendDeliveryEvent(orders[0].id, 'order_delivered');
		const ours = new Set(orders.map((order) => order.id));
		const items: IDataObject[] = [];
		// Clock still: the background checks reach every watched order within these polls.
		for (let round = backgroundRounds(runner, 10) + 1; round >= 0; round--) {
			items.push(...itemsOf(await runner.poll()).filter((item) => ours.has(String(item.orderId))));
		}
		expect(items.map((item) => [item.orderId, item.type, item.occurredAt])).toEqual([[orders[0].id, 'order_delivered', redelivered.occurredAt]]);
	});
});

describe('Fetch Test Event (manual mode)', () => {
	it('returns the most recent matching event and moves no cursor', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters({ eventTypes: ['order_delivered'] }));
		await runner.poll();
		const [order] = sandbox().simulate.createOrders(1, { level: 0 });
		sandbox().clock.advance(60);
		const saved = JSON.stringify(runner.savedStaticData);
		const active = JSON.stringify(runner.staticData);
		runner.setMode('manual');
		const [sample] = itemsOf(await runner.poll());
		// The candidates: order_delivered events of the 10 newest orders.
		const newest = [...sandbox().state.orders.values()]
			.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
			.slice(0, 10);
		const latest = Math.max(
			...newest.flatMap((candidate) =>
				candidate.deliveryEvents.filter((event) => event.type === 'order_delivered').map((event) => Date.parse(event.occurredAt)),
			),
		);
		expect(sample.type).toBe('order_delivered');
		expect(Date.parse(String(sample.occurredAt))).toBe(latest);
		expect(JSON.stringify(runner.savedStaticData)).toBe(saved);
		expect(JSON.stringify(runner.staticData)).toBe(active);
		runner.setMode('trigger');
		const items = itemsOf(await runner.poll());
		expect(items.map((item) => item.eventId)).toContain(`${order.id}:1`);
	});

	it('says clearly when no event matches', async () => {
		const runner = triggerRunner(
			sandbox(),
			orderEventParameters({ filters: { statuses: ['pending'] }, eventTypes: ['lsp_approved'] }),
			{ mode: 'manual' },
		);
		await expect(runner.poll()).rejects.toThrow('No lsp_approved event found');
	});
});
