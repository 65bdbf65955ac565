import type { FileContext } from '../../../transport';
import type { SharedReads } from '../../../../shared/sharedReads';
import { sharedRead } from '../../../../shared/sharedReads';
import type { ReadOrder } from './confirm';
import { readOrders } from './confirm';
import type { WaitState } from './state';
import { ordersOf } from './state';

// Requests to one waiting execution's resume URL share its reads (nodes/shared/sharedReads.ts), so that a flood
// (forged or replayed requests: whoever holds the URL can POST to it) costs at most one read of the orders per second
// per process, not one per request. A request is answered from a read that started after it arrived, never from an
// earlier one: a completion that happened before the request is always seen. Each wait is resumed once per process: a
// callback arriving after another one resumed it is answered and resumes nothing (n8n would refuse a second
// resumption with a 500).

/** The shortest time between the starts of two reads of one execution's orders (the API gives a callback 10 s). */
const READ_SPACING_MS = 1_000;
/** A resumed wait is forgotten once no request asked for it for this long. */
const FORGET_RESUMED_MS = 60_000;

const rounds: SharedReads = new Map();
/** Wait -> when a request last found it resumed. */
const resumed = new Map<string, number>();

/** A wait's key: its orders (each order belongs to one execution) and which of the execution's waits it is. */
function keyOf(state: WaitState): string {
	return `${state.round}:${ordersOf(state).join(',')}`;
}

/**
 * The orders as a read started after this request arrived shows them, and whether this request is the one to resume
 * the wait (the first to find every order settled: the requests sharing its read, and any later, answer only).
 */
export async function readForRequest(ctx: FileContext, state: WaitState, settled: (reads: ReadOrder[]) => boolean): Promise<{ reads: ReadOrder[]; resumes: boolean }> {
	const key = keyOf(state);
	const reads = await sharedRead(rounds, key, async () => await readOrders(ctx, state), { freshEveryMs: READ_SPACING_MS });
	const now = Date.now();
	for (const [wait, at] of resumed) if (now - at > FORGET_RESUMED_MS) resumed.delete(wait);
	const resumes = settled(reads) && !resumed.has(key);
	if (resumes || resumed.has(key)) resumed.set(key, now);
	return { reads, resumes };
}
