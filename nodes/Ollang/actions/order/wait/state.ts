import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { FileKind } from '../deliverables';

// What Create and Wait keeps while its execution waits: the orders each input item created and how the wait ends.
// n8n saves an execution's node context (getContext('node')) with the waiting execution, in its database, so it
// survives a restart and reaches whichever process resumes it or receives a callback (queue mode). It is kept only
// while a wait is under way: the node clears it when it carries on, so items arriving later in the same execution (a
// loop over batches) create their own orders.

const KEY = 'ollangCreateAndWait';

/** One input item's orders, or (no orders) the output item it gave, emitted again when the wait ends. */
export interface ItemWait {
	item: number;
	orders: string[];
	/** Whether this item's orders count as done only once their Auto QC evaluation has finished. */
	qc: boolean;
	/** An item that created no order (an error under Continue On Fail, say): its output, as it was. */
	output?: IDataObject[];
}

export interface WaitState {
	version: 2;
	items: ItemWait[];
	/** The files to store with each completed order, and the binary field they go to; none when undefined. */
	files?: { kinds: FileKind[]; field: string };
	/** When the orders were created (ms since the epoch). */
	startedAt: number;
	/** Wait at Most, as a time (ms since the epoch) fixed when the orders were created. */
	deadline: number;
	/** Check Every, in ms. */
	checkEvery: number;
	/** Which wait this is (1 for the first): a callback wakes each wait at most once per process. */
	round: number;
}

export function saveWaitState(ctx: IExecuteFunctions, state: WaitState): void {
	// A string: the context is saved and read back as JSON, and an expression hands a string back unchanged.
	ctx.getContext('node')[KEY] = JSON.stringify(state);
}

export function clearWaitState(ctx: IExecuteFunctions): void {
	delete ctx.getContext('node')[KEY];
}

/** The wait under way in this execution, if any (read when n8n runs the node again to check the orders). */
export function savedWaitState(ctx: IExecuteFunctions): WaitState | undefined {
	return parseState(ctx.getContext('node')[KEY]);
}

function parseState(raw: unknown): WaitState | undefined {
	if (typeof raw !== 'string' || raw === '') return undefined;
	try {
		const state = JSON.parse(raw) as WaitState;
		return state.version === 2 && Array.isArray(state.items) ? state : undefined;
	} catch {
		return undefined;
	}
}

/** A string literal an expression reads as the given text, with no braces that could end the expression. */
function literal(text: string): string {
	return JSON.stringify(text).replace(/[{}]/g, (brace) => (brace === '{' ? '\\u007b' : '\\u007d'));
}

/**
 * The wait under way, read in the node's webhook. A webhook has no getContext(), but the expression
 * `$node[name].context` reads the same saved context of the waiting execution.
 */
export function loadWaitState(ctx: IWebhookFunctions): WaitState | undefined {
	return parseState(ctx.evaluateExpression(`{{ $node[${literal(ctx.getNode().name)}].context[${literal(KEY)}] }}`, 0));
}

/** Every order the wait is for, in item order. */
export function ordersOf(state: WaitState): string[] {
	return state.items.flatMap((entry) => entry.orders);
}
