import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { binaryOutputField, readBinaryOutputField } from '../common/binary';
import { forPaidWrite } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkUrl, invalidField, readOption } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { createOrders, orderProperties } from './create.operation';
import { KIND_OPTIONS, kindsOf } from './deliverables';
import { limitWaitTimeOption, waitUntil } from './wait/limit';
import type { ItemWait, WaitState } from './wait/state';
import { saveWaitState } from './wait/state';

// Order > Create and Wait: n8n's send-and-wait convention for orders. The items' orders are created as Order >
// Create creates them (the same function: write-once, Retry Protection, Idempotency Key), each with this
// execution's resume URL as its Callback URL; then the execution waits in n8n's waiting state (no process held).
// The node's webhook (wait/resume.ts) resumes it once the API shows every order done.

const FILE_CHOICES = [{ name: 'None', value: 'none', description: 'Only the orders, no files' }, ...KIND_OPTIONS];

const properties: INodeProperties[] = [
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
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			limitWaitTimeOption,
			{
				displayName: 'Wait for Auto QC',
				name: 'waitForQc',
				type: 'boolean',
				default: false,
				description:
					'Whether an order created with Auto Quality Check counts as done only once its QC evaluation has finished',
			},
		],
	},
];

export const description = forPaidWrite('order', 'createAndWait', properties);

export const kind: OperationKind = 'paidWrite';

/** This execution's resume URL (n8n's `$execution.resumeUrl`): where the API calls when each order completes. */
function resumeUrl(ctx: IExecuteFunctions, itemIndex: number): string {
	const url = ctx.evaluateExpression('{{ $execution.resumeUrl }}', itemIndex);
	if (typeof url !== 'string' || url === '') {
		throw invalidField(ctx, itemIndex, 'Order > Create and Wait', 'n8n gave this execution no resume URL');
	}
	return checkUrl(ctx, url, 'Callback URL (this execution\'s resume URL)', itemIndex);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
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
 * After every item: the execution waits until the orders are confirmed done (the webhook resumes it) or until Limit
 * Wait Time. Nothing to wait for (no order created): the output now, without waiting.
 */
export async function afterItems(this: IExecuteFunctions, output: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const items = itemWaits(this, output);
	if (!items.some((entry) => entry.orders.length > 0)) return output;
	const filter = readOption(this, 'files', 'Files to Download', 0, FILE_CHOICES);
	const state: WaitState = {
		version: 1,
		items,
		files: filter === 'none' ? undefined : { kinds: kindsOf(filter), field: readBinaryOutputField(this, 0) },
	};
	const until = waitUntil(this, Date.now());
	saveWaitState(this, state);
	passOnAtTimeLimit(this, items);
	await this.putExecutionToWait(until);
	return output;
}

/**
 * What the node outputs if Limit Wait Time ends the wait. n8n runs none of the node's code then (n8n-core's
 * handleWaitingState disables the waiting node, which passes on the items it was given): so the items it is given
 * become, before it waits, one per order it created, saying the wait ended unconfirmed, and the output of items
 * that created none. A request that resumes the execution replaces them with the orders as the API shows them.
 */
function passOnAtTimeLimit(ctx: IExecuteFunctions, items: ItemWait[]): void {
	const unconfirmed: INodeExecutionData[] = items.flatMap((entry) => [
		...(entry.output ?? []).map((json) => ({ json, pairedItem: { item: entry.item } })),
		...entry.orders.map((id) => ({ json: { id, waitEnded: 'timeLimit', confirmed: false }, pairedItem: { item: entry.item } })),
	]);
	ctx.getExecuteData().data = { main: [unconfirmed] };
}
