import { sleep } from 'n8n-workflow';

/**
 * How many confirming reads one trigger may make, per n8n process: whoever has the URL (and the token) can send
 * callbacks, and each new one costs a Get Order with the user's key. Past these limits a callback is answered 503
 * at once (the API calls again later), so a flood costs a bounded number of reads and no caller waits out its 10 s.
 */

/** Reads under way at once: at the real API's few hundred ms a read, 8 clear a minute's reads in a few seconds. */
export const READS_IN_FLIGHT = 8;
/**
 * Reads begun in any 60 s: a busy account's completions (two a second) and no more. A forged flood costs at most
 * this many reads a minute; a real completion past it is answered 503 and confirmed when the API calls again.
 */
export const READS_PER_MINUTE = 120;

const MINUTE_MS = 60_000;
/** A read's duration until some are measured: the real API's slow end, so the first estimates err on the safe side. */
const FIRST_READ_ESTIMATE_MS = 500;
/** How often a waiting callback checks whether it can still be read in time (no timer outlives a wait by more). */
const WAIT_STEP_MS = 100;

interface Waiter {
	/** When its caller must have its answer. */
	deadline: number;
	/** When its read began: set when a slot is handed to it (so no newcomer takes that slot first). */
	startedAt?: number;
	/** Resolves when it is admitted. */
	admission: Promise<void>;
	admit: () => void;
}

interface Gate {
	/** When each read under way began. */
	underWay: number[];
	/** When each read of the last minute began, oldest first. */
	begun: number[];
	waiting: Waiter[];
	/** Recent reads' duration (a moving average). */
	readMs: number;
}

/** Per trigger (workflow, node, mode): its own limits, so one flooded URL does not stop another's callbacks. */
const gates = new Map<string, Gate>();

function gateOf(scope: string): Gate {
	let gate = gates.get(scope);
	if (gate === undefined) {
		gate = { underWay: [], begun: [], waiting: [], readMs: FIRST_READ_ESTIMATE_MS };
		gates.set(scope, gate);
	}
	const minuteAgo = Date.now() - MINUTE_MS;
	while (gate.begun.length > 0 && gate.begun[0] <= minuteAgo) gate.begun.shift();
	return gate;
}

/** A read turned away: why, and when the API may call again. */
export class ReadRefused extends Error {
	constructor(
		reason: string,
		readonly retryAfterSeconds: number,
	) {
		super(reason);
	}
}

/**
 * Whether a callback `ahead` places back in the queue can still be read before `deadline`. A read is taken to last
 * the recent average, or as long as the oldest read under way has run (reads that slow down are not over soon): the
 * reads under way end within one such read, each 8 waiting ahead take one more, then its own.
 */
function readInTime(gate: Gate, ahead: number, deadline: number): boolean {
	const now = Date.now();
	const oldest = gate.underWay.length > 0 ? now - Math.min(...gate.underWay) : 0;
	const readMs = Math.max(gate.readMs, oldest);
	const rounds = gate.underWay.length < READS_IN_FLIGHT ? 0 : 1 + Math.floor(ahead / READS_IN_FLIGHT);
	return now + rounds * readMs + readMs <= deadline;
}

function begin(gate: Gate): number {
	const startedAt = Date.now();
	gate.underWay.push(startedAt);
	gate.begun.push(startedAt);
	return startedAt;
}

/** The read ended: its slot goes to the longest-waiting callback that can still be read in time. */
function end(gate: Gate, startedAt: number): void {
	gate.underWay.splice(gate.underWay.indexOf(startedAt), 1);
	gate.readMs = 0.8 * gate.readMs + 0.2 * (Date.now() - startedAt);
	while (gate.underWay.length < READS_IN_FLIGHT && gate.waiting.length > 0) {
		const next = gate.waiting.shift() as Waiter;
		if (!readInTime(gate, 0, next.deadline)) continue;
		next.startedAt = begin(gate);
		next.admit();
		return;
	}
}

function queue(gate: Gate, deadline: number): Waiter {
	let admit: () => void = () => undefined;
	const admission = new Promise<void>((resolve) => {
		admit = resolve;
	});
	const waiter: Waiter = { deadline, admission, admit };
	gate.waiting.push(waiter);
	return waiter;
}

/** Waits for a read slot while it can still be read in time: when its read began, or undefined (it left the queue). */
async function waitTurn(gate: Gate, deadline: number): Promise<number | undefined> {
	const waiter = queue(gate, deadline);
	for (;;) {
		if (waiter.startedAt !== undefined) return waiter.startedAt;
		const ahead = gate.waiting.indexOf(waiter);
		if (ahead === -1 || !readInTime(gate, ahead, deadline)) break;
		await Promise.race([waiter.admission, sleep(WAIT_STEP_MS)]);
	}
	const index = gate.waiting.indexOf(waiter);
	if (index !== -1) gate.waiting.splice(index, 1);
	return undefined;
}

/**
 * Runs `read` once the trigger's limits allow it in time for `deadline` (epoch ms), or throws ReadRefused as soon
 * as they will not: a minute's reads are spent (or promised to callbacks waiting), or the reads under way and the
 * callbacks waiting ahead would hold this one past its deadline (checked again while it waits).
 */
export async function withinReadLimits<T>(scope: string, deadline: number, read: () => Promise<T>): Promise<T> {
	const gate = gateOf(scope);
	if (gate.begun.length + gate.waiting.length >= READS_PER_MINUTE) {
		const freeAt = (gate.begun[0] ?? Date.now()) + MINUTE_MS;
		throw new ReadRefused(`${READS_PER_MINUTE} confirming reads in the last minute`, Math.max(1, Math.ceil((freeAt - Date.now()) / 1000)));
	}
	const busy = gate.underWay.length >= READS_IN_FLIGHT || gate.waiting.length > 0;
	const startedAt = busy ? await waitTurn(gate, deadline) : begin(gate);
	if (startedAt === undefined) {
		throw new ReadRefused(`${gate.underWay.length} confirming reads under way and ${gate.waiting.length} waiting: none in time`, 1);
	}
	try {
		return await read();
	} finally {
		end(gate, startedAt);
	}
}
