import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { invalidField } from '../../common/parameters';

// "Limit Wait Time", with the names n8n's own send-and-wait operations use (Slack, Gmail: options.limitWaitTime),
// so a user who knows theirs knows this one.

const UNIT_MS: Readonly<Record<string, number>> = {
	minutes: 60_000,
	hours: 3_600_000,
	days: 86_400_000,
};

export const limitWaitTimeOption: INodeProperties = {
	displayName: 'Limit Wait Time',
	name: 'limitWaitTime',
	type: 'fixedCollection',
	description:
		'Whether the execution goes on by itself after a time or at a date even if not every order is confirmed complete. Each order then comes out unread (waitEnded "checkAgain"); sent back into this node, they are read and each says whether it finished (waitEnded "timeLimit").',
	default: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'days' } },
	options: [
		{
			displayName: 'Values',
			name: 'values',
			values: [
				{
					displayName: 'Limit Type',
					name: 'limitType',
					type: 'options',
					default: 'afterTimeInterval',
					description: 'Sets the condition for the execution to resume',
					options: [
						{ name: 'After Time Interval', value: 'afterTimeInterval', description: 'Waits for a certain amount of time' },
						{ name: 'At Specified Time', value: 'atSpecifiedTime', description: 'Waits until the set date and time to continue' },
					],
				},
				{
					displayName: 'Amount',
					name: 'resumeAmount',
					type: 'number',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					typeOptions: { minValue: 0, numberPrecision: 2 },
					default: 1,
					description: 'The time to wait',
				},
				{
					displayName: 'Unit',
					name: 'resumeUnit',
					type: 'options',
					displayOptions: { show: { limitType: ['afterTimeInterval'] } },
					options: [
						{ name: 'Minutes', value: 'minutes' },
						{ name: 'Hours', value: 'hours' },
						{ name: 'Days', value: 'days' },
					],
					default: 'days',
					description: 'Unit of the interval value',
				},
				{
					displayName: 'Max Date and Time',
					name: 'maxDateAndTime',
					type: 'dateTime',
					displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
					default: '',
					description: 'Continue execution after the specified date and time',
				},
			],
		},
	],
};

export const checkAgainEveryOption: INodeProperties = {
	displayName: 'Check Again Every (Minutes)',
	name: 'checkAgainEvery',
	type: 'number',
	typeOptions: { minValue: 0 },
	default: 0,
	description:
		'The longest one wait lasts (0: until Limit Wait Time). When it passes, n8n hands on one item per order with waitEnded "checkAgain" without running the node; sent back into this node, they make it read the orders and go on or wait again. A callback that never came then costs at most this long.',
};

/**
 * Limit Wait Time as a time (ms since the epoch), or null for no limit. Read from the first item, once, when the
 * orders are created: every round of the wait ends by then.
 */
export function deadlineOf(ctx: IExecuteFunctions, now: number): number | null {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const limit = (options.limitWaitTime as IDataObject | undefined)?.values as IDataObject | undefined;
	if (limit === undefined) return null;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = Date.parse(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at)) {
			throw invalidField(ctx, 0, 'Limit Wait Time > Max Date and Time', `must be a date and time, got "${String(limit.maxDateAndTime ?? '')}"`);
		}
		if (at <= now) {
			throw invalidField(ctx, 0, 'Limit Wait Time > Max Date and Time', `must be in the future, got ${new Date(at).toISOString()}`);
		}
		return at;
	}
	const amount = Number(limit.resumeAmount ?? 1);
	const unit = String(limit.resumeUnit ?? 'days');
	if (!(amount > 0) || !Number.isFinite(amount)) {
		throw invalidField(ctx, 0, 'Limit Wait Time > Amount', `must be a number above 0, got ${String(limit.resumeAmount)}`);
	}
	const unitMs = UNIT_MS[unit];
	if (unitMs === undefined) {
		throw invalidField(ctx, 0, 'Limit Wait Time > Unit', `must be minutes, hours or days, got "${unit}"`);
	}
	return now + amount * unitMs;
}

/** Check Again Every in ms, or null for none. */
export function checkEveryOf(ctx: IExecuteFunctions): number | null {
	const minutes = Number((ctx.getNodeParameter('options', 0, {}) as IDataObject).checkAgainEvery ?? 0);
	if (!Number.isFinite(minutes) || minutes < 0) {
		throw invalidField(ctx, 0, 'Check Again Every (Minutes)', `must be 0 or more, got ${String(minutes)}`);
	}
	return minutes > 0 ? minutes * 60_000 : null;
}

/** When this round of the wait ends: a Check Again round, or the deadline, or never (n8n's WAIT_INDEFINITELY). */
export function roundEnd(deadline: number | null, checkEvery: number | null, now: number): Date {
	const ends = [deadline, checkEvery === null ? null : now + checkEvery].filter((end): end is number => end !== null);
	return ends.length === 0 ? WAIT_INDEFINITELY : new Date(Math.min(...ends));
}
