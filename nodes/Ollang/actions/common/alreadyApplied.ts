import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ErrorHints } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { asNodeError } from './outcomes';
import { isRecord } from './responses';
import { records } from './simplify';

// A write repeated by n8n's Retry or Retry On Fail meets the state its first run left: the API then refuses it
// ("this order is ongoing", "already cancelled", "not found"). Where the API's state shows the effect, such an
// answer is checked against that state, and an item whose effect is there succeeds with alreadyApplied true.

export interface ConfirmableWrite {
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
	try {
		return await write.send();
	} catch (error) {
		const refused = asNodeError(ctx, error, itemIndex);
		const status = statusOf(refused);
		if (status === undefined || !write.refusals.includes(status)) throw refused;
		// When the state cannot be read, the API's own answer is the truest thing to show.
		const applied = await write.confirm().catch(() => undefined);
		if (applied === undefined) throw refused;
		return { ...applied, alreadyApplied: true };
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
