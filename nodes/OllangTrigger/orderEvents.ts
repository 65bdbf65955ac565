/**
 * Order Delivery Event and QC Evaluation Finished. List rows carry neither delivery events nor evaluations, so each
 * poll:
 * 1. lists the watched window (orders created since `windowStart`, newest first, all pages) — or, for given ids,
 *    takes the ids;
 * 2. marks for a detail read the orders that are new, whose listed status or level changed, that left the listing,
 *    or whose last read failed;
 * 3. adds background checks: `recheckPerPoll` of the other watched orders, round-robin, so an event that changes
 *    no listed field (a re-delivery) is found within ceil(watched / recheckPerPoll) polls, at a cost per poll
 *    that does not grow with the account;
 * 4. reads those orders (bounded concurrency, within the poll budget) and emits the events past each order's
 *    cursor. Delivery events are append-only and oldest first, so a cursor is a count of consumed events.
 * An order first read after the baseline skips its events at or before `since` (history), so the first poll
 * needs no detail reads and nothing is replayed.
 * QC Evaluation Finished reads the same orders and emits an order's `latestEvaluation` once it is no longer loading,
 * once per evaluation id (the cursor keeps the last one consumed). An evaluation requested at or before `since` is
 * history. An order whose evaluation is still loading is read on every poll until it finishes; one requested and
 * finished between two reads of its order is found by the background checks. The API shows only the latest
 * evaluation: if two finish between two reads of the same order, the earlier one is not seen.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { requireObject } from '../Ollang/actions/common/responses';
import { orderOwnFields } from '../Ollang/actions/order/values';
import type { OllangRequest } from '../Ollang/transport';
import {
	apiPath,
	apiRequestAllPages,
	apiRequestWithResponse,
	mapConcurrent,
	unexpectedResponse,
} from '../Ollang/transport';
import { rotateAfter, runChecks } from './checks';
import type { OrderEventConfig, OrderWatch } from './config';
import type { PollOutcome, PollSession } from './pollSession';
import { asNodeError, failureKind, recordPollTime } from './pollSession';
import type { OrderCursor, TriggerState } from './state';
import { finishedEvaluationOf, isEvaluationRunning } from '../shared/orderProgress';

const DAY_MS = 86_400_000;
/** Orders read by "Fetch Test Event". */
const SAMPLE_ORDERS = 10;

function fingerprint(order: IDataObject): string {
	return `${String(order.status)}/${String(order.level)}`;
}

function newCursor(orderFingerprint: string, createdAt: number, needsDetail: boolean, since: number): OrderCursor {
	return {
		evaluation: '',
		since,
		horizons: {},
		consumed: 0,
		fingerprint: orderFingerprint,
		createdAt,
		needsDetail,
		rebase: true,
		watched: true,
		readFailed: false,
	};
}

function matchesWatch(order: IDataObject, watch: OrderWatch): boolean {
	if (watch.mode === 'orderIds') return true;
	if (watch.statuses.length > 0 && !watch.statuses.includes(String(order.status))) return false;
	if (watch.types.length > 0 && !watch.types.includes(String(order.type))) return false;
	if (watch.folderId !== undefined && String(order.folderId) !== watch.folderId) return false;
	return true;
}

function timeOf(value: unknown): number {
	return typeof value === 'string' ? Date.parse(value) : NaN;
}

/** Events are oldest first: the count of those at or before `since` (an unreadable time counts as after). */
function countAtOrBefore(events: IDataObject[], since: number): number {
	const firstAfter = events.findIndex((event) => !(timeOf(event.occurredAt) <= since));
	return firstAfter === -1 ? events.length : firstAfter;
}

function deliveryEvents(order: IDataObject): IDataObject[] {
	const events = order.deliveryEvents;
	if (!Array.isArray(events)) return [];
	return events.map((event) => (event !== null && typeof event === 'object' ? (event as IDataObject) : {}));
}

