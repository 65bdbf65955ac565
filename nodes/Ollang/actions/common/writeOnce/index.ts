import type { IExecuteFunctions } from 'n8n-workflow';

import { appliedNote } from '../../../transport/errors';
import { sendPaid } from '../../../transport';
import { asNodeError } from '../outcomes';
import { checkBoolean, checkText } from '../parameters';
import { IDEMPOTENCY_KEY_PARAMETER, RETRY_PROTECTION_PARAMETER } from '../retryProtection';
import { itemKey, runIdentity } from './keys';
import type { RunIdentity } from './keys';
import { ATTEMPTS, NAMES_PER_ITEM, StoreMarkers } from './markers';
import { idsOf, MAX_REMEMBERED, ProcessRecords } from './records';
import { alreadyAppliedOutput, mayHaveBeenApplied, outOfAttempts, storeDidNotAnswer } from './stops';
import type { ItemContext } from './takenAttempt';
import { readTakenAttempt } from './takenAttempt';
import type { PaidWrite, WriteRecord, WriteResult } from './types';

// The write-once protocol: every paid write (node.type.ts, kind 'paidWrite') sends through writeOnce, and only
// there (the transport refuses a paid write's request elsewhere). Its steps, each returning a small union
// (docs/internals/retries.md has the table):
//   1. earlier: what this process remembers of an earlier send of the item (records.ts): applied (its answer again),
//      or sent with its answer lost (settled from the API's state first).
//   2. baseline: read what will tell later whether the send applied. A failed read sends nothing.
//   3. reserve: claim the attempt in n8n's store (one execution of all processes goes ahead); an attempt another
//      execution claimed is read instead (takenAttempt.ts): its answer, or the next attempt.
//   4. send: applied (recorded, with the ids it made) | not applied, typed by the transport (released: the next
//      attempt may go) | may have been applied (kept 'sent', its baseline kept: the next run settles it).
// Keys: the router's resource and operation, then the Idempotency Key or the run and the item's request.

export type { Baseline, Candidates, LostAnswer, PaidWrite, Settled, WriteResult } from './types';
export { REMEMBER_DAYS, MAX_REMEMBERED } from './records';
export { byListing, byRefusal, cannotReadBack, isGone, isUnlisted, removeOnce } from './lostAnswer';

/** n8n's store keeps this node's write-once names in one row: every item's, for the MAX_REMEMBERED newest items. */
const STORE_OPTIONS = { mode: 'entries', maxEntries: NAMES_PER_ITEM * MAX_REMEMBERED } as const;

/** One node run's records, store names and identity, shared by its items; old records are pruned once, before its first item. */
const runs = new WeakMap<IExecuteFunctions, { records: ProcessRecords; markers: StoreMarkers; identity: RunIdentity }>();
function nodeRun(ctx: IExecuteFunctions) {
	let found = runs.get(ctx);
	if (found === undefined) {
		found = { records: new ProcessRecords(ctx), markers: new StoreMarkers(ctx, STORE_OPTIONS), identity: runIdentity(ctx) };
		found.records.prune(Date.now());
		runs.set(ctx, found);
	}
	return found;
}

interface Item extends ItemContext {
	identity: RunIdentity;
	/** The item's key without the run (a retry on an n8n without an execution context looks it up by this). */
	base: string;
}

export async function writeOnce(ctx: IExecuteFunctions, itemIndex: number, write: PaidWrite): Promise<WriteResult> {
	if (!checkBoolean(ctx, ctx.getNodeParameter(RETRY_PROTECTION_PARAMETER, itemIndex, true), 'Retry Protection', itemIndex, true)) {
		const sent = await sendPaid(ctx, write.send);
		if ('answered' in sent) return sent.answered;
		throw asNodeError(ctx, sent.failed, itemIndex);
	}
	const item = itemOf(ctx, itemIndex, write);
	const earlier = await fromEarlierSend(item, write);
	if ('done' in earlier) return earlier.done;
	const baseline = 'baseline' in write.lostAnswer ? await readBaseline(ctx, itemIndex, write.lostAnswer.baseline) : undefined;
	const reserved = await reserve(item, write, earlier.attempt, baseline);
	if ('done' in reserved) return reserved.done;
	return await send(item, write, reserved.attempt, baseline, earlier.refusalMeansDone || reserved.refusalMeansDone);
}

function itemOf(ctx: IExecuteFunctions, itemIndex: number, write: PaidWrite): Item {
	const raw = ctx.getNodeParameter(IDEMPOTENCY_KEY_PARAMETER, itemIndex, '') as unknown;
	const given = typeof raw === 'number' ? String(raw) : checkText(ctx, raw, 'Idempotency Key', itemIndex, false);
	const { records, markers, identity } = nodeRun(ctx);
	const base = itemKey(ctx, itemIndex, write.request, given);
	const key = given !== undefined ? base : `${base}@${identity.run}`;
	return { ctx, itemIndex, key, base, keyed: given !== undefined, isRetry: identity.isRetry, records, markers, identity };
}

/** Step 1: done (the item's output), or the attempt to send next and whether an API refusal then means done. */
type FromEarlier = { done: WriteResult } | { attempt: number; refusalMeansDone: boolean };

