import type { ICheckProcessedOptions } from 'n8n-workflow';

import type { Store } from './deduplicationStore';
import { inSection } from './deduplicationStore';

// Decides, for each name, whether this execution is the first of all n8n's processes to claim it: which execution
// emits a completion (the callback trigger), which one sends an attempt of a paid write (write-once). The name is
// recorded in the node's row inside the workflow's exclusive section, so no other process reads or writes the row
// meanwhile: a name was there before, or this call put it there and no other can. One section per call, no waiting
// on other processes' pace. It holds while no process stays inside the section longer than the lease (60 s,
// exclusive.ts); a process that died inside it makes the others wait the lease once.

/** won: this call recorded the name first; before: an earlier claim did (a repeat). */
export type ClaimOutcome = 'won' | 'before';

/** Claims each name. Throws when the store does not answer or the section cannot be had (nothing recorded then). */
export async function claim(helpers: Store, names: string[], options: ICheckProcessedOptions): Promise<Map<string, ClaimOutcome>> {
	const unique = [...new Set(names)];
	const found = await inSection(helpers, options, async (row) => await row.record(unique));
	return new Map(unique.map((name) => [name, found.has(name) ? 'before' : 'won']));
}
