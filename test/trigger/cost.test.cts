// Requests per poll for an account of 1,000 orders (the sandbox's 'large' volume), counted in the sandbox's
// request log: list pages, plus one detail read per new or changed order, plus a fixed number of background
// checks that does not grow with the account.
import type { IDataObject } from 'n8n-workflow';
import { DEFAULT_RECHECK_PER_POLL } from '../../nodes/OllangTrigger/config';
import type { PollRunner } from '../harness/poll.cts';
import { itemsOf, orderEventParameters, triggerRunner, useSandbox } from './helpers.cts';

const sandbox = useSandbox({ volume: 'large', seed: 3 });

/** The default: what docs/internals/trigger.md's figures (30, 31 and 80 requests per poll) are measured with. */
const BACKGROUND_CHECKS = DEFAULT_RECHECK_PER_POLL;
const PAGE_SIZE = 50;

interface PollCost {
	list: number;
	detail: number;
	other: number;
	items: number;
}

async function measuredPoll(runner: PollRunner): Promise<PollCost> {
	sandbox().requests.reset();
	const items = itemsOf(await runner.poll());
	const list = sandbox().requests.count({ path: '/integration/orders' });
	const detail = sandbox().requests.count({ path: '/integration/orders/:orderId' });
	return { list, detail, other: sandbox().requests.count() - list - detail, items: items.length };
}

function watchedCount(runner: PollRunner): number {
	return Object.keys(runner.staticData.orders as IDataObject).length;
}

/** Moves `count` orders whose life can still go on to delivered (their listed status changes). */
function deliverOrders(count: number): string[] {
	const changed: string[] = [];
	for (const order of [...sandbox().state.orders.values()].sort((a, b) => a.id.localeCompare(b.id))) {
		if (changed.length === count) break;
		if (order.status === 'delivered' || !order.logsEvents) continue;
		try {
			sandbox().simulate.advanceOrderTo(order.id, 'delivered');
		} catch {
			continue; // parked in a status its life never leaves (revision, delayed, readyToSent)
		}
		changed.push(order.id);
	}
	expect(changed).toHaveLength(count);
	return changed;
}

it('costs list pages plus a fixed number of background checks, plus one read per changed order', async () => {
	const runner = triggerRunner(sandbox(), orderEventParameters({ lookbackDays: 365 }));
	sandbox().requests.reset();
	expect(await runner.poll()).toBeNull();
	const watched = watchedCount(runner);
	expect(watched).toBe(1_000);
	const pages = Math.ceil(watched / PAGE_SIZE);
	// Activation: one light request for the service's clock, the list pages, the first background checks.
	expect(sandbox().requests.count()).toBe(1 + pages + BACKGROUND_CHECKS);

	// A minute later (events stamped now come after the baseline); what that minute changed is read first.
	sandbox().clock.advance(1);
	await runner.poll();
	const costs: Record<string, PollCost> = {};
	costs['0 changed'] = await measuredPoll(runner);
	expect(costs['0 changed']).toEqual({ list: pages, detail: BACKGROUND_CHECKS, other: 0, items: 0 });

	deliverOrders(1);
	costs['1 changed'] = await measuredPoll(runner);
	expect(costs['1 changed']).toMatchObject({ list: pages, detail: BACKGROUND_CHECKS + 1, other: 0 });
	expect(costs['1 changed'].items).toBeGreaterThan(0);

	deliverOrders(50);
	costs['50 changed'] = await measuredPoll(runner);
	expect(costs['50 changed']).toMatchObject({ list: pages, detail: BACKGROUND_CHECKS + 50, other: 0 });
	expect(costs['50 changed'].items).toBeGreaterThanOrEqual(50);

	if (process.env.TRIGGER_COST_REPORT) {
		const requests = Object.fromEntries(
			Object.entries(costs).map(([label, cost]) => [label, cost.list + cost.detail + cost.other]),
		);
		console.log({ watched, pages, backgroundChecks: BACKGROUND_CHECKS, costs, requests });
	}
});

it('the background checks do not grow with the account: the same number for a 14-day and a 365-day window', async () => {
	const small = triggerRunner(sandbox(), orderEventParameters({ lookbackDays: 14 }), { nodeName: 'Small window' });
	const large = triggerRunner(sandbox(), orderEventParameters({ lookbackDays: 365 }), { nodeName: 'Large window' });
	await small.poll();
	await large.poll();
	const windowStart = sandbox().clock.now().getTime() - 14 * 86_400_000;
	const inWindow = [...sandbox().state.orders.values()].filter((order) => Date.parse(order.createdAt) >= windowStart);
	expect(watchedCount(small)).toBe(inWindow.length);
	// Both windows hold more orders than one poll checks, and they differ in size.
	expect(watchedCount(small)).toBeGreaterThan(BACKGROUND_CHECKS);
	expect(watchedCount(large)).toBeGreaterThan(watchedCount(small));

	const smallCost = await measuredPoll(small);
	const largeCost = await measuredPoll(large);
	expect(smallCost).toEqual({ list: Math.ceil(watchedCount(small) / PAGE_SIZE), detail: BACKGROUND_CHECKS, other: 0, items: 0 });
	expect(largeCost).toEqual({ list: Math.ceil(watchedCount(large) / PAGE_SIZE), detail: BACKGROUND_CHECKS, other: 0, items: 0 });
	expect(largeCost.detail).toBe(smallCost.detail);
	if (process.env.TRIGGER_COST_REPORT) {
		console.log({ '14 days': { watched: watchedCount(small), cost: smallCost }, '365 days': { watched: watchedCount(large), cost: largeCost } });
	}
});

it('Specific Orders: every given order is read on every poll, even more of them than the background count', async () => {
	const orderIds = [...sandbox().state.orders.keys()].sort().slice(0, BACKGROUND_CHECKS + 5);
	// The per-poll option is hidden in this mode (n8n drops it): the user bounds the list of ids instead.
	const runner = triggerRunner(sandbox(), orderEventParameters({ watch: 'orderIds', orderIds }), { nodeName: 'Given orders' });
	await runner.poll();
	for (let poll = 0; poll < 2; poll++) {
		expect(await measuredPoll(runner)).toEqual({ list: 0, detail: orderIds.length, other: 0, items: 0 });
	}
});
