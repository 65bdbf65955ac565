import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { appliedNote } from '../../transport/errors';
import type { WriteResult } from './itemLedger';
import { ItemLedger, mayHaveApplied } from './itemLedger';
import { asNodeError } from './outcomes';
import { checkText, invalidField } from './parameters';

// n8n's Retry (executions list) runs the failed node again with all its input items, and Retry On Fail runs it again
// within the execution: items already applied would be applied again by actions the API repeats (charging again or
// creating duplicates). Each item sent is kept in the ledger (itemLedger.ts) for the run that sent it; a retry of that
// run finds it. A user who asks again in a new execution is not retrying: the action is sent.

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
			"Empty: only a retry of the same run counts as a repeat. Set: the same key within 14 days is a repeat in any execution and is not sent again (e.g. the event ID of a source that re-delivers its webhooks).",
	},
];

/** What the API's state says of a request sent earlier whose answer was lost. */
export type Settled = { applied: WriteResult } | { notApplied: true } | undefined;

export interface EarlierSend {
	/** What readBefore read before that send, when its record was kept. */
	before?: IDataObject;
	/** Ids that this node's other records made: never taken for this item's. */
	claimed: Set<string>;
	/**
	 * Where `before` was not kept: whether what readBefore read before that send equals `state` (true, false), or
	 * undefined when n8n cannot say.
	 */
	wasBefore(state: IDataObject): Promise<boolean | undefined>;
}

export interface GuardedWrite {
	/** The request as sent (method, path, body or multipart fields): the default idempotency key is made of it. */
	request: unknown;
	/** Sends the request; returns the item's output json. */
	send(): Promise<WriteResult>;
	/** Reads what will tell later whether the request was applied (before sending; kept with the record). */
	readBefore?(): Promise<IDataObject>;
	/**
	 * For a request sent earlier whose answer was lost (or not kept): reads the service's state. Applied: the
	 * item's output json. Not applied: it is sent. Undefined (cannot tell): the item stops instead of being sent.
	 */
	settle?(earlier: EarlierSend): Promise<Settled>;
	/** What the output says of an item applied earlier whose answer was not kept (e.g. { orderId }). */
	identity?: IDataObject;
}

/** The item's ledger, or undefined when Retry Protection is off. */
function ledgerOf(ctx: IExecuteFunctions, itemIndex: number, operation: string, request: unknown): ItemLedger | undefined {
	const enabled = ctx.getNodeParameter('retryProtection', itemIndex, true) as unknown;
	if (enabled === false || enabled === 'false') return undefined;
	if (enabled !== true && enabled !== 'true') {
		throw invalidField(ctx, itemIndex, 'Retry Protection', 'must be true or false');
	}
	const raw = ctx.getNodeParameter('idempotencyKey', itemIndex, '') as unknown;
	const given = typeof raw === 'number' ? String(raw) : checkText(ctx, raw, 'Idempotency Key', itemIndex, false);
	return ItemLedger.forItem(ctx, itemIndex, operation, request, given);
}

/** The read before a write; when it fails, the error says the write itself was not sent. */
async function readBeforeSending(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: () => Promise<IDataObject>,
): Promise<IDataObject> {
	try {
		return await read();
	} catch (caught) {
		const error = asNodeError(ctx, caught, itemIndex);
		error.description = [error.description, `The action itself was not sent. ${appliedNote('notApplied')}`]
			.filter(Boolean)
			.join(' ');
		throw error;
	}
}

/** A skipped item: what was applied, said to be so, when and by which execution. */
function repeated(result: WriteResult, at: number | undefined, execution: string | undefined): WriteResult {
	const mark = (json: IDataObject): IDataObject => ({
		...json,
		alreadyApplied: true,
		...(at !== undefined ? { appliedAt: new Date(at).toISOString() } : {}),
		...(execution ? { appliedInExecution: execution } : {}),
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

/**
 * Sends a write the API would apply again, at most once per run (n8n's Retry and Retry On Fail find what the run
 * they retry applied) or per Idempotency Key: an item applied before returns that answer with alreadyApplied true.
 */
export async function sendOnce(
	ctx: IExecuteFunctions,
	itemIndex: number,
	operation: string,
	write: GuardedWrite,
): Promise<WriteResult> {
	const ledger = ledgerOf(ctx, itemIndex, operation, write.request);
	if (ledger === undefined) return await write.send();
	const earlier = await ledger.begin();
	if (earlier.kind === 'applied' && earlier.record?.result !== undefined) {
		return repeated(earlier.record.result, earlier.record.at, earlier.record.execution);
	}
	if (earlier.kind !== 'none') {
		// Sent before, its answer lost (or applied, the answer not kept): the API's state decides.
		const sentAt = earlier.record?.at ?? ledger.identity.startedAt;
		const settled = write.settle
			? await write.settle({
					before: earlier.record?.before,
					claimed: ledger.claimedIds(),
					wasBefore: async (state) => await ledger.wasBefore(state),
				})
			: undefined;
		if (settled !== undefined && 'applied' in settled) {
			await ledger.applied(sentAt ?? Date.now(), settled.applied, earlier.record?.execution);
			return repeated(settled.applied, sentAt, earlier.record?.execution);
		}
		// Known from n8n's store alone outside a retry: another execution with the same key may still be sending it,
		// so a state without its effect proves nothing yet.
		const inFlightElsewhere = earlier.record === undefined && !ledger.identity.isRetry;
		if (settled === undefined || inFlightElsewhere) {
			if (earlier.kind === 'applied') return repeated(write.identity ?? {}, sentAt, earlier.record?.execution);
			throw mayHaveBeenApplied(ctx, itemIndex, sentAt, ledger.explicitKey && !ledger.identity.isRetry);
		}
	}
	const before = write.readBefore ? await readBeforeSending(ctx, itemIndex, write.readBefore) : undefined;
	const now = Date.now();
	await ledger.sending(now, before);
	let result: WriteResult;
	try {
		result = await write.send();
	} catch (error) {
		if (!mayHaveApplied(error)) await ledger.notApplied();
		throw asNodeError(ctx, error, itemIndex);
	}
	await ledger.applied(now, result);
	return result;
}

export type { WriteResult } from './itemLedger';
