// Requests per poll for an account of 1,000 orders (the sandbox's 'large' volume), counted in the sandbox's
// request log: list pages, plus one detail read per new or changed order, plus the bounded background checks.
import type { IDataObject } from 'n8n-workflow';
import type { PollRunner } from '../harness/poll.cts';
import { itemsOf, orderEventParameters, triggerRunner, useSandbox } from './helpers.cts';

const sandbox = useSandbox({ volume: 'large', seed: 3 });

const RECHECK_CYCLE = 60;
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

it('costs list pages plus background checks when nothing changed, plus one read per changed order', async () => {
	const runner = triggerRunner(sandbox(), orderEventParameters({ lookbackDays: 365 }));
	sandbox().requests.reset();
	expect(await runner.poll()).toBeNull();
	const watched = Object.keys(runner.staticData.orders as IDataObject).length;
	expect(watched).toBe(1_000);
	const pages = Math.ceil(watched / PAGE_SIZE);
	const backgroundChecks = (changed: number) => Math.ceil((watched - changed) / RECHECK_CYCLE);
	// Activation: one light request for the service's clock, the list pages, the first background checks.
	expect(sandbox().requests.count()).toBe(1 + pages + backgroundChecks(0));

	// A minute later (events stamped now come after the baseline); what that minute changed is read first.
	sandbox().clock.advance(1);
	await runner.poll();
	const costs: Record<string, PollCost> = {};
	costs['0 changed'] = await measuredPoll(runner);
	expect(costs['0 changed']).toEqual({ list: pages, detail: backgroundChecks(0), other: 0, items: 0 });

	deliverOrders(1);
	costs['1 changed'] = await measuredPoll(runner);
	expect(costs['1 changed']).toMatchObject({ list: pages, detail: backgroundChecks(1) + 1, other: 0 });
	expect(costs['1 changed'].items).toBeGreaterThan(0);

	deliverOrders(50);
	costs['50 changed'] = await measuredPoll(runner);
	expect(costs['50 changed']).toMatchObject({ list: pages, detail: backgroundChecks(50) + 50, other: 0 });
	expect(costs['50 changed'].items).toBeGreaterThanOrEqual(50);

	if (process.env.TRIGGER_COST_REPORT) console.log({ watched, pages, costs });
});

it('with the default 14-day window the same account costs a few list pages', async () => {
	const runner = triggerRunner(sandbox(), orderEventParameters({ lookbackDays: 14 }));
	await runner.poll();
	const watched = Object.keys(runner.staticData.orders as IDataObject).length;
	const windowStart = sandbox().clock.now().getTime() - 14 * 86_400_000;
	const inWindow = [...sandbox().state.orders.values()].filter((order) => Date.parse(order.createdAt) >= windowStart);
	expect(watched).toBe(inWindow.length);
	const cost = await measuredPoll(runner);
	expect(cost).toEqual({
		list: Math.max(1, Math.ceil(watched / PAGE_SIZE)),
		detail: Math.ceil(watched / RECHECK_CYCLE),
		other: 0,
		items: 0,
	});
	if (process.env.TRIGGER_COST_REPORT) console.log({ window: '14 days', watched, cost });
});
