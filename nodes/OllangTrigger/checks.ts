import { mapConcurrent } from '../Ollang/transport';
import type { PollSession } from './pollSession';

/** The entries after `after` in id order, then the ones before it: a round-robin that survives added and removed ids. */
export function rotateAfter<T extends { id: string }>(entries: T[], after: string): T[] {
	const sorted = [...entries].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	const start = sorted.findIndex((entry) => entry.id > after);
	return start <= 0 ? sorted : [...sorted.slice(start), ...sorted.slice(0, start)];
}

/**
 * Runs `check` for each entry with bounded concurrency, starting a new one only while the session is open
 * (budget left, no transient failure yet). Returns the ids it started, in order. An error `check` throws
 * (one that must fail the poll) stops the run.
 */
export async function runChecks<T extends { id: string }>(
	session: PollSession,
	entries: T[],
	concurrency: number,
	check: (entry: T) => Promise<void>,
): Promise<Set<string>> {
	const started = new Set<string>();
	await mapConcurrent(entries, concurrency, async (entry) => {
		if (!session.open) return;
		started.add(entry.id);
		await check(entry);
	});
	return started;
}
