import type { IDataObject } from 'n8n-workflow';

import type { GuardedWrite, Settled } from './retryGuard';

// A write that adds one record to a listing the API lets the node read (a revision, a memory, a folder document, a
// project): when its answer was lost, the listing tells whether it was applied. A record like the one asked for that
// was not listed before sending, and that no other item made, was made by it. Only the ids of records alike are kept
// before sending, so the ledger stays small.

/**
 * readBefore and settle from a listing. `list` reads it with one request; `isAsked` says whether a record is like the
 * one asked for; `output` makes the item's json of the record found.
 */
export function settleByListing(
	list: () => Promise<IDataObject[]>,
	isAsked: (record: IDataObject) => boolean,
	output: (record: IDataObject) => IDataObject | Promise<IDataObject> = (record) => record,
): Required<Pick<GuardedWrite, 'readBefore' | 'settle'>> {
	const alike = async () => (await list()).filter(isAsked);
	return {
		readBefore: async () => ({ ids: (await alike()).map((record) => String(record.id)) }),
		settle: async ({ before, claimed }): Promise<Settled> => {
			if (!Array.isArray(before?.ids)) return undefined;
			const known = new Set([...(before.ids as string[]), ...claimed]);
			const made = (await alike()).filter((record) => !known.has(String(record.id)));
			if (made.length === 0) return { notApplied: true };
			// Two new records alike (another execution made one too): which one is this item's cannot be told.
			return made.length === 1 ? { applied: await output(made[0]) } : undefined;
		},
	};
}
