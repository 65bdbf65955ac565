import type { IDataObject } from 'n8n-workflow';

import type { GuardedWrite, Settled } from './retryGuard';

// A write that adds one record to a listing the API lets the node read (a revision, a memory, a folder document, a
// project): when its answer was lost, the listing tells whether it was applied. A record like the one asked for that
// was not listed before sending, and that no other item made, was made by it. Only the ids of records alike are kept
// before sending, so the ledger stays small.

/** What readBefore keeps of a listing: the ids of the records alike. */
export function listedIds(listed: IDataObject[]): IDataObject {
	return { ids: listed.map((record) => String(record.id)) };
}

/**
 * The records a write whose answer was lost made: listed now, not listed before sending (`before`, from listedIds),
 * made by no other item (`claimed`). Undefined when what was listed before is not known.
 */
export function madeSinceSending(listed: IDataObject[], before: IDataObject | undefined, claimed: Set<string>): IDataObject[] | undefined {
	if (!Array.isArray(before?.ids)) return undefined;
	const known = new Set([...(before.ids as string[]), ...claimed]);
	return listed.filter((record) => !known.has(String(record.id)));
}

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
		readBefore: async () => listedIds(await alike()),
		settle: async ({ before, claimed }): Promise<Settled> => {
			const made = madeSinceSending(await alike(), before, claimed);
			if (made === undefined) return undefined;
			if (made.length === 0) return { notApplied: true };
			// Two new records alike (another execution made one too): which one is this item's cannot be told.
			return made.length === 1 ? { applied: await output(made[0]) } : undefined;
		},
	};
}
