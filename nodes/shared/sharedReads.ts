import { sleep } from 'n8n-workflow';

// Which read a caller joins instead of sending its own (Sharing): by default the one under way for the same key; with
// `keepFor`, also one that ended, for as long as its answer is kept; with `freshEveryMs`, only one not started yet. The
// one way reads are shared: the Callback Trigger's (callbacks of one order, a sweep's requests, the orders a sweep read
// for its execution) and Create and Wait's (requests to a waiting execution's resume URL). The map belongs to whoever
// decides the reads' lifetime (a trigger, one sweep, the process).

export interface Sharing<T> {
	/** How long an ended read still answers those who ask (ms; default 0: only while it is under way). Failures never. */
	keepFor?: (answer: T) => number;
	/**
	 * Join only a read that has not started yet, so the answer comes from a read started after the caller asked
	 * (never one under way); reads of the key start at least this far apart, and callers meanwhile share the next.
	 */
	freshEveryMs?: number;
}

/** `startedAt`: undefined while it waits for its turn; `until`: Infinity while under way, then how long it is kept. */
type Read = { answer: Promise<unknown>; startedAt?: number; until: number };

export type SharedReads = Map<string, Read>;

/** Bounds the memory of a busy map (this one, a trigger's answers): the oldest entries are forgotten first. */
export const KEEP_AT_MOST = 20_000;

/** Forgets the oldest entries while they are past their `until` or too many. */
export function forgetOldest(entries: Map<string, { until: number }>, now: number): void {
	for (const [key, entry] of entries) {
		if (entries.size <= KEEP_AT_MOST && entry.until >= now) break;
		entries.delete(key);
	}
}

/** The read of `key` a caller may join, or `read()` started and shared as `sharing` says. */
export async function sharedRead<T>(reads: SharedReads, key: string, read: () => Promise<T>, sharing: Sharing<T> = {}): Promise<T> {
	const now = Date.now();
	forgetOldest(reads, now);
	const last = reads.get(key);
	const fresh = sharing.freshEveryMs;
	if (last !== undefined && (fresh === undefined ? last.until >= now : last.startedAt === undefined)) return (await last.answer) as T;
	const entry: Read = { answer: Promise.resolve(), until: Infinity };
	const ended = (keepMs: number) => {
		if (reads.get(key) !== entry) return;
		const until = Math.max(keepMs > 0 ? Date.now() + keepMs : 0, fresh === undefined ? 0 : (entry.startedAt ?? 0) + fresh);
		if (until > Date.now()) entry.until = until;
		else reads.delete(key);
	};
	entry.answer = (async () => {
		// Always after a turn of the event loop, so that callers arriving until it starts find it and join.
		if (fresh !== undefined) await sleep(Math.max(0, (last?.startedAt ?? 0) + fresh - Date.now()));
		entry.startedAt = Date.now();
		return await read();
	})();
	entry.answer.then((answer) => ended(sharing.keepFor?.(answer as T) ?? 0), () => ended(0));
	reads.delete(key);
	reads.set(key, entry);
	return (await entry.answer) as T;
}
