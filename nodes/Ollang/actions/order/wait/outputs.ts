import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { errorItemJson } from '../../common/outcomes';
import { describeStoredFile, storeOrderFiles } from '../orderFiles';
import type { ReadOrder } from './confirm';
import type { WaitState } from './state';

// What Create and Wait outputs: one item per order the items created (and, as it was, the output of an item that
// created none), each the order as the API shows it, with `done`, its files when asked, and a `summary` of the whole
// wait that the next node can test in one expression ({{ $json.summary.allDone }}).

interface WaitSummary extends IDataObject {
	/** Every order done (none cancelled, none under way). */
	allDone: boolean;
	done: number;
	total: number;
	/** Orders not done: cancelled, or still under way when the wait reached its limit. */
	notDone: string[];
	cancelled: string[];
}

function summaryOf(reads: ReadOrder[]): WaitSummary {
	const idsWhere = (keep: (read: ReadOrder) => boolean) => reads.filter(keep).map((read) => String(read.order.id));
	const done = reads.filter((read) => read.progress === 'done').length;
	return {
		allDone: done === reads.length,
		done,
		total: reads.length,
		notDone: idsWhere((read) => read.progress !== 'done'),
		cancelled: idsWhere((read) => read.progress === 'cancelled'),
	};
}

/** The binary field of an order's n-th file: the field itself for the first, then field_1, field_2, ... */
function fieldFor(field: string, position: number): string {
	return position === 0 ? field : `${field}_${position}`;
}

async function orderItem(ctx: IExecuteFunctions, state: WaitState, read: ReadOrder, summary: WaitSummary): Promise<INodeExecutionData> {
	const json: IDataObject = { ...read.order, orderId: read.order.id, done: read.progress === 'done', summary };
	const pairedItem = { item: read.item };
	if (state.files === undefined || read.progress !== 'done') return { json, pairedItem };
	const files = state.files;
	const stored = await storeOrderFiles.call(ctx, read.order, files.kinds, read.item);
	const binary: IBinaryKeyData = {};
	json.files = stored.map((file, position) => {
		const property = fieldFor(files.field, position);
		binary[property] = file.binary;
		return { binaryProperty: property, ...describeStoredFile(String(read.order.id), file) };
	});
	return { json, binary, pairedItem };
}

/**
 * The node's output in item order: each order as read (`asError` turns the orders it picks into error items), and
 * the output of items that created no order.
 */
export async function resultItems(
	ctx: IExecuteFunctions,
	state: WaitState,
	reads: ReadOrder[],
	asError: (read: ReadOrder) => NodeOperationError | undefined = () => undefined,
): Promise<INodeExecutionData[]> {
	const summary = summaryOf(reads);
	const items: INodeExecutionData[] = [];
	for (const entry of state.items) {
		for (const json of entry.output ?? []) items.push({ json, pairedItem: { item: entry.item } });
		for (const read of reads.filter((candidate) => candidate.item === entry.item)) {
			const error = asError(read);
			items.push(error === undefined ? await orderItem(ctx, state, read, summary) : { json: errorItemJson(ctx, error), pairedItem: { item: read.item } });
		}
	}
	return items;
}

/** What the node shows while its execution waits: the orders it waits for. */
export function waitingItems(state: WaitState): INodeExecutionData[] {
	return state.items.flatMap((entry) => [
		...(entry.output ?? []).map((json) => ({ json, pairedItem: { item: entry.item } })),
		...entry.orders.map((orderId) => ({ json: { orderId, done: false }, pairedItem: { item: entry.item } })),
	]);
}

function describeWait(ms: number): string {
	const minutes = Math.round(ms / 60_000);
	if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
	const hours = Math.round(minutes / 60);
	return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
}

/**
 * Wait at Most passed with orders still under way: an error naming them that stops the node, or, with Continue On
 * Fail, one error item per such order (the error output with "Continue (using error output)") beside the others.
 */
export async function limitReached(ctx: IExecuteFunctions, state: WaitState, reads: ReadOrder[], waitedMs: number): Promise<INodeExecutionData[]> {
	const underWay = reads.filter((read) => read.progress === 'underWay');
	const named = underWay.map((read) => `${String(read.order.id)} (${String(read.order.status)})`).join(', ');
	const description =
		'They are still under way at Ollang. Retry this execution to wait for the same orders again (none is created twice), or read them later with Order > Get; raise Wait at Most for orders that take longer.';
	if (!ctx.continueOnFail()) {
		throw new NodeOperationError(ctx.getNode(), `${underWay.length} of ${reads.length} orders were not done after waiting ${describeWait(waitedMs)}: ${named}`, {
			description,
		});
	}
	return await resultItems(ctx, state, reads, (read) =>
		read.progress === 'underWay'
			? new NodeOperationError(ctx.getNode(), `Order ${String(read.order.id)} was not done after waiting ${describeWait(waitedMs)} (status ${String(read.order.status)})`, {
					itemIndex: read.item,
					description,
				})
			: undefined,
	);
}
