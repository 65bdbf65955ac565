import type { ICheckProcessedOptions, IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * n8n's deduplication store (`helpers.checkProcessedAndRecord`, what Remove Duplicates keeps), as both nodes use it.
 *
 * The store keeps one database row per node. Each call reads the row, changes it and writes it back, without a lock;
 * and a node's first call inserts the row. So:
 * - two calls at the same moment in one process (executions started together) each write their own copy, and the
 *   keys of one are lost: this process makes its calls one after the other;
 * - two first calls at once (two executions, or two processes in queue mode) both insert, and the database refuses
 *   the second (the full run, n8n 2.41.1: Request Human Review in two executions started together stopped with "the
 *   store did not answer"): a failed call is tried again, and then finds the row and adds to it.
 * Trying a call again is safe: a call that failed wrote nothing (its one write is its last step).
 * Across processes nothing here takes turns: claim.ts decides which process goes ahead, and reads here how long this
 * process's calls take now (readBackWaitMs).
 */

export type Store = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'removeProcessed'>;

/** Tries of one call. */
const TRIES = 3;

let queue: Promise<unknown> = Promise.resolve();

/** Runs store calls of this process one after the other (every node and workflow: they are cheap). */
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
	const result = queue.then(work, work);
	queue = result.catch(() => undefined);
	return result;
}

async function tried<T>(call: () => Promise<T>): Promise<T> {
	let failure: unknown;
	for (let attempt = 1; attempt <= TRIES; attempt++) {
		if (attempt > 1) await sleep(100 * (attempt - 1));
		try {
			return await call();
		} catch (error) {
			failure = error;
		}
	}
	throw failure;
}

/** How long ago a call's duration still counts (a burst's load passes within seconds). */
const LATENCY_WINDOW_MS = 60_000;
/** Durations of this process's recent calls: [ended at, took ms], oldest first. */
const recentCalls: Array<[number, number]> = [];

/** Times one call from its start to its end: longer than the time between its read of the row and its write. */
async function timed<T>(call: () => Promise<T>): Promise<T> {
	const started = Date.now();
	try {
		return await call();
	} finally {
		const now = Date.now();
		recentCalls.push([now, now - started]);
		while (recentCalls.length > 0 && (recentCalls[0][0] < now - LATENCY_WINDOW_MS || recentCalls.length > 1_000)) recentCalls.shift();
	}
}

/** The slowest store call of this process within the last minute (ms; 0 when none). */
export function slowestRecentCallMs(now = Date.now()): number {
	return recentCalls.reduce((slowest, [endedAt, took]) => (endedAt >= now - LATENCY_WINDOW_MS ? Math.max(slowest, took) : slowest), 0);
}

/** One store call in this process's turn, tried again when it fails. */
async function inTurn<T>(call: () => Promise<T>): Promise<T> {
	return await oneAtATime(async () => await tried(async () => await timed(call)));
}

/** Whether n8n gives this context a store (every supported n8n does; an engine without a database may not). */
export function hasStore(helpers: Partial<Store>): boolean {
	return typeof helpers.checkProcessedAndRecord === 'function' && typeof helpers.removeProcessed === 'function';
}

/** Records the keys (scope: this node); says which were there before. Throws when the store does not answer. */
export async function checkAndRecord(helpers: Store, keys: string[], options: ICheckProcessedOptions): Promise<IDeduplicationOutput> {
	return await inTurn(async () => await helpers.checkProcessedAndRecord(keys, 'node', options));
}

/** Removes the keys (scope: this node). Throws when the store does not answer. */
export async function removeRecorded(helpers: Store, keys: string[], options: ICheckProcessedOptions): Promise<void> {
	await inTurn(async () => await helpers.removeProcessed(keys, 'node', options));
}
