import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { appliedNote } from '../../../transport/errors';
import { asPaidSend } from '../../../transport';
import { asNodeError } from '../outcomes';
import { checkBoolean, checkText } from '../parameters';
import { itemKey, runIdentity } from './keys';
import type { RunIdentity } from './keys';
import type { WriteRecord, WriteResult } from './records';
import { Records } from './records';

// The write-once protocol: every paid write (node.type.ts, kind 'paidWrite') sends through writeOnce, and only
// there (the transport refuses a paid write's request elsewhere). Its steps, and what a failure at each leaves
// (docs/retries.md has the table):
//   1. earlier: what an earlier send of this item left (static data, else n8n's deduplication store). Applied: its
//      answer again, alreadyApplied. Sent, answer unknown: settled from the API's state (lostAnswer) first.
//   2. baseline: read what will tell later whether the send applied. A failed read reserves nothing.
//   3. reserve: the record 'sent' (static data) and the markers (the store, with the baseline's tokens), in one
//      call, for this attempt (0, then one more after each lost answer settled as not applied, so two executions
//      sending again meet on one marker); a store that does not answer stops the item unsent, another execution's
//      reservation of the same attempt too.
//   4. send: applied (record and marker 'applied') | refused (released: the next run sends it) | unknown (kept
//      'sent': the next run settles it from the API).
// Keys: the router's resource and operation, then the Idempotency Key or the run and the item's request.

export type { WriteResult } from './records';
export { REMEMBER_DAYS, MAX_REMEMBERED } from './records';
export { byListing, byRefusal, cannotReadBack, isGone, isUnlisted, orderState, removeOnce } from './lostAnswer';

/** What the API's state says of a send whose answer was lost: applied (the item's output), not applied, or unknown. */
export type Settled = { applied: WriteResult } | { notApplied: true } | undefined;

/** The baseline read before the earlier send, as far as it was kept. */
export interface Baseline {
	/** Whether the baseline held this token; undefined when it was not kept. */
	has(token: string): Promise<boolean | undefined>;
	/** Ids this node's other records made: never taken for this item's. */
	claimed: Set<string>;
}

/** How a lost answer is read back from the API, declared by each paid write. */
export type LostAnswer =
	/** A state or a listing read before sending (its tokens) and again after: the difference is this item's. */
	| { readFrom: 'state' | 'listing'; baseline(): Promise<string[]>; settle(baseline: Baseline): Promise<Settled> }
	/** The API refuses a repeat (statuses): sent again, such a refusal after an earlier send reads the state. */
	| { readFrom: 'refusal'; statuses: number[]; confirm(): Promise<IDataObject | undefined> }
	/** The API shows nothing of it: a lost answer stops the item with a way forward. */
	| { readFrom: 'nothing' };

export interface PaidWrite {
	/** The request as sent (method, path, body or fields): the default key is made of it. */
	request: unknown;
	/** Sends it; returns the item's output json. */
	send(): Promise<WriteResult>;
	lostAnswer: LostAnswer;
	/** What the output says of an item known applied only from n8n's store (e.g. { orderId }). */
	identity?: IDataObject;
}

export const retryProtectionFields: INodeProperties[] = [
	{
		displayName: 'Retry Protection',
		name: 'retryProtection',
		type: 'boolean',
		default: true,
		description:
			"Whether n8n's Retry of a failed execution and Retry On Fail skip the items this node already applied in the run they retry, so nothing is applied or charged twice. Any other execution sends its items, also the same request again. A skipped item returns what was applied, with alreadyApplied true.",
	},
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		displayOptions: { show: { retryProtection: [true] } },
		placeholder: 'e.g. {{ $json.body.eventId }}',
		description:
			'Empty: only a retry of the same run counts as a repeat. Set: the same key within 14 days is a repeat in any execution and is not sent again (e.g. the event ID of a source that re-delivers its webhooks).',
	},
];

