import type { IDataObject } from 'n8n-workflow';

/**
 * What the trigger keeps between polls, in `getWorkflowStaticData('node')`. Only cursors and ids, never payloads;
 * its size is bounded by the watched orders (those created within the look-back window, or the given ids) and
 * the given job ids, however long the workflow runs.
 */
export interface OrderCursor {
	/** Delivery events of the order already consumed (emitted, or skipped as history or an unwanted type). */
	consumed: number;
	/** Listed state ("status/level") when last seen; a change means the order needs a detail read. */
	fingerprint: string;
	/** createdAt in ms; the cursor is dropped once the order is older than the watch window. */
	createdAt: number;
	/** New, changed, gone from the listing, or its last detail read failed: read it before any background check. */
	needsDetail: boolean;
	/** Events at or before `since` are history: skip them at the next detail read (cursor only ever moves forward). */
	rebase: boolean;
	/** Matched the filters when last seen. */
	watched: boolean;
	/** Its last detail read failed: it is read after the others, so one broken order cannot hold them up. */
	readFailed: boolean;
	/** QC Evaluation Finished: the id of the finished evaluation last consumed ('' for none). */
	evaluation: string;
	/**
	 * Events of this order at or before it are history (while `rebase`), and so are QC evaluations requested at or
	 * before it: the baseline, or the last poll before the order became watched by an edit.
	 */
	since: number;
	/**
	 * Delivery event types that became watched on this order by an edit, each with the last poll before the edit:
	 * events of such a type after that time are new, also those already counted in `consumed` (consumed while the
	 * type was not watched). Cleared by the next detail read.
	 */
	horizons: Record<string, number>;
	/** Within the poll that applies an edit only (never stored): watched by the configuration before the edit. */
	carried?: boolean;
}

export interface TriggerState {
	/** configKey() of the configuration the cursors belong to. */
	config: string;
	/** Service time (ms) of the baseline: events and job completions after it are new. 0: emit existing ones too. */
	since: number;
	/** Service time (ms) of the last poll's first answer (when it began to look): the next window and edits start there. */
	serviceTime: number;
	/** Lower bound of the listing (ms); never decreases, so a dropped order cannot come back without its cursor. */
	windowStart: number;
	/** Round-robin position of the background checks (an order or job id). */
	sweepAfter: string;
	orders: Map<string, OrderCursor>;
	/** Watched jobs that reached their end (emitted, or skipped as history or unwanted). */
	finishedJobs: Set<string>;
	/**
	 * Watched jobs not finished yet, each with the service time after which its end is new: the baseline, or the
	 * last poll before the job was added to the watched ones.
	 */
	jobsSince: Map<string, number>;
	/**
	 * Which account the cursors belong to: a one-way digest of the credential's base URL and key (see account.ts),
	 * '' when not known yet. Another account starts afresh.
	 */
	account: string;
	/** Polls in a row that failed for a transient reason. */
	failedPolls: number;
}

/** Bump when the stored layout changes; a stored state of another layout is ignored (the trigger starts from now). */
const LAYOUT = 1;

const NEEDS_DETAIL = 1;
const REBASE = 2;
const WATCHED = 4;
const READ_FAILED = 8;

/** Per-cursor times, left out when the cursor's `since` is the state's and it has no horizons. */
interface StoredTimes {
	s?: number;
	h?: Record<string, number>;
}

/** The evaluation id is left out when empty and nothing follows (states stored before it existed have four entries). */
type StoredCursor = [
	consumed: number,
	fingerprint: string,
	createdAt: number,
	flags: number,
	evaluation?: string,
	times?: StoredTimes,
];

interface StoredState {
	layout: number;
	config: string;
	since: number;
	serviceTime: number;
	windowStart: number;
	sweepAfter: string;
	orders: Record<string, StoredCursor>;
	finishedJobs: string[];
	jobsSince?: Record<string, number>;
	account?: string;
	failedPolls: number;
	/** Incremented by every commit: a poll whose snapshot is no longer current does not commit. */
	commits: number;
}

export interface LoadedState {
	/** undefined on first activation (or when the stored layout is unknown). */
	state: TriggerState | undefined;
	commits: number;
}

