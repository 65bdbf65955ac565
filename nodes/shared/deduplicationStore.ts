import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { exclusively } from './exclusive';

/**
 * n8n's deduplication store (`helpers.checkProcessedAndRecord`, what Remove Duplicates keeps), as both nodes use it:
 * one row per node, read and written back whole by each call, so every call on it is made inside the workflow's
 * exclusive section (exclusive.ts). This process enters one section at a time (executions started together queue
 * here rather than asking the database in turn), and tries a failed call again: a call that failed wrote nothing
 * (its one write is its last step).
 */

export type Store = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'removeProcessed' | 'clearAllProcessedItems'>;

/** Tries of one call. */
const TRIES = 3;

let queue: Promise<unknown> = Promise.resolve();

/** Runs this process's sections one after the other. */
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

/** Whether n8n gives this context a store (every supported n8n does; an engine without a database may not). */
export function hasStore(helpers: Partial<Store>): boolean {
	return (['checkProcessedAndRecord', 'removeProcessed', 'clearAllProcessedItems'] as const).every((helper) => typeof helpers[helper] === 'function');
}

/**
 * Records the keys in this node's row inside the section; returns those the row held before this call. Throws
 * when the store does not answer or the section cannot be had (nothing recorded then).
 */
export async function recordInSection(helpers: Store, keys: string[], options: ICheckProcessedOptions): Promise<Set<string>> {
	return await oneAtATime(
		async () =>
			await exclusively(helpers, async () => new Set((await tried(async () => await helpers.checkProcessedAndRecord(keys, 'node', options))).processed.map(String))),
	);
}
