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
		'Whether the execution goes on by itself after a time or at a date even if not every order is confirmed complete; then n8n passes the node\'s input items on without running it',
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

/**
 * When the wait ends if the orders are not all confirmed complete by then: the option's time, or never (n8n's
 * WAIT_INDEFINITELY). Read from the first item: one execution waits once, until one time.
 */
export function waitUntil(ctx: IExecuteFunctions, now: number): Date {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const limit = (options.limitWaitTime as IDataObject | undefined)?.values as IDataObject | undefined;
	if (limit === undefined) return WAIT_INDEFINITELY;
	if (limit.limitType === 'atSpecifiedTime') {
		const at = Date.parse(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(at)) {
			throw invalidField(ctx, 0, 'Limit Wait Time > Max Date and Time', `must be a date and time, got "${String(limit.maxDateAndTime ?? '')}"`);
		}
		if (at <= now) {
			throw invalidField(ctx, 0, 'Limit Wait Time > Max Date and Time', `must be in the future, got ${new Date(at).toISOString()}`);
		}
		return new Date(at);
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
	return new Date(now + amount * unitMs);
}
