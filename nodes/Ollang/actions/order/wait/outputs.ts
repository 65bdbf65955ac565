import type { IBinaryKeyData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { FileContext } from '../../../transport';
import { describeStoredFile, storeOrderFiles } from '../orderFiles';
import type { ReadOrder } from './confirm';
import type { ItemWait, WaitState } from './state';

// What Create and Wait outputs, one item per order the items created (and, as it was, the output of an item that
// created none). `waitEnded` says how the wait ended for the item:
// - 'confirmed': every order is done (or cancelled), as the API showed when the last request or re-check read them;
// - 'timeLimit': Limit Wait Time passed; each order as the API showed it then, `confirmed` whether it was done;
// - 'checkAgain': the wait ended and n8n ran none of the node's code (a Check Again round, or the time limit with
//   no re-check after it): the order's id only, not read. Sent back into the node, these make it read the orders.

export type WaitEnd = 'confirmed' | 'timeLimit' | 'checkAgain';

/** The binary field of an order's n-th file: the field itself for the first, then field_1, field_2, ... */
function fieldFor(field: string, position: number): string {
	return position === 0 ? field : `${field}_${position}`;
}

async function orderOutput(ctx: FileContext, state: WaitState, read: ReadOrder, ended: WaitEnd): Promise<INodeExecutionData> {
	const json: IDataObject = { ...read.order, waitEnded: ended, confirmed: read.progress !== 'pending' };
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

/** The orders as read, with their files when asked, in item order. */
export async function readOutput(ctx: FileContext, state: WaitState, reads: ReadOrder[], ended: WaitEnd): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	for (const entry of state.items) {
		for (const json of entry.output ?? []) items.push({ json, pairedItem: { item: entry.item } });
		for (const read of reads.filter((candidate) => candidate.item === entry.item)) {
			items.push(await orderOutput(ctx, state, read, ended));
		}
	}
	return items;
}

/** The marker of an order not read: its id, and that the wait ended without a read. */
export function checkAgainOutput(items: ItemWait[]): INodeExecutionData[] {
	return items.flatMap((entry) => [
		...(entry.output ?? []).map((json) => ({ json: { ...json, waitEnded: 'checkAgain' }, pairedItem: { item: entry.item } })),
		...entry.orders.map((id) => ({ json: { id, waitEnded: 'checkAgain', confirmed: false }, pairedItem: { item: entry.item } })),
	]);
}

/** Whether items are the node's own 'checkAgain' output, sent back into it. */
export function areCheckAgainItems(items: INodeExecutionData[]): boolean {
	return items.length > 0 && items.every((item) => item.json.waitEnded === 'checkAgain');
}
