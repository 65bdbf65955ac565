import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ErrorHints } from '../../../transport';
import { apiRequest } from '../../../transport';
import { asNodeError } from '../outcomes';
import { records } from '../simplify';
import type { LostAnswer, PaidWrite, WriteResult } from './types';

// How a paid write's lost answer is read back from the API: the declarations writeOnce understands, and the reads
// they are made of.

/**
 * A write that adds a record to a listing (an order, a revision, a memory, a folder document, a project): the ids
 * of the records alike listed before sending are the baseline; afterwards, the one record alike that was not listed
 * then, and that no other item made, is this item's. `list` reads the listing; `isAsked` says whether a record is
 * like the one asked for; `output` makes the item's json of the records found; `isWhole` says whether they are what
 * one send makes (one record; one order per language asked), else which are this item's cannot be told.
 */
export function byListing(
	list: () => Promise<IDataObject[]>,
	isAsked: (record: IDataObject) => boolean,
	output: (made: IDataObject[]) => WriteResult | Promise<WriteResult> = (made) => made[0],
	isWhole: (made: IDataObject[]) => boolean = (made) => made.length === 1,
): LostAnswer {
	const alike = async () => (await list()).filter(isAsked);
	return {
		readFrom: 'listing',
		baseline: async () => (await alike()).map((record) => String(record.id)),
		candidates: async () => {
			const rows = await alike();
			return { ids: rows.map((record) => String(record.id)), output: async (own) => await output(rows.filter((record) => own.includes(String(record.id)))) };
		},
		settle: async ({ has, claimed }) => {
			const made: IDataObject[] = [];
			for (const record of await alike()) {
				const id = String(record.id);
				if (claimed.has(id)) continue;
				const before = await has(id);
				if (before === undefined) return undefined;
				if (!before) made.push(record);
			}
			if (made.length === 0) return { notApplied: true };
			return isWhole(made) ? { applied: await output(made) } : undefined;
		},
	};
}

/** A write the API refuses to repeat (statuses): after an earlier send, such a refusal reads the state (`confirm`). */
export function byRefusal(statuses: number[], confirm: () => Promise<IDataObject | undefined>): LostAnswer {
	return { readFrom: 'refusal', statuses, confirm };
}

/** The API shows nothing of the write (Rerun, Subtitle Embedding): a lost answer stops the item. */
export const cannotReadBack: LostAnswer = { readFrom: 'nothing' };

/** Whether a GET of this path answers 404 (the thing is gone); other failures are thrown. */
export async function isGone(ctx: IExecuteFunctions, path: string, itemIndex: number): Promise<boolean> {
	try {
		await apiRequest.call(ctx, { method: 'GET', path, retry: 'safe', itemIndex });
		return false;
	} catch (error) {
		if (Number((error as { httpCode?: unknown }).httpCode) === 404) return true;
		throw asNodeError(ctx, error, itemIndex);
	}
}

/** Whether the list this GET answers holds no row with this id. */
export async function isUnlisted(ctx: IExecuteFunctions, path: string, id: string, itemIndex: number): Promise<boolean> {
	const listed = await apiRequest.call(ctx, { method: 'GET', path, retry: 'safe', itemIndex });
	return !records(listed).some((row) => row.id === id);
}

/** A DELETE: a repeat's 404 (already deleted) is checked against a read, and gone reads as done. */
export function removeOnce(
	ctx: IExecuteFunctions,
	itemIndex: number,
	target: { path: string; errorHints?: ErrorHints; isGone(): Promise<boolean>; applied: IDataObject },
): PaidWrite {
	return {
		request: { method: 'DELETE', path: target.path },
		send: async () => {
			await apiRequest.call(ctx, {
				method: 'DELETE',
				path: target.path,
				// Not repeated blindly after an unclear failure: the repeat's 404 would hide whether it was deleted.
				retry: 'once',
				expectBody: false,
				itemIndex,
				...(target.errorHints ? { errorHints: target.errorHints } : {}),
			});
			return target.applied;
		},
		lostAnswer: byRefusal([404], async () => ((await target.isGone()) ? target.applied : undefined)),
	};
}
