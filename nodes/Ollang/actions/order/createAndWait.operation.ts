import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { binaryOutputField, readBinaryOutputField } from '../common/binary';
import { forPaidWrite, withOptions } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkUrl, invalidField, readOption } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { createOrders, orderProperties } from './create.operation';
import { KIND_OPTIONS, kindsOf } from './deliverables';
import { checkEveryOf, checkEveryOption, deadlineOf, waitLimitProperties } from './wait/limit';
import { checkOrders } from './wait/round';
import type { ItemWait, WaitState } from './wait/state';
import { savedWaitState } from './wait/state';

// Order > Create and Wait: n8n's send-and-wait convention for orders. The items' orders are created as Order >
// Create creates them (the same function: write-once, Retry Protection, Idempotency Key), each with this
// execution's resume URL as its Callback URL; then the orders are read, and unless every one is already done the
// execution waits in n8n's waiting state (no process held) until the next check or a callback, and n8n runs the
// node again to read them (wait/round.ts, wait/nextCheck.ts). A callback only makes it read sooner (wait/resume.ts).

const FILE_CHOICES = [{ name: 'None', value: 'none', description: 'Only the orders, no files' }, ...KIND_OPTIONS];

const properties: INodeProperties[] = [
	{
		displayName:
			'Carries on once every order is done: within seconds when Ollang can reach this n8n over https, otherwise within Check Every (5 minutes unless changed in Options)',
		name: 'waitNotice',
		type: 'notice',
		default: '',
	},
	...orderProperties(false),
	{
		displayName: 'Files to Download',
		name: 'files',
		type: 'options',
		options: FILE_CHOICES,
		default: 'none',
		description: "Which of each completed order's files to add to its output item, as Order > Download Files chooses them",
	},
	{ ...binaryOutputField('first file of each order (the next ones in <field>_1, <field>_2, ...)'), displayOptions: { hide: { files: ['none'] } } },
	...waitLimitProperties,
];

export const description = forPaidWrite(
	'order',
	'createAndWait',
	withOptions(properties, [
		checkEveryOption,
		{
			displayName: 'Wait for Auto QC',
			name: 'waitForQc',
			type: 'boolean',
			default: false,
			description: 'Whether an order created with Auto Quality Check counts as done only once its QC evaluation has finished',
		},
	]),
);

export const kind: OperationKind = 'paidWrite';

/** This execution's resume URL (n8n's `$execution.resumeUrl`): where the API calls when each order completes. */
function resumeUrl(ctx: IExecuteFunctions, itemIndex: number): string {
	const url = ctx.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex);
	if (typeof url !== 'string' || url === '') {
		throw invalidField(ctx, itemIndex, 'Order > Create and Wait', 'n8n gave this execution no resume URL');
	}
	return checkUrl(ctx, url, 'Callback URL (this execution\'s resume URL)', itemIndex);
}

/** The wait's settings, read (and a bad one refused, naming its field) before any order is created. */
function waitSettings(ctx: IExecuteFunctions, now: number): Pick<WaitState, 'files' | 'startedAt' | 'deadline' | 'checkEvery'> {
	const filter = readOption(ctx, 'files', 'Files to Download', 0, FILE_CHOICES);
	return {
		files: filter === 'none' ? undefined : { kinds: kindsOf(filter), field: readBinaryOutputField(ctx, 0) },
		startedAt: now,
		deadline: deadlineOf(ctx, now),
		checkEvery: checkEveryOf(ctx),
	};
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	waitSettings(this, Date.now());
	const callbackUrl = resumeUrl(this, itemIndex);
	// The resume URL names this execution; n8n's Retry of a failed one is another, so it is kept out of the key.
	return toResults(await createOrders.call(this, itemIndex, { callbackUrl, callbackUrlOutsideKey: true }));
}

/** The orders an item's output items name, and the item's output when it names none. */
function itemWaits(ctx: IExecuteFunctions, output: INodeExecutionData[]): ItemWait[] {
	const waitForQc = (ctx.getNodeParameter('options', 0, {}) as IDataObject).waitForQc === true;
	const byItem = new Map<number, ItemWait>();
	for (const result of output) {
		const paired = Array.isArray(result.pairedItem) ? result.pairedItem[0] : result.pairedItem;
		const item = typeof paired === 'object' && paired !== null ? paired.item : 0;
		let entry = byItem.get(item);
		if (entry === undefined) {
			const extra = ctx.getNodeParameter('additionalFields', item, {}) as IDataObject;
			entry = { item, orders: [], qc: waitForQc && extra.autoQc === true };
			byItem.set(item, entry);
		}
		if (typeof result.json.orderId === 'string' && result.json.orderId !== '') entry.orders.push(result.json.orderId);
		else entry.output = [...(entry.output ?? []), result.json];
	}
	return [...byItem.values()].sort((a, b) => a.item - b.item);
}

/**
 * Before any item: a wait under way in this execution means n8n is running the node again after resuming it (at a
 * check, or after a callback): the orders are read, nothing is created.
 */
export async function takeOver(this: IExecuteFunctions): Promise<INodeExecutionData[] | undefined> {
	const state = savedWaitState(this);
	if (state === undefined) return undefined;
	return await checkOrders(this, state, Date.now());
}

/**
 * After every item: the orders are read at once; the node carries on if every one is already done (a Retry, a
 * repeated Idempotency Key, a fast order), else the execution waits (wait/round.ts). Nothing to wait for (no order
 * created): the output now.
 */
export async function afterItems(this: IExecuteFunctions, output: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const items = itemWaits(this, output);
	if (!items.some((entry) => entry.orders.length > 0)) return output;
	const now = Date.now();
	const state: WaitState = { version: 2, items, ...waitSettings(this, now), round: 0 };
	// While it waits, the node shows what creating the orders gave (alreadyApplied after a Retry, say).
	return await checkOrders(this, state, now, output);
}