/** One output item: the event, a stable id for downstream de-duplication, and the order it belongs to. */
export function eventItem(order: IDataObject, event: IDataObject, eventIndex: number): IDataObject {
	const orderFields: IDataObject = {};
	for (const field of orderOwnFields) orderFields[field] = order[field] ?? null;
	return {
		eventId: `${String(order.id)}:${eventIndex}`,
		eventIndex,
		type: event.type ?? null,
		occurredAt: event.occurredAt ?? null,
		actorType: event.actorType ?? null,
		actorId: event.actorId ?? null,
		orderId: order.id ?? null,
		order: orderFields,
	};
}

/** One QC Evaluation Finished item: the evaluation's results, a stable id, and the order it belongs to. */
export function evaluationItem(order: IDataObject, evaluation: IDataObject): IDataObject {
	const orderFields: IDataObject = {};
	for (const field of orderOwnFields) orderFields[field] = order[field] ?? null;
	return {
		eventId: `${String(order.id)}:qc:${String(evaluation.id)}`,
		type: 'qc_evaluation_finished',
		evaluationId: evaluation.id,
		requestedAt: evaluation.createdAt ?? null,
		textSummary: evaluation.textSummary ?? null,
		scores: evaluation.scores ?? [],
		segmentEvals: evaluation.segmentEvals ?? [],
		orderId: order.id ?? null,
		order: orderFields,
	};
}

function byOccurrence(a: IDataObject, b: IDataObject): number {
	const difference = timeOf(a.occurredAt) - timeOf(b.occurredAt);
	return Number.isNaN(difference) ? 0 : difference;
}

function orderRequest(orderId: string, session: PollSession): OllangRequest {
	return {
		method: 'GET',
		path: apiPath`/integration/orders/${orderId}`,
		retry: 'safe',
		timeoutMs: session.requestTimeoutMs,
	};
}

async function fetchOrder(this: IPollFunctions, orderId: string, session: PollSession): Promise<IDataObject> {
	const request = orderRequest(orderId, session);
	const response = await apiRequestWithResponse.call(this, request);
	session.noteAnswer(response.headers);
	return requireObject.call(this, request, response.body, ['id']);
}

/** The orders listing's upper bound on createdAt, which the paging pins at its first page's time. */
const ORDER_TIME_KEY = 'filter[createdAtRange][to]';

function listRequest(watch: OrderWatch, session: PollSession, windowStart?: number): OllangRequest {
	return {
		method: 'GET',
		path: '/integration/orders',
		qs: {
			'pageOptions[orderBy]': 'createdAt',
			'pageOptions[orderDirection]': 'desc',
			'filter[createdAtRange][from]': windowStart === undefined ? undefined : new Date(windowStart).toISOString(),
			// The API filters one status and one type (public SDKs); several are applied to the rows here.
			'filter[status]': watch.statuses.length === 1 ? watch.statuses[0] : undefined,
			'filter[type]': watch.types.length === 1 ? watch.types[0] : undefined,
		},
		retry: 'safe',
		timeoutMs: session.requestTimeoutMs,
	};
}

function checkRows(this: IPollFunctions, request: OllangRequest, rows: unknown[]): IDataObject[] {
	for (const row of rows) {
		const id = (row as IDataObject | null)?.id;
		if (typeof id !== 'string' || id === '') {
			throw unexpectedResponse.call(this, request, 'order rows with an id', row);
		}
	}
	return rows as IDataObject[];
}

/**
 * Every order created since windowStart, as the listing stood at its first page (one consistent listing: an order
 * created during the read is listed by the next poll, and none is pushed past the last page read).
 */
async function listWindow(
	this: IPollFunctions,
	config: OrderEventConfig,
	session: PollSession,
	windowStart: number,
): Promise<IDataObject[]> {
	const request = listRequest(config.watch, session, windowStart);
	const rows = await apiRequestAllPages.call(this, request, {
		returnAll: true,
		concurrency: config.concurrency,
		pinTimeKey: ORDER_TIME_KEY,
		rowTimeKey: 'createdAt',
		onPage: (_page, headers) => session.noteAnswer(headers),
	});
	return checkRows.call(this, request, rows);
}