/** One node run's records and identity, shared by its items; old records are pruned once, before its first item. */
const runs = new WeakMap<IExecuteFunctions, { records: Records; identity: RunIdentity }>();
function nodeRun(ctx: IExecuteFunctions) {
	let found = runs.get(ctx);
	if (found === undefined) {
		found = { records: new Records(ctx), identity: runIdentity(ctx) };
		found.records.prune(Date.now());
		runs.set(ctx, found);
	}
	return found;
}

export async function writeOnce(ctx: IExecuteFunctions, itemIndex: number, write: PaidWrite): Promise<WriteResult> {
	if (!checkBoolean(ctx, ctx.getNodeParameter('retryProtection', itemIndex, true), 'Retry Protection', itemIndex, true)) {
		return await asPaidSend(ctx, write.send);
	}
	const raw = ctx.getNodeParameter('idempotencyKey', itemIndex, '') as unknown;
	const given = typeof raw === 'number' ? String(raw) : checkText(ctx, raw, 'Idempotency Key', itemIndex, false);
	const { records, identity } = nodeRun(ctx);
	const base = itemKey(ctx, itemIndex, write.request, given);
	const key = given !== undefined ? base : `${base}@${identity.run}`;
	const now = Date.now();
	// Outside n8n's Retry, only this execution's own earlier try (Retry On Fail) repeats a default-keyed item.
	const counts = given !== undefined || identity.isRetry;

	// 1. What an earlier send left.
	const kept = records.get(key) ?? (identity.retryOfUnknownRun && given === undefined ? records.newestOfItem(base) : undefined);
	const sameExecution = identity.execution !== '' && kept?.execution === identity.execution;
	const record = kept !== undefined && (counts || sameExecution) ? kept : undefined;
	const marker = record === undefined && counts ? await records.peek(key, now) : { state: 'none', attempt: -1 };
	const earlier = record?.state ?? (marker.state === 'applied' || marker.state === 'sent' ? marker.state : undefined);
	const lastAttempt = record !== undefined ? (record.attempt ?? 0) : marker.attempt;
	if (earlier === 'applied' && record?.result !== undefined) return repeated(record.result, record);
	const { lostAnswer } = write;
	if (earlier !== undefined && lostAnswer.readFrom !== 'refusal') {
		const settled = lostAnswer.readFrom === 'nothing' ? undefined : await lostAnswer.settle(baselineOf(records, key, record, lastAttempt));
		if (settled !== undefined && 'applied' in settled) {
			const at = record?.at ?? now;
			records.set(key, { state: 'applied', at, execution: record?.execution, result: settled.applied });
			await records.markApplied(key, now);
			return repeated(settled.applied, record);
		}
		// Known from n8n's store alone outside a retry: another execution with the same key may still be sending it,
		// so a state without its effect proves nothing yet. Known applied: never sent again.
		const inFlightElsewhere = record === undefined && !identity.isRetry;
		if (settled === undefined || inFlightElsewhere || earlier === 'applied') {
			if (earlier === 'applied') return repeated(write.identity ?? {}, record);
			throw mayHaveBeenApplied(ctx, itemIndex, record?.at, given !== undefined && !identity.isRetry);
		}
	}
	// Sent before and not applied (settled), or a repeat the API refuses: the next attempt is reserved.
	const attempt = earlier !== undefined ? lastAttempt + 1 : 0;

	// 2. The baseline. 3. The reservation.
	const baseline = 'baseline' in lostAnswer ? await readBaseline(ctx, itemIndex, lostAnswer.baseline) : undefined;
	const reserved = await records.reserve(key, attempt, now, baseline);
	if (reserved === 'failed') {
		throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex} was not sent: n8n's deduplication store did not answer`, {
			itemIndex,
			description: `Without it, a retry could not tell whether item ${itemIndex} was sent. ${appliedNote('notApplied')} Retry the execution.`,
		});
	}
	if (reserved === 'taken' && counts) {
		throw new NodeOperationError(ctx.getNode(), `Item ${itemIndex}'s Idempotency Key is being sent by another execution`, {
			itemIndex,
			description: `Nothing was sent for it here: that execution's result is this item's. If that execution fails, retry it, or run item ${itemIndex} again with the same key.`,
		});
	}
	records.set(key, { state: 'sent', at: now, execution: identity.execution, attempt, ...(baseline ? { baseline } : {}) });

	// 4. The send, and its three ends.
	let result: WriteResult;
	try {
		result = await asPaidSend(ctx, write.send);
	} catch (caught) {
		const error = asNodeError(ctx, caught, itemIndex);
		const status = Number((error as { httpCode?: string | null }).httpCode);
		if (earlier !== undefined && lostAnswer.readFrom === 'refusal' && lostAnswer.statuses.includes(status)) {
			// When the state cannot be read, the API's own answer is the truest thing to show.
			const confirmed = await lostAnswer.confirm().catch(() => undefined);
			if (confirmed !== undefined) {
				records.set(key, { state: 'applied', at: record?.at ?? now, execution: record?.execution, result: confirmed });
				await records.markApplied(key, now);
				return repeated(confirmed, record);
			}
		}
		if (!mayHaveApplied(error)) {
			records.delete(key);
			await records.release(key, attempt, now);
		}
		throw error;
	}
	records.set(key, { state: 'applied', at: now, execution: identity.execution, result });
	await records.markApplied(key, now);
	return result;
}