/** A state with no cursors: events and job ends after `since` are new. */
export function freshState(
	key: string,
	since: number,
	serviceTime: number,
	account: string,
	failedPolls = 0,
): TriggerState {
	return {
		config: key,
		since,
		serviceTime,
		windowStart: 0,
		sweepAfter: '',
		orders: new Map(),
		finishedJobs: new Set(),
		jobsSince: new Map(),
		account,
		failedPolls,
	};
}

function isStoredTimes(value: unknown): value is StoredTimes {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
	const { s, h } = value as StoredTimes;
	if (s !== undefined && typeof s !== 'number') return false;
	return h === undefined || (typeof h === 'object' && Object.values(h).every((time) => typeof time === 'number'));
}

function isStoredCursor(value: unknown): value is StoredCursor {
	return (
		Array.isArray(value) &&
		value.length >= 4 &&
		value.length <= 6 &&
		(value.length < 5 || typeof value[4] === 'string') &&
		(value.length < 6 || isStoredTimes(value[5])) &&
		typeof value[0] === 'number' &&
		typeof value[1] === 'string' &&
		typeof value[2] === 'number' &&
		typeof value[3] === 'number'
	);
}

function decodeCursor(
	[consumed, fingerprint, createdAt, flags, evaluation, times]: StoredCursor,
	stateSince: number,
): OrderCursor {
	return {
		evaluation: evaluation ?? '',
		since: times?.s ?? stateSince,
		horizons: { ...(times?.h ?? {}) },
		consumed,
		fingerprint,
		createdAt,
		needsDetail: (flags & NEEDS_DETAIL) !== 0,
		rebase: (flags & REBASE) !== 0,
		watched: (flags & WATCHED) !== 0,
		readFailed: (flags & READ_FAILED) !== 0,
	};
}

function encodeCursor(cursor: OrderCursor, stateSince: number): StoredCursor {
	const flags =
		(cursor.needsDetail ? NEEDS_DETAIL : 0) |
		(cursor.rebase ? REBASE : 0) |
		(cursor.watched ? WATCHED : 0) |
		(cursor.readFailed ? READ_FAILED : 0);
	const stored: StoredCursor = [cursor.consumed, cursor.fingerprint, cursor.createdAt, flags];
	const times: StoredTimes = {};
	if (cursor.since !== stateSince) times.s = cursor.since;
	if (Object.keys(cursor.horizons).length > 0) times.h = { ...cursor.horizons };
	const hasTimes = times.s !== undefined || times.h !== undefined;
	if (cursor.evaluation !== '' || hasTimes) stored.push(cursor.evaluation);
	if (hasTimes) stored.push(times);
	return stored;
}

/**
 * Marks stored orders for a detail read at the next poll (before its background checks), as a changed listing
 * would: for an event the listing cannot show (an order completed and rerun between two polls), told by another
 * source. Ids without a cursor (unknown to the listing) are ignored. Returns how many were marked.
 */
export function markForDetailRead(staticData: IDataObject, orderIds: Iterable<string>): number {
	const orders = (staticData as Partial<StoredState>).orders;
	if (orders === undefined || orders === null || typeof orders !== 'object') return 0;
	let marked = 0;
	for (const orderId of orderIds) {
		const cursor = orders[orderId];
		if (!isStoredCursor(cursor)) continue;
		cursor[3] |= NEEDS_DETAIL;
		marked++;
	}
	return marked;
}

/** A working copy of the stored state: the poll changes the copy and commits it at the end, or drops it. */
export function loadState(staticData: IDataObject): LoadedState {
	const stored = staticData as Partial<StoredState>;
	const commits = typeof stored.commits === 'number' ? stored.commits : 0;
	if (stored.layout !== LAYOUT || typeof stored.config !== 'string' || typeof stored.since !== 'number') {
		return { state: undefined, commits };
	}
	const since = stored.since;
	const orders = new Map<string, OrderCursor>();
	for (const [orderId, cursor] of Object.entries(stored.orders ?? {})) {
		if (isStoredCursor(cursor)) orders.set(orderId, decodeCursor(cursor, since));
	}
	const finishedJobs = Array.isArray(stored.finishedJobs) ? stored.finishedJobs.map(String) : [];
	const jobsSince = new Map<string, number>();
	for (const [jobId, time] of Object.entries(stored.jobsSince ?? {})) {
		if (typeof time === 'number') jobsSince.set(jobId, time);
	}
	return {
		commits,
		state: {
			config: stored.config,
			since: stored.since,
			serviceTime: typeof stored.serviceTime === 'number' ? stored.serviceTime : stored.since,
			windowStart: typeof stored.windowStart === 'number' ? stored.windowStart : 0,
			sweepAfter: typeof stored.sweepAfter === 'string' ? stored.sweepAfter : '',
			orders,
			finishedJobs: new Set(finishedJobs),
			jobsSince,
			account: typeof stored.account === 'string' ? stored.account : '',
			failedPolls: typeof stored.failedPolls === 'number' ? stored.failedPolls : 0,
		},
	};
}