/** Updates the cursors from the listing: new orders, changed ones, and those no longer listed. */
function applyListing(state: TriggerState, watch: OrderWatch, rows: IDataObject[], historyIsBaseline: boolean): void {
	const listed = new Set<string>();
	for (const row of rows) {
		const orderId = row.id as string;
		const createdAt = timeOf(row.createdAt);
		const createdAtMs = Number.isNaN(createdAt) ? state.serviceTime : createdAt;
		// A row older than the window (a service that ignored the filter) would come back as a new order.
		if (createdAtMs < state.windowStart || listed.has(orderId) || !matchesWatch(row, watch)) continue;
		listed.add(orderId);
		const cursor = state.orders.get(orderId);
		if (cursor === undefined) {
			// Right after the baseline is set, nothing can have happened since: no detail read is needed yet.
			state.orders.set(orderId, newCursor(fingerprint(row), createdAtMs, !historyIsBaseline, state.since));
			continue;
		}
		// Watched before an edit applied in this poll: read when its listed state changed, as if nothing was edited.
		const wasWatched = cursor.watched || cursor.carried === true;
		if ((cursor.fingerprint !== fingerprint(row) || !wasWatched) && !historyIsBaseline) {
			cursor.needsDetail = true;
		}
		cursor.fingerprint = fingerprint(row);
		cursor.createdAt = createdAtMs;
		cursor.watched = true;
	}
	// Gone from the listing: it no longer matches, was deleted, or moved between pages while they were read.
	// Its detail decides; its cursor stays (a cursor is dropped only by age), so nothing is replayed later.
	for (const [orderId, cursor] of state.orders) {
		if (cursor.watched && !listed.has(orderId)) cursor.needsDetail = true;
		delete cursor.carried;
	}
}

interface Candidate {
	id: string;
	cursor: OrderCursor;
}

/**
 * Detail reads of this poll, in order: orders that need one, the background checks in round-robin order, and
 * last the orders whose previous read failed.
 */
function planChecks(state: TriggerState, config: OrderEventConfig): { candidates: Candidate[]; sweep: Candidate[] } {
	const needed: Candidate[] = [];
	const failedBefore: Candidate[] = [];
	const unchanged: Candidate[] = [];
	for (const [id, cursor] of state.orders) {
		if (cursor.readFailed) failedBefore.push({ id, cursor });
		else if (cursor.needsDetail) needed.push({ id, cursor });
		else if (cursor.watched) unchanged.push({ id, cursor });
	}
	// Given ids have no listing to show a change: each is read every poll (as far as the budget goes); the user
	// bounds that list. Listed orders get a fixed number per poll, so the cost does not grow with the account.
	const sweepCount = config.watch.mode === 'orderIds' ? unchanged.length : config.recheckPerPoll;
	const sweep = rotateAfter(unchanged, state.sweepAfter).slice(0, sweepCount);
	return {
		candidates: [...rotateAfter(needed, state.sweepAfter), ...sweep, ...rotateAfter(failedBefore, state.sweepAfter)],
		sweep,
	};
}

/**
 * Consumes the new delivery events of one order; returns the items to emit. An event is new when it lies past the
 * cursor (and, while the cursor is rebased, after its `since`); of a type an edit added to what is watched on this
 * order, when it happened after the poll before that edit.
 */
