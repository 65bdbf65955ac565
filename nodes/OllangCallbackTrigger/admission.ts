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
/** How often a waiting callback checks whether its time is up (no timer outlives a wait by more than this). */
const WAIT_STEP_MS = 100;

interface Waiter {
	/** When its caller must have its answer: it waits only while a read (as long as recent ones) still fits before it. */
	deadline: number;
	admitted: boolean;
	/** Resolves when it is admitted. */
	admission: Promise<void>;
	admit: () => void;
}

interface Gate {
	inFlight: number;
	/** When each read of the last minute began, oldest first. */
	begun: number[];
	waiting: Waiter[];
	/** Recent reads' duration (a moving average), for what a wait in the queue costs. */
	readMs: number;
}

/** Per trigger (workflow, node, mode): its own limits, so one flooded URL does not stop another's callbacks. */
const gates = new Map<string, Gate>();

function gateOf(scope: string): Gate {
	let gate = gates.get(scope);
	if (gate === undefined) {
		gate = { inFlight: 0, begun: [], waiting: [], readMs: FIRST_READ_ESTIMATE_MS };
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

function begin(gate: Gate): void {
	gate.inFlight++;
	gate.begun.push(Date.now());
}

/** The read ended: its slot goes to the longest-waiting callback that still has time for it. */
function end(gate: Gate, startedAt: number): void {
	gate.inFlight--;
	gate.readMs = 0.8 * gate.readMs + 0.2 * (Date.now() - startedAt);
	while (gate.inFlight < READS_IN_FLIGHT && gate.waiting.length > 0) {
		const next = gate.waiting.shift() as Waiter;
		if (!timeLeftForRead(gate, next.deadline)) continue;
		next.admitted = true;
		begin(gate);
		next.admit();
	}
}

function timeLeftForRead(gate: Gate, deadline: number): boolean {
	return Date.now() + gate.readMs < deadline;
}

function queue(gate: Gate, deadline: number): Waiter {
	let admit: () => void = () => undefined;
	const admission = new Promise<void>((resolve) => {
		admit = resolve;
	});
	const waiter: Waiter = { deadline, admitted: false, admission, admit };
	gate.waiting.push(waiter);
	return waiter;
}

/**
 * Runs `read` once the trigger's limits allow it before `deadline` (epoch ms), or throws ReadRefused at once when
 * they will not: a minute's reads are spent (or promised to callbacks waiting), or the callbacks already waiting
 * would hold this one past its deadline. A callback that waits and runs out of time is refused then.
 */
export async function withinReadLimits<T>(scope: string, deadline: number, read: () => Promise<T>): Promise<T> {
	const gate = gateOf(scope);
	if (gate.begun.length + gate.waiting.length >= READS_PER_MINUTE) {
		const freeAt = (gate.begun[0] ?? Date.now()) + MINUTE_MS;
		throw new ReadRefused(`${READS_PER_MINUTE} confirming reads in the last minute`, Math.max(1, Math.ceil((freeAt - Date.now()) / 1000)));
	}
	if (gate.inFlight < READS_IN_FLIGHT) begin(gate);
	else {
		const rounds = Math.ceil((gate.waiting.length + 1) / READS_IN_FLIGHT);
		if (Date.now() + (rounds + 1) * gate.readMs > deadline) {
			throw new ReadRefused(`${gate.inFlight} confirming reads under way and ${gate.waiting.length} waiting: no answer in time`, 1);
		}
		const waiter = queue(gate, deadline);
		while (!waiter.admitted && timeLeftForRead(gate, deadline)) {
			await Promise.race([waiter.admission, sleep(Math.max(1, Math.min(WAIT_STEP_MS, deadline - gate.readMs - Date.now())))]);
		}
		if (!waiter.admitted) {
			const index = gate.waiting.indexOf(waiter);
			if (index !== -1) gate.waiting.splice(index, 1);
			throw new ReadRefused(`waited for a confirming read until no time was left for it`, 1);
		}
	}
	const startedAt = Date.now();
	try {
		return await read();
	} finally {
		end(gate, startedAt);
	}
}
