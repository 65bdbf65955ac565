// Shared pieces of the trigger tests: a sandbox per test file, poll runners for the real Ollang Trigger, and an
// event ledger that checks every emitted item against the sandbox's own delivery log.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { loadState } from '../../nodes/OllangTrigger/state';
import type { Sandbox } from '../../sandbox/index.cts';
import { createPollRunner, type PollResult, type PollRunner, type PollRunnerOptions } from '../harness/poll.cts';

import { call } from '../sandbox/helpers.cts';

export { call, useSandbox } from '../sandbox/helpers.cts';

export const ALL_EVENT_TYPES = ['ai_delivered', 'translator_delivered', 'lsp_approved', 'order_delivered'];

export function orderEventParameters(overrides: INodeParameters = {}): INodeParameters {
	return {
		event: 'orderDeliveryEvent',
		eventTypes: ALL_EVENT_TYPES,
		watch: 'recentOrders',
		lookbackDays: 365,
		...overrides,
	};
}

export function triggerRunner(
	sandbox: Sandbox,
	parameters: INodeParameters,
	options: Partial<PollRunnerOptions> = {},
): PollRunner {
	return createPollRunner({
		parameters,
		credentials: { baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.owner },
		...options,
	});
}

/** The json of every emitted item of one poll (a poll trigger has one output). */
export function itemsOf(result: PollResult): IDataObject[] {
	if (result === null) return [];
	expect(result).toHaveLength(1);
	return result[0].map((item) => item.json);
}

/** The trigger's baseline (service time, ms) as it stored it. */
export function baselineOf(runner: PollRunner): number {
	const since = runner.staticData.since;
	if (typeof since !== 'number') throw new Error('the trigger has no baseline yet');
	return since;
}

/** Ids of the orders the trigger watches, as its stored state says (cursors of orders no longer listed excluded). */
export function watchedOrderIds(runner: PollRunner): string[] {
	const { state } = loadState(runner.staticData);
	if (!state) throw new Error('the trigger has no stored state yet');
	return [...state.orders].filter(([, cursor]) => cursor.watched).map(([orderId]) => orderId);
}

/**
 * Polls within which every watched order is re-read at least once by the background checks, when nothing else
 * changes meanwhile: ceil(watched / per poll), read from the trigger's own state.
 */
export function backgroundRounds(runner: PollRunner, perPoll: number): number {
	return Math.ceil(watchedOrderIds(runner).length / perPoll);
}

export interface ExpectedEvent {
	eventId: string;
	orderId: string;
	eventIndex: number;
	type: string;
	occurredAt: string;
}

/** Every event in the sandbox after `since` (of the given types, on orders passing `orderFilter`). */
export function expectedEvents(
	sandbox: Sandbox,
	since: number,
	types: string[] = ALL_EVENT_TYPES,
	orderFilter: (order: { id: string; status: string; type: string; folderId: string; createdAt: string }) => boolean = () => true,
): Map<string, ExpectedEvent> {
	const expected = new Map<string, ExpectedEvent>();
	for (const order of sandbox.state.orders.values()) {
		if (!orderFilter(order)) continue;
		order.deliveryEvents.forEach((event, eventIndex) => {
			if (Date.parse(event.occurredAt) <= since || !types.includes(event.type)) return;
			const eventId = `${order.id}:${eventIndex}`;
			expected.set(eventId, { eventId, orderId: order.id, eventIndex, type: event.type, occurredAt: event.occurredAt });
		});
	}
	return expected;
}

/**
 * Every item the trigger emitted, checked as it arrives: each is a real event of the sandbox (same type and time
 * at that index of the order's log), none twice, and per order in log order.
 */
export class EventLedger {
	readonly emitted = new Map<string, IDataObject>();
	private readonly lastIndex = new Map<string, number>();

	constructor(private readonly sandbox: Sandbox) {}

	record(items: IDataObject[]): void {
		for (const item of items) {
			const eventId = String(item.eventId);
			if (this.emitted.has(eventId)) throw new Error(`event ${eventId} was emitted twice`);
			const orderId = String(item.orderId);
			const index = Number(item.eventIndex);
			expect(eventId).toBe(`${orderId}:${index}`);
			const order = this.sandbox.state.orders.get(orderId);
			if (!order) throw new Error(`event ${eventId} names an order the sandbox does not have`);
			const truth = order.deliveryEvents[index];
			expect({ eventId, type: item.type, occurredAt: item.occurredAt, actorType: item.actorType }).toEqual({
				eventId,
				type: truth.type,
				occurredAt: truth.occurredAt,
				actorType: truth.actorType,
			});
			expect((item.order as IDataObject).id).toBe(orderId);
			const previous = this.lastIndex.get(orderId) ?? -1;
			if (index <= previous) throw new Error(`event ${eventId} came after index ${previous} of the same order`);
			this.lastIndex.set(orderId, index);
			this.emitted.set(eventId, item);
		}
	}

	/** The emitted ids equal the expected ones: none missed, none extra. */
	expectExactly(expected: Map<string, ExpectedEvent>): void {
		const missing = [...expected.keys()].filter((eventId) => !this.emitted.has(eventId));
		const extra = [...this.emitted.keys()].filter((eventId) => !expected.has(eventId));
		expect({ missing, extra }).toEqual({ missing: [], extra: [] });
	}
}

let importCount = 0;

/** Starts an import of `units` units (the first may carry a failure marker); returns its job id. */
export async function startImport(target: Sandbox, memory: string, units: number, marker = ''): Promise<string> {
	importCount++;
	const items = Array.from({ length: units }, (_, index) => ({
		sourceLanguage: 'en',
		targetLanguage: 'de',
		sourceText: `import ${importCount} unit ${index}${index === 0 ? marker : ''}`,
		targetText: `Einheit ${index}`,
	}));
	const response = await call(target, 'POST', `/integration/memories/${memory}/items/import`, { body: { items } });
	expect(response.status).toBe(201);
	return response.body.jobId as string;
}

/** Size of the trigger's stored state, in bytes of JSON. */
export function stateSize(runner: PollRunner): number {
	return JSON.stringify(runner.staticData).length;
}

/** A small seeded random source for schedules (mulberry32), so a failing run can be replayed. */
export class ScheduleRandom {
	private seed: number;

	constructor(seed: number) {
		this.seed = seed >>> 0;
	}

	next(): number {
		this.seed = (this.seed + 0x6d2b79f5) >>> 0;
		let t = this.seed;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	pick<T>(values: readonly T[]): T {
		return values[Math.floor(this.next() * values.length)];
	}
}