function consumeDeliveryEvents(config: OrderEventConfig, cursor: OrderCursor, order: IDataObject, emit: boolean): IDataObject[] {
	const events = deliveryEvents(order);
	const start = cursor.rebase ? Math.max(cursor.consumed, countAtOrBefore(events, cursor.since)) : cursor.consumed;
	const items: IDataObject[] = [];
	events.forEach((event, index) => {
		if (!emit || !config.eventTypes.includes(event.type as never)) return;
		const horizon = cursor.horizons[String(event.type)];
		const isNew = horizon === undefined ? index >= start : !(timeOf(event.occurredAt) <= horizon);
		if (isNew) items.push(eventItem(order, event, index));
	});
	cursor.consumed = Math.max(start, events.length);
	return items;
}

/**
 * Consumes a newly finished QC evaluation of one order. Requested at or before the baseline: history, skipped by
 * the same rule whenever the order is read, so a state n8n did not keep is recomputed to the same answer.
 */
function consumeEvaluation(cursor: OrderCursor, order: IDataObject, emit: boolean): IDataObject[] {
	const evaluation = finishedEvaluationOf(order);
	if (evaluation === undefined || evaluation.id === cursor.evaluation) return [];
	cursor.evaluation = String(evaluation.id);
	const requestedAt = timeOf(evaluation.createdAt);
	const isHistory = !Number.isNaN(requestedAt) && requestedAt <= cursor.since;
	return emit && !isHistory ? [evaluationItem(order, evaluation)] : [];
}

/** Consumes what is new on one order for the configured event; returns the items to emit. */
function consumeEvents(config: OrderEventConfig, cursor: OrderCursor, order: IDataObject): IDataObject[] {
	const matches = matchesWatch(order, config.watch);
	// Events found as an order stops matching (e.g. the ai_delivered that moved it out of "ongoing") still count.
	const emit = matches || cursor.watched;
	const items =
		config.event === 'qcEvaluationFinished'
			? consumeEvaluation(cursor, order, emit)
			: consumeDeliveryEvents(config, cursor, order, emit);
	cursor.rebase = false;
	cursor.horizons = {};
	// A QC evaluation in progress: the order is read on every poll until it finishes.
	cursor.needsDetail = config.event === 'qcEvaluationFinished' && isEvaluationRunning(order);
	cursor.readFailed = false;
	cursor.fingerprint = fingerprint(order);
	const createdAt = timeOf(order.createdAt);
	if (config.watch.mode === 'recentOrders' && !Number.isNaN(createdAt)) cursor.createdAt = createdAt;
	cursor.watched = matches;
	return items;
}

/**
 * One production poll for delivery events. Changes `state` (a working copy) and returns the items to emit.
 * Throws only what must fail the poll: an error of the listing, a lost key or permission, a given order id
 * that does not exist.
 */