/**
 * Writes the new state in one synchronous step. Returns false, writing nothing, when another poll committed
 * since this one loaded its snapshot (two overlapping polls on the same static data): that poll's result stands.
 */
export function commitState(staticData: IDataObject, state: TriggerState, loadedCommits: number): boolean {
	const current = typeof staticData.commits === 'number' ? staticData.commits : 0;
	if (current !== loadedCommits) return false;
	const orders: Record<string, StoredCursor> = {};
	for (const [orderId, cursor] of state.orders) orders[orderId] = encodeCursor(cursor, state.since);
	const stored: StoredState = {
		layout: LAYOUT,
		config: state.config,
		since: state.since,
		serviceTime: state.serviceTime,
		windowStart: state.windowStart,
		sweepAfter: state.sweepAfter,
		orders,
		finishedJobs: [...state.finishedJobs],
		jobsSince: Object.fromEntries(state.jobsSince),
		account: state.account,
		failedPolls: state.failedPolls,
		commits: current + 1,
	};
	for (const key of Object.keys(staticData)) {
		if (!(key in stored)) delete staticData[key];
	}
	Object.assign(staticData, stored);
	return true;
}

/** A poll that failed as a whole: the state stays as it was, only the count of failed polls in a row goes up. */
export function recordFailedPoll(staticData: IDataObject, loadedCommits: number): number {
	const current = typeof staticData.commits === 'number' ? staticData.commits : 0;
	const failedPolls = (typeof staticData.failedPolls === 'number' ? staticData.failedPolls : 0) + 1;
	if (current !== loadedCommits) return failedPolls;
	staticData.failedPolls = failedPolls;
	staticData.commits = current + 1;
	return failedPolls;
}

/**
 * The first baseline of a trigger node, kept in the workflow's global static data. n8n may not persist the node's
 * own state after a poll that emitted nothing: with durable poll cursors the activation poll's state is never
 * committed, and on the in-memory scheduler a stop loses every change since the last save. n8n does save the global
 * static data when it activates a workflow (after the activation poll) and whenever a poll emits, so a poll that
 * finds no node state can still tell "first activation" (no record: start from now) from "state lost" (a record:
 * resume from its baseline; a later configuration of the node resumes from it too, since no poll after it kept
 * anything). It is written once and kept across edits.
 */
export interface BaselineRecord {
	/** configKey() of the configuration activated first. */
	config: string;
	since: number;
}

/** One key per node, replaced whole: n8n notices a change of static data only at the first level of a bucket. */
const baselineKey = (nodeId: string) => `ollangTriggerBaseline:${nodeId}`;

/** The baseline recorded for this node (of whichever configuration), if any. */
export function recallBaseline(globalData: IDataObject, nodeId: string): BaselineRecord | undefined {
	const record = globalData[baselineKey(nodeId)] as Partial<BaselineRecord> | undefined;
	if (typeof record !== 'object' || record === null) return undefined;
	if (typeof record.config !== 'string' || typeof record.since !== 'number') return undefined;
	return { config: record.config, since: record.since };
}

/** Records the node's first baseline; a record already there stays. */
export function recordBaseline(globalData: IDataObject, nodeId: string, config: string, since: number): void {
	if (recallBaseline(globalData, nodeId) !== undefined) return;
	const record: BaselineRecord = { config, since };
	globalData[baselineKey(nodeId)] = record as unknown as IDataObject;
}
