import { sleep } from 'n8n-workflow';

import type { FileContext } from '../../../transport';
import type { ReadOrder } from './confirm';
import { readOrders } from './confirm';
import type { WaitState } from './state';
import { ordersOf } from './state';

// Requests to one waiting execution's resume URL share its reads, so that a flood (forged or replayed requests:
// whoever holds the URL can POST to it) costs at most one read of the orders per second per process, not one per
// request. A request is answered from a read that started after it arrived, never from an earlier one: a completion
// that happened before the request is always seen. Each wait is resumed once per process: a callback arriving after
// another one resumed it is answered and resumes nothing (n8n would refuse a second resumption with a 500).

/** The shortest time between the starts of two reads of one execution's orders (the API gives a callback 10 s). */
const READ_SPACING_MS = 1_000;

/** A read of the orders, shared by the requests that arrived before it started. */
interface Round {
	reads: Promise<ReadOrder[]>;
}

interface Rounds {
	/** A request has resumed this wait. */
	resumed: boolean;
	/** The read that starts next (not started yet): requests arriving now join it. */
	next?: Round;
	/** When the last read started. */
	lastStart: number;
}

const byExecution = new Map<string, Rounds>();

/** A wait's key: its orders (each order belongs to one execution) and which of the execution's waits it is. */
function keyOf(state: WaitState): string {
	return `${state.round}:${ordersOf(state).join(',')}`;
}

function forgetIdle(now: number): void {
	for (const [key, rounds] of byExecution) {
		if (rounds.next === undefined && now - rounds.lastStart > 60_000) byExecution.delete(key);
	}
}

/**
 * The orders as a read started after this request arrived shows them, and whether this request is the one to resume
 * the wait (the first to find every order settled: the requests sharing its read, and any later, answer only).
 */
export async function readForRequest(ctx: FileContext, state: WaitState, settled: (reads: ReadOrder[]) => boolean): Promise<{ reads: ReadOrder[]; resumes: boolean }> {
	const now = Date.now();
	forgetIdle(now);
	const key = keyOf(state);
	const rounds = byExecution.get(key) ?? { lastStart: 0, resumed: false };
	byExecution.set(key, rounds);
	let round = rounds.next;
	if (round === undefined) {
		const startAt = Math.max(now, rounds.lastStart + READ_SPACING_MS);
		const created: Round = { reads: Promise.resolve([]) };
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
	const resumes = settled(reads) && !rounds.resumed;
	if (resumes) rounds.resumed = true;
	return { reads, resumes };
}