/** The baseline of the earlier send: its record's tokens, else the tokens kept as markers in n8n's store. */
function baselineOf(records: Records, key: string, record: WriteRecord | undefined, attempt: number): Baseline {
	const before = record?.before;
	const legacy = Array.isArray(before?.ids)
		? (before.ids as string[])
		: before !== undefined && 'latestEvaluationId' in before
			? [String(before.latestEvaluationId ?? 'none')]
			: undefined;
	const tokens = record?.baseline ?? legacy;
	return {
		has: async (token) => (tokens !== undefined ? tokens.includes(token) : await records.wasInBaseline(key, attempt, token)),
		claimed: records.claimedIds(),
	};
}

/** The read before a write; when it fails, the error says the write itself was not sent. */
async function readBaseline(ctx: IExecuteFunctions, itemIndex: number, read: () => Promise<string[]>): Promise<string[]> {
	try {
		return await read();
	} catch (caught) {
		const error = asNodeError(ctx, caught, itemIndex);
		error.description = [error.description, `The action itself was not sent. ${appliedNote('notApplied')}`].filter(Boolean).join(' ');
		throw error;
	}
}

/** A failure after which the API may have acted: the record stays 'sent'. Anything else means it did not act. */
function mayHaveApplied(error: NodeOperationError | ReturnType<typeof asNodeError>): boolean {
	const description = String(error.description ?? '');
	if (description.includes(appliedNote('notApplied'))) return false;
	if (description.includes(appliedNote('mayHaveApplied'))) return true;
	// An answer from the API (4xx) is a refusal: nothing was done.
	const status = Number((error as { httpCode?: string | null }).httpCode);
	return !(status >= 400 && status < 500);
}

/** A skipped item: what was applied, said to be so, when and by which execution. */
function repeated(result: WriteResult, record: WriteRecord | undefined): WriteResult {
	const mark = (json: IDataObject): IDataObject => ({
		...json,
		alreadyApplied: true,
		...(record?.at !== undefined ? { appliedAt: new Date(record.at).toISOString() } : {}),
		...(record?.execution ? { appliedInExecution: record.execution } : {}),
	});
	return Array.isArray(result) ? result.map(mark) : mark(result);
}

function mayHaveBeenApplied(ctx: IExecuteFunctions, itemIndex: number, sentAt: number | undefined, byKey: boolean): NodeOperationError {
	const when = sentAt !== undefined ? ` (${new Date(sentAt).toISOString()})` : '';
	const message = byKey
		? `Item ${itemIndex}'s Idempotency Key was sent by another execution${when} whose answer is not known here, so it may have been applied`
		: `Item ${itemIndex} was sent in the run this retries${when} and its answer was lost, so it may have been applied`;
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: `Nothing was sent again for it. ${appliedNote('mayHaveApplied')} If it was not applied, send item ${itemIndex} alone: run it in a new execution (not Retry), or give it an Idempotency Key of its own. Retrying with Retry Protection off would send every item again.`,
	});
}
