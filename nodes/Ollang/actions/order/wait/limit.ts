import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidField } from '../../common/parameters';

// How long Create and Wait waits at most, and how often it reads the orders itself while it waits. Both are fixed
// when the orders are created: every later check ends by the same time.

const UNIT_MS: Readonly<Record<string, number>> = {
	minutes: 60_000,
	hours: 3_600_000,
	days: 86_400_000,
};

/** How often the orders are read while waiting, unless Options > Check Every says otherwise. */
const DEFAULT_CHECK_EVERY_MINUTES = 5;

export const waitLimitProperties: INodeProperties[] = [
	{
		displayName: 'Wait at Most',
		name: 'waitAtMost',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 1,
		description:
			'The longest the node waits for the orders. Orders not done by then stop the workflow with an error that names them; set Settings > On Error to continue through the error output instead.',
	},
	{
		displayName: 'Wait at Most Unit',
		name: 'waitAtMostUnit',
		type: 'options',
		options: [
			{ name: 'Minutes', value: 'minutes' },
			{ name: 'Hours', value: 'hours' },
			{ name: 'Days', value: 'days' },
		],
		default: 'days',
	},
];

export const checkEveryOption: INodeProperties = {
	displayName: 'Check Every (Minutes)',
	name: 'checkEvery',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: DEFAULT_CHECK_EVERY_MINUTES,
	description:
		"How often n8n reads the orders while it waits. The workflow carries on within this time of the last order's completion even when Ollang cannot reach this n8n; when it can, within seconds.",
};

/** Wait at Most as a time (ms since the epoch), read from the first item when the orders are created. */
export function deadlineOf(ctx: IExecuteFunctions, now: number): number {
	const amount = Number(ctx.getNodeParameter('waitAtMost', 0, 1));
	const unit = String(ctx.getNodeParameter('waitAtMostUnit', 0, 'days'));
	if (!(amount > 0) || !Number.isFinite(amount)) {
		throw invalidField(ctx, 0, 'Wait at Most', `must be a number above 0, got ${String(amount)}`);
	}
	const unitMs = UNIT_MS[unit];
	if (unitMs === undefined) throw invalidField(ctx, 0, 'Wait at Most Unit', `must be minutes, hours or days, got "${unit}"`);
	return now + amount * unitMs;
}

/** Check Every in ms. */
export function checkEveryOf(ctx: IExecuteFunctions): number {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const minutes = Number(options.checkEvery ?? DEFAULT_CHECK_EVERY_MINUTES);
	if (!Number.isFinite(minutes) || minutes < 1) {
		throw invalidField(ctx, 0, 'Check Every (Minutes)', `must be 1 or more, got ${String(options.checkEvery)}`);
	}
	return minutes * 60_000;
}

/** When the wait that starts now ends: the next check, or the deadline if that comes first. */
export function nextCheckAt(deadline: number, checkEvery: number, now: number): Date {
	return new Date(Math.min(deadline, now + checkEvery));
}
