import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ErrorHints } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { ItemLedger, mayHaveApplied } from './itemLedger';
import { asNodeError } from './outcomes';
import { isRecord } from './responses';
import { records } from './simplify';

// A write repeated by n8n's Retry or Retry On Fail meets the state its first run left: the API then refuses it
// ("this order is ongoing", "already cancelled", "not found"). Where this node sent the item before in the run being
// retried (its ledger says so) and the API's state shows the effect, the item succeeds with alreadyApplied true.
// Anywhere else the refusal is the answer: a mistyped ID, an order that never had a review, a repeat on purpose.

export interface ConfirmableWrite {
	/** The operation and the request as sent: what names the item in its ledger. */
	operation: string;
	request: unknown;
	/** Sends the write; returns the item's output json. */
	send(): Promise<IDataObject>;
	/** HTTP statuses of the answers that may mean "already done". */
	refusals: number[];
	/** Reads the API's state (through the same transport): the item's output json when the effect asked for is there. */
	confirm(): Promise<IDataObject | undefined>;
}

function statusOf(error: unknown): number | undefined {
	const code = Number((error as { httpCode?: string | null } | undefined)?.httpCode);
	return Number.isInteger(code) ? code : undefined;
}

export async function sendOrConfirm(ctx: IExecuteFunctions, itemIndex: number, write: ConfirmableWrite): Promise<IDataObject> {
	const ledger = ItemLedger.forItem(ctx, itemIndex, write.operation, write.request);
	const earlier = await ledger.begin();
	const now = Date.now();
	await ledger.sending(now);
	try {
		const result = await write.send();
		await ledger.applied(now, result);
		return result;
	} catch (error) {
		const refused = asNodeError(ctx, error, itemIndex);
		const status = statusOf(refused);
		const mayBeRepeat = earlier.kind !== 'none' && status !== undefined && write.refusals.includes(status);
		// When the state cannot be read, the API's own answer is the truest thing to show.
		const applied = mayBeRepeat ? await write.confirm().catch(() => undefined) : undefined;
		if (applied === undefined) {
			if (!mayHaveApplied(refused)) await ledger.notApplied();
			throw refused;
		}
		const at = earlier.kind !== 'none' ? earlier.record?.at : undefined;
		const execution = earlier.kind !== 'none' ? earlier.record?.execution : undefined;
		await ledger.applied(at ?? now, applied, execution);
		return {
			...applied,
			alreadyApplied: true,
			...(at !== undefined ? { appliedAt: new Date(at).toISOString() } : {}),
			...(execution ? { appliedInExecution: execution } : {}),
		};
	}
}

/** The order as the API shows it (Order > Get), for checks of an order action's effect. */
export async function readOrderState(ctx: IExecuteFunctions, orderId: string, itemIndex: number): Promise<IDataObject> {
	const answer = await apiRequest.call(ctx, {
		method: 'GET',
		path: apiPath`/integration/orders/${orderId}`,
		retry: 'safe',
		itemIndex,
	});
	return isRecord(answer) ? answer : {};
}

/** Whether a GET of this path answers 404 (the thing is gone); other failures are thrown. */
export async function isGone(ctx: IExecuteFunctions, path: string, itemIndex: number): Promise<boolean> {
	try {
		await apiRequest.call(ctx, { method: 'GET', path, retry: 'safe', itemIndex });
		return false;
	} catch (error) {
		if (statusOf(error) === 404) return true;
		throw asNodeError(ctx, error, itemIndex);
	}
}

export interface ConfirmableDelete {
	path: string;
	errorHints?: ErrorHints;
	/** Reads whether the thing is gone (a read of it answering 404, or a list without it). */
	isGone(): Promise<boolean>;
	/** The item's output json. */
	applied: IDataObject;
}

/** A DELETE whose 404 (a repeat: already deleted) is checked against a read: gone reads as applied. */
export async function deleteOrConfirmGone(ctx: IExecuteFunctions, itemIndex: number, target: ConfirmableDelete): Promise<IDataObject> {
	return await sendOrConfirm(ctx, itemIndex, {
		operation: 'delete',
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
		refusals: [404],
		confirm: async () => ((await target.isGone()) ? target.applied : undefined),
	});
}

/** Whether the list this GET answers holds no row with this id. */
export async function isUnlisted(ctx: IExecuteFunctions, path: string, id: string, itemIndex: number): Promise<boolean> {
	const listed = await apiRequest.call(ctx, { method: 'GET', path, retry: 'safe', itemIndex });
	return !records(listed).some((row) => row.id === id);
}
