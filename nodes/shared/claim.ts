import type { ICheckProcessedOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { Store } from './deduplicationStore';
import { checkAndRecord, slowestRecentCallMs } from './deduplicationStore';
import { READ_BACK_AFTER_MS } from './waits';

// "Exactly one of several processes goes ahead", on n8n's deduplication store: the one primitive both nodes use
// (the callback trigger: which execution emits a completion; write-once: which execution sends an attempt of a paid
// write, and which one reads what an attempt left).
//
// n8n's store has no lock: each call reads the row, adds its names and writes the row back. Two processes
// recording one name at the same moment both find it new, and the row keeps the copy written last. So a claim is
// the name plus the claimant's own mark beside it, recorded in one call, then read back a moment later (Fischer's
// timed mutual exclusion): a write read before this one lands within that moment, and afterwards the row says whose
// write it kept. Each read-back records name and mark again, so nothing is ever recorded and taken back: a copy of
// the row written late brings back only what is true.
//
// The moment is not fixed: a burst slows every process's store calls alike (a saturated processor delays the write
// after a read by seconds), and a write read before this one can only land within the time such a call takes. So
// the read-back waits twice as long as this process's slowest call of the last minute, and never less than
// READ_BACK_AFTER_MS (readBackWaitMs). One process far slower than the others is what this cannot see.

/**
 * Read-backs of one claim: another process overwriting the row again right after a read-back is rarer each time. A
 * name found decides at its first read-back; only a name other processes' writes keep dropping takes more (the
 * bench's burst on two workers: about one name in six dropped once, one in a hundred three times in a row).
 */
const READ_BACKS = 6;
/** How many times the slowest recent store call a read-back waits. */
const SLOWEST_CALL_FACTOR = 2;
/** The longest a read-back waits, however slow the store: a claim must end within a webhook's patience. */
const MAX_READ_BACK_WAIT_MS = 8_000;

/** How long a read-back waits now: longer than another process's store call takes under the present load. */
export function readBackWaitMs(now = Date.now()): number {
	return Math.min(MAX_READ_BACK_WAIT_MS, Math.max(READ_BACK_AFTER_MS, SLOWEST_CALL_FACTOR * slowestRecentCallMs(now)));
}

/**
 * - won: this claimant's write of the name is the one the row kept;
 * - before: the name was there before this claim (an earlier claim: a repeat);
 * - meanwhile: another claimant's write of the name, made at the same moment, replaced this one's;
 * - undecided: the name kept disappearing (other processes' writes of other names, every time).
 */
export type ClaimOutcome = 'won' | 'before' | 'meanwhile' | 'undecided';

/** The mark beside a claimed name: whose write of it the row kept. */
export function markOf(name: string, claimant: string): string {
	return `${name}|by:${claimant}`;
}

/** A claimant no other call makes: the execution, the time, a random part. */
export function newClaimant(execution: string | undefined): string {
	return `${execution ?? ''}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Claims each name for `claimant`; says per name whether this claimant goes ahead. Throws when the store does not
 * answer (nothing is decided then). Names claimed together wait side by side: one wait per read-back, not per name.
 */
export async function claim(
	helpers: Store,
	names: string[],
	claimant: string,
	options: ICheckProcessedOptions,
	/** Told of a name another process's write dropped, recorded again. */
	recordedAgain: (name: string) => void = () => undefined,
): Promise<Map<string, ClaimOutcome>> {
	const outcomes = new Map<string, ClaimOutcome>();
	const unique = [...new Set(names)];
	const first = await recordPresent(helpers, unique.flatMap((name) => [name, markOf(name, claimant)]), options);
	for (const name of unique) if (first.has(name)) outcomes.set(name, 'before');
	let pending = unique.filter((name) => !first.has(name));
	for (let readBack = 0; readBack < READ_BACKS && pending.length > 0; readBack++) {
		await sleep(readBackWaitMs());
		const found = await recordPresent(helpers, pending.flatMap((name) => [name, markOf(name, claimant)]), options);
		for (const name of pending.filter((each) => found.has(each))) {
			outcomes.set(name, found.has(markOf(name, claimant)) ? 'won' : 'meanwhile');
		}
		// Gone: another process's write of other names replaced this one's; recorded again by this call.
		pending = pending.filter((name) => !found.has(name));
		pending.forEach(recordedAgain);
	}
	for (const name of pending) outcomes.set(name, 'undecided');
	return outcomes;
}

/**
 * Records facts so that they stay: recorded, then read back a moment later and recorded again while any was
 * missing (a copy of the row read before the first write may have landed after it). Throws when the store does not
 * answer; says whether every fact was found at the last read-back.
 */
export async function recordLasting(helpers: Store, facts: string[], options: ICheckProcessedOptions): Promise<boolean> {
	await recordPresent(helpers, facts, options);
	for (let readBack = 0; readBack < READ_BACKS; readBack++) {
		await sleep(readBackWaitMs());
		const found = await recordPresent(helpers, facts, options);
		if (facts.every((fact) => found.has(fact))) return true;
	}
	return false;
}

/** Records the names; returns those the row held before this call. */
async function recordPresent(helpers: Store, names: string[], options: ICheckProcessedOptions): Promise<Set<string>> {
	return new Set((await checkAndRecord(helpers, names, options)).processed.map(String));
}
