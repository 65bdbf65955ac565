import type { IDataObject, IRun } from 'n8n-workflow';

/**
 * Completions a sweep handed to n8n that no execution has been seen to run through yet. n8n can take an emission and
 * never run it (its database stalling under a burst of webhooks, the main restarted before the execution started, a
 * queue job lost), and by then the sweep's cursors have moved past those completions. So each one is kept in the
 * node's static data (saved by n8n with the emission itself) until an execution carrying it ended, and every later
 * sweep hands it over again until one did. Handing a completion over twice costs one read: the execution's claim
 * drops the repeat (emitOnce.ts).
 */

const UNSETTLED = 'sweep:unsettled';

/** Bounds the static data n8n saves with each emission (an item holds its order): the oldest are given up first. */
export const UNSETTLED_AT_MOST = 2_000;

/** An item handed over (its arrival, arrivalItem) and when: 0 when n8n said it could not run it. */
interface Handed {
	item: IDataObject;
	at: number;
}

function unsettledOf(nodeData: IDataObject): Record<string, Handed> {
	const value = nodeData[UNSETTLED];
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as unknown as Record<string, Handed>) : {};
}

/** Written as a new object: n8n saves static data it saw changed at the node's own level. */
function keep(nodeData: IDataObject, entries: Record<string, Handed>): void {
	nodeData[UNSETTLED] = entries as unknown as IDataObject;
}

const keyOf = (item: IDataObject): string => String(item.completionKey);

/** What a sweep hands n8n now, and how many unsettled completions it gave up on to stay within the bound. */
export interface HandOver {
	items: IDataObject[];
	keys: string[];
	givenUp: number;
}

/**
 * What a sweep hands over: what it found, and each unsettled completion handed over at least `againAfterMs` ago (or
 * refused by n8n), all noted as handed over `now`.
 */
export function handOver(nodeData: IDataObject, found: IDataObject[], now: number, againAfterMs: number): HandOver {
	const entries = { ...unsettledOf(nodeData) };
	const items = new Map<string, IDataObject>();
	for (const [key, handed] of Object.entries(entries)) if (now - handed.at >= againAfterMs) items.set(key, handed.item);
	// A completion found again is handed over as read now.
	for (const item of found) items.set(keyOf(item), item);
	for (const [key, item] of items) {
		delete entries[key];
		entries[key] = { item, at: now };
	}
	const keys = Object.keys(entries);
	const givenUp = Math.max(0, keys.length - UNSETTLED_AT_MOST);
	for (const key of keys.slice(0, givenUp)) {
		delete entries[key];
		items.delete(key);
	}
	keep(nodeData, entries);
	return { items: [...items.values()], keys: [...items.keys()], givenUp };
}

/** Those completions ran through an execution: forgotten. */
export function settle(nodeData: IDataObject, keys: string[]): void {
	const entries = { ...unsettledOf(nodeData) };
	for (const key of keys) delete entries[key];
	keep(nodeData, entries);
}

/** n8n said it could not run them: due at the next sweep. */
export function refused(nodeData: IDataObject, keys: string[]): void {
	const entries = { ...unsettledOf(nodeData) };
	for (const key of keys) if (entries[key] !== undefined) entries[key] = { ...entries[key], at: 0 };
	keep(nodeData, entries);
}

/**
 * Whether the execution n8n ended ran through: this node's claim was made. An execution that failed later on (a
 * node after the trigger) counts as not run through: handed over again, its completions are dropped by the claim,
 * and that execution runs through.
 */
export function ranThrough(run: IRun | undefined): boolean {
	if (run === undefined || run === null) return false;
	if (run.data?.resultData?.error !== undefined) return false;
	return !['error', 'crashed', 'canceled'].includes(String(run.status));
}
