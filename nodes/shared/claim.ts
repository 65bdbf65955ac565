import type { ICheckProcessedOptions } from 'n8n-workflow';

import type { Store } from './deduplicationStore';
import { recordInSection } from './deduplicationStore';

// Decides, for each name, whether this execution is the first of all n8n's processes to claim it: the one primitive
// both nodes use (the callback trigger: which execution emits a completion; write-once: which execution sends an
// attempt of a paid write, and which one reads what an attempt left).
//
// The names live in the node's row of n8n's deduplication store, which n8n reads and writes back whole without a
// condition, so two processes writing it at once lose one's names. Every write of that row by these nodes happens
// inside the workflow's exclusive section (exclusive.ts: held by the process whose insert the database accepted),
// so a call's read and write of the row are never interleaved with another process's: a name was there before the
// call, or the call put it there and no other can. No read-back, no waiting on other processes' pace: one section
// per call (an insert, a read and a write of the node's row, a delete).
//
// The condition it holds under: no process stays inside the section longer than the lease (60 s, stopped or
// starved there); after that the section is taken from it as dead, and its own late write of the node's row could
// put back a copy without names recorded meanwhile. A process that died inside the section makes the others wait
// the lease once, then they go on.

/** won: this call recorded the name first; before: it was recorded by an earlier claim (a repeat). */
export type ClaimOutcome = 'won' | 'before';

/**
 * Claims each name; says per name whether this execution goes ahead. Throws when the store does not answer or the
 * section cannot be had (nothing is decided then, and nothing recorded).
 */
export async function claim(helpers: Store, names: string[], options: ICheckProcessedOptions): Promise<Map<string, ClaimOutcome>> {
	const unique = [...new Set(names)];
	const found = await recordInSection(helpers, unique, options);
	return new Map(unique.map((name) => [name, found.has(name) ? 'before' : 'won']));
}

/** Records facts (they stay: nothing else writes the row meanwhile). Throws when the store does not answer. */
export async function record(helpers: Store, facts: string[], options: ICheckProcessedOptions): Promise<void> {
	await recordInSection(helpers, facts, options);
}