export async function pollOrderEvents(
	this: IPollFunctions,
	config: OrderEventConfig,
	state: TriggerState,
	session: PollSession,
	isBaselinePoll: boolean,
): Promise<PollOutcome> {
	const { watch } = config;
	const historyIsBaseline = isBaselinePoll && state.since > 0;
	if (watch.mode === 'recentOrders') {
		// The window is measured from the previous poll's service time; it only ever moves forward.
		const windowStart = Math.max(state.windowStart, state.serviceTime - watch.lookbackDays * DAY_MS);
		const rows = await listWindow.call(this, config, session, windowStart);
		state.windowStart = windowStart;
		if (session.serviceTime !== undefined) state.serviceTime = Math.max(state.serviceTime, session.serviceTime);
		for (const [orderId, cursor] of state.orders) {
			if (cursor.createdAt < windowStart) state.orders.delete(orderId);
		}
		applyListing(state, watch, rows, historyIsBaseline);
	} else {
		const given = new Set(watch.orderIds);
		for (const orderId of state.orders.keys()) {
			if (!given.has(orderId)) state.orders.delete(orderId);
		}
		// An id added since the last poll is new from that poll on (from the baseline on the first poll).
		const addedSince = isBaselinePoll ? state.since : state.serviceTime;
		for (const orderId of watch.orderIds) {
			const cursor = state.orders.get(orderId);
			if (cursor === undefined) state.orders.set(orderId, newCursor('', 0, true, addedSince));
			else {
				cursor.watched = true;
				delete cursor.carried;
			}
		}
	}

	const { candidates, sweep } = planChecks(state, config);
	const items: IDataObject[] = [];
	const missing: string[] = [];
	const started = await runChecks(session, candidates, config.concurrency, async ({ id, cursor }) => {
		try {
			const order = await fetchOrder.call(this, id, session);
			items.push(...consumeEvents(config, cursor, order));
		} catch (error) {
			const kind = failureKind(error);
			if (kind === 'transient') {
				cursor.needsDetail = true;
				cursor.readFailed = true;
				session.noteTransient(error as Error);
			} else if (kind === 'unauthorized' || kind === 'blocked' || kind === 'local') {
				throw asNodeError(this.getNode(), error);
			} else if (watch.mode === 'orderIds') {
				missing.push(`${id} (${(error as Error).message})`);
			} else {
				// Deleted, or moved where this key cannot read it: it is not listed any more either.
				// Its cursor stays until it ages out, in case it comes back.
				cursor.needsDetail = false;
				cursor.readFailed = false;
				cursor.watched = false;
			}
		}
	});
	if (missing.length > 0) {
		throw new NodeOperationError(this.getNode(), `Invalid Order IDs: ${missing.join('; ')}`, {
			description:
				'Remove these IDs from "Order IDs" or check that the API key can read them. The other orders keep their place and nothing was emitted.',
		});
	}
	const swept = sweep.filter((entry) => started.has(entry.id));
	if (swept.length > 0) state.sweepAfter = swept[swept.length - 1].id;
	await recordPollTime.call(this, state, session);
	items.sort(byOccurrence);
	return { items };
}

/** "Fetch Test Event": the most recent matching event among the newest matching orders. Changes nothing. */
export async function sampleOrderEvent(
	this: IPollFunctions,
	config: OrderEventConfig,
	session: PollSession,
): Promise<IDataObject> {
	const { watch } = config;
	let orderIds: string[];
	if (watch.mode === 'orderIds') {
		orderIds = watch.orderIds.slice(0, SAMPLE_ORDERS);
	} else {
		const request = listRequest(watch, session);
		const rows = checkRows.call(
			this,
			request,
			await apiRequestAllPages.call(this, request, { returnAll: false, limit: 50 }),
		);
		orderIds = rows
			.filter((row) => matchesWatch(row, watch))
			.slice(0, SAMPLE_ORDERS)
			.map((row) => row.id as string);
	}
	const orders = await mapConcurrent(
		orderIds,
		config.concurrency,
		async (orderId) => await fetchOrder.call(this, orderId, session),
	);
	let latest: IDataObject | undefined;
	let latestAt = -Infinity;
	const consider = (item: IDataObject, at: unknown) => {
		const time = timeOf(at);
		if (latest === undefined || !(time < latestAt)) [latest, latestAt] = [item, Number.isNaN(time) ? latestAt : time];
	};
	for (const order of orders) {
		if (!matchesWatch(order, watch)) continue;
		if (config.event === 'qcEvaluationFinished') {
			const evaluation = finishedEvaluationOf(order);
			if (evaluation !== undefined) consider(evaluationItem(order, evaluation), evaluation.createdAt);
			continue;
		}
		deliveryEvents(order).forEach((event, index) => {
			if (config.eventTypes.includes(event.type as never)) consider(eventItem(order, event, index), event.occurredAt);
		});
	}
	if (latest === undefined) {
		const what =
			config.event === 'qcEvaluationFinished' ? 'finished QC evaluation' : `${config.eventTypes.join(' / ')} event`;
		throw new NodeOperationError(
			this.getNode(),
			`No ${what} found in the ${orderIds.length} most recent watched orders`,
			{
				description:
					'Fetch Test Event shows the latest matching event so its fields can be mapped. Widen the event types or the filters, or wait until an order is delivered.',
			},
		);
	}
	return latest;
}