async function fromEarlierSend(item: Item, write: PaidWrite): Promise<FromEarlier> {
	const { ctx, itemIndex, key, records, markers, identity } = item;
	const kept = records.get(key) ?? (identity.retryOfUnknownRun && !item.keyed ? records.newestOfItem(item.base) : undefined);
	// Outside n8n's Retry, only this execution's own earlier try (Retry On Fail) repeats a default-keyed item.
	const sameIntent = item.keyed || identity.isRetry || (identity.execution !== '' && kept?.execution === identity.execution);
	const record = sameIntent ? kept : undefined;
	if (record === undefined) return { attempt: 0, refusalMeansDone: false };
	const attempt = record.attempt ?? 0;
	if (record.state === 'applied') return { done: alreadyAppliedOutput(record.result ?? write.identity ?? {}, record) };
	if (record.state === 'released') return { attempt: attempt + 1, refusalMeansDone: false };
	// Still being sent by another execution of this process: its claim in the store is read instead.
	if (record.sending === true) return { attempt, refusalMeansDone: false };
	// Sent, its answer lost: that send is over.
	const { lostAnswer } = write;
	if (lostAnswer.readFrom === 'refusal') return { attempt: attempt + 1, refusalMeansDone: true };
	if (lostAnswer.readFrom === 'nothing') throw mayHaveBeenApplied(ctx, itemIndex, record.at, item.keyed && !identity.isRetry);
	const settled = await lostAnswer.settle(baselineOfRecord(record, records, markers, key, attempt));
	if (settled !== undefined && 'applied' in settled) {
		records.set(key, { state: 'applied', at: record.at, execution: record.execution, result: settled.applied });
		await markers.recordEnd(key, attempt, { applied: idsOf(settled.applied) }, record.baseline);
		return { done: alreadyAppliedOutput(settled.applied, record) };
	}
	if (settled === undefined) throw mayHaveBeenApplied(ctx, itemIndex, record.at, item.keyed && !identity.isRetry);
	await markers.recordEnd(key, attempt, 'released', record.baseline);
	return { attempt: attempt + 1, refusalMeansDone: false };
}

/** The baseline an earlier send kept in its record, else in n8n's store. */
function baselineOfRecord(record: WriteRecord, records: ProcessRecords, markers: StoreMarkers, key: string, attempt: number) {
	const tokens = record.baseline;
	const fromStore = markers.baselineOf(key, attempt);
	return {
		has: async (token: string) => (tokens !== undefined ? tokens.includes(token) : await fromStore(token)),
		claimed: records.claimedIds(),
	};
}

/** Step 2. When the read fails, the error says the write itself was not sent. */
async function readBaseline(ctx: IExecuteFunctions, itemIndex: number, read: () => Promise<string[]>): Promise<string[]> {
	try {
		return await read();
	} catch (caught) {
		const error = asNodeError(ctx, caught, itemIndex);
		error.description = [error.description, `The action itself was not sent. ${appliedNote('notApplied')}`].filter(Boolean).join(' ');
		throw error;
	}
}

/** Step 3: the attempt this execution won, or done (another execution's attempt applied it). */
type Reserved = { done: WriteResult } | { attempt: number; refusalMeansDone: boolean };

async function reserve(item: Item, write: PaidWrite, from: number, baseline: string[] | undefined): Promise<Reserved> {
	let refusalMeansDone = false;
	for (let attempt = from; attempt < ATTEMPTS; attempt++) {
		const claimed = await item.markers.claimAttempt(item.key, attempt, baseline);
		if (claimed === 'failed') throw storeDidNotAnswer(item.ctx, item.itemIndex);
		// Without an Idempotency Key, outside n8n's Retry, another execution's claim is not this item's repeat (the
		// same run's context can be shared: an MCP Server Trigger's tool calls): asked again, it is sent again.
		if (claimed === 'won' || (!item.keyed && !item.isRetry)) return { attempt, refusalMeansDone };
		const after = await readTakenAttempt(item, write, attempt);
		if ('done' in after) return after;
		refusalMeansDone ||= after.refusalMeansDone;
	}
	throw outOfAttempts(item.ctx, item.itemIndex, ATTEMPTS);
}

/** Step 4: the send, and what its end leaves for the next run and for other executions. */
async function send(item: Item, write: PaidWrite, attempt: number, baseline: string[] | undefined, refusalMeansDone: boolean): Promise<WriteResult> {
	const { ctx, itemIndex, key, records, markers, identity } = item;
	const now = Date.now();
	const earlier = records.get(key);
	const sending: WriteRecord = { state: 'sent', at: now, execution: identity.execution, attempt, ...(baseline ? { baseline } : {}) };
	// Marked until this execution has settled what the send left (another execution of this process waits for it).
	records.set(key, { ...sending, sending: true });
	const sent = await sendPaid(ctx, write.send).catch((error: unknown) => {
		records.set(key, sending);
		throw error;
	});
	if ('answered' in sent) {
		records.set(key, { state: 'applied', at: now, execution: identity.execution, result: sent.answered });
		await markers.recordEnd(key, attempt, { applied: idsOf(sent.answered) }, baseline);
		return sent.answered;
	}
	const error = asNodeError(ctx, sent.failed, itemIndex);
	const { lostAnswer } = write;
	const status = Number((error as { httpCode?: string | null }).httpCode);
	if (refusalMeansDone && lostAnswer.readFrom === 'refusal' && lostAnswer.statuses.includes(status)) {
		// When the state cannot be read, the API's own answer is the truest thing to show.
		const confirmed = await lostAnswer.confirm().catch(() => undefined);
		if (confirmed !== undefined) {
			records.set(key, { state: 'applied', at: earlier?.at ?? now, execution: earlier?.execution, result: confirmed });
			await markers.recordEnd(key, attempt, { applied: idsOf(confirmed) }, baseline);
			return alreadyAppliedOutput(confirmed, earlier);
		}
	}
	if (sent.applied === 'notApplied') {
		records.set(key, { state: 'released', at: now, execution: identity.execution, attempt });
		await markers.recordEnd(key, attempt, 'released', baseline);
	} else records.set(key, sending);
	// Otherwise it may have been applied: the next run settles it from the baseline kept with the claim.
	throw error;
}
