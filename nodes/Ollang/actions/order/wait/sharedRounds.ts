import { sleep } from 'n8n-workflow';

import type { FileContext } from '../../../transport';
import type { ReadOrder } from './confirm';
import { readOrders } from './confirm';
import type { WaitState } from './state';

// Requests to one waiting execution's resume URL share its reads, so that a flood (forged or replayed requests:
// whoever holds the URL can POST to it) costs at most one read of the orders per second per process, not one per
// request. A request is answered from a read that started after it arrived, never from an earlier one: a completion
// that happened before the request is always seen.

/** The shortest time between the starts of two reads of one execution's orders (the API gives a callback 10 s). */
const READ_SPACING_MS = 1_000;

/** A read of the orders, shared by the requests that arrived before it started; `resumed` once one resumed with it. */
interface Round {
	reads: Promise<ReadOrder[]>;
	resumed: boolean;
}

interface Rounds {
	/** The read that starts next (not started yet): requests arriving now join it. */
	next?: Round;
	/** When the last read started. */
	lastStart: number;
}

const byExecution = new Map<string, Rounds>();

/** A waiting execution's key: its orders (each order belongs to one execution). */
function keyOf(state: WaitState): string {
	return state.items.flatMap((entry) => entry.orders).join(',');
}

function forgetIdle(now: number): void {
	for (const [key, rounds] of byExecution) {
		if (rounds.next === undefined && now - rounds.lastStart > 60_000) byExecution.delete(key);
	}
}

/**
 * The orders as a read started after this request arrived shows them, and whether this request is the one to resume
 * the execution (the first to find every order settled with that read: the requests sharing it answer only).
 */
export async function readForRequest(ctx: FileContext, state: WaitState, settled: (reads: ReadOrder[]) => boolean): Promise<{ reads: ReadOrder[]; resumes: boolean }> {
	const now = Date.now();
	forgetIdle(now);
	const key = keyOf(state);
	const rounds = byExecution.get(key) ?? { lastStart: 0 };
	byExecution.set(key, rounds);
	let round = rounds.next;
	if (round === undefined) {
		const startAt = Math.max(now, rounds.lastStart + READ_SPACING_MS);
		const created: Round = { reads: Promise.resolve([]), resumed: false };
		created.reads = (async () => {
			// Always after a turn of the event loop, so the round is in place as `next` before it starts.
			await sleep(Math.max(0, startAt - Date.now()));
			// Started: requests arriving from now on wait for the read after this one.
			if (rounds.next === created) rounds.next = undefined;
			rounds.lastStart = Date.now();
			return await readOrders(ctx, state);
		})();
		rounds.next = created;
		round = created;
	}
	const reads = await round.reads;
	const resumes = settled(reads) && !round.resumed;
	if (resumes) round.resumed = true;
	return { reads, resumes };
}
