import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { exclusively } from './exclusive';

// Decides nothing: the one way both nodes touch n8n's deduplication store (Remove Duplicates' helpers). n8n reads and
// writes a node's row whole on each call, so every call runs inside the workflow's exclusive section (exclusive.ts):
// what a section reads is what it leaves unless it changes it, so a name can be asked about without a trace.

export type Store = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'removeProcessed' | 'clearAllProcessedItems'>;

/** The node's row, as one section sees it. */
export interface Row {
	/** Records the names; returns those the row held before. */
	record(names: string[]): Promise<Set<string>>;
	/** Which of the names the row holds, leaving it as it was. */
	has(names: string[]): Promise<Set<string>>;
	remove(names: string[]): Promise<void>;
}

/** Tries of one call: a call that failed wrote nothing (its one write is its last step). */
const TRIES = 3;
let queue: Promise<unknown> = Promise.resolve();

/** This process enters one section at a time: executions started together queue here, not at the database. */
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

/** Runs `work` on the node's row inside the section. Throws when the store does not answer or the section cannot be had. */
export async function inSection<T>(helpers: Store, options: ICheckProcessedOptions, work: (row: Row) => Promise<T>): Promise<T> {
	const record = async (names: string[]) =>
		names.length === 0 ? new Set<string>() : new Set((await tried(async () => await helpers.checkProcessedAndRecord(names, 'node', options))).processed.map(String));
	const remove = async (names: string[]) => {
		if (names.length > 0) await tried(async () => await helpers.removeProcessed(names, 'node', options));
	};
	const row: Row = {
		record,
		remove,
		has: async (names) => {
			const held = await record(names);
			await remove(names.filter((name) => !held.has(name)));
			return held;
		},
	};
	return await oneAtATime(async () => await exclusively(helpers, async () => await work(row)));
}
