import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { FileKind } from '../deliverables';

// What Create and Wait keeps across the wait: the orders each input item created. n8n saves an execution's node
// context (getContext('node'), runExecutionData.executionData.contextData) with the waiting execution, in the
// database, so it survives a restart and reaches the process that receives the callback (queue mode). The node's
// own output before waiting is no place for it: n8n drops that run when a request resumes the node.

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
	version: 1;
	items: ItemWait[];
	/** The files to store with each completed order, and the binary field they go to; none when undefined. */
	files?: { kinds: FileKind[]; field: string };
	/** Limit Wait Time, as a time (ms since the epoch) fixed when the orders were created; null: no limit. */
	deadline: number | null;
	/** Check Again Every, in ms: the longest one wait lasts before n8n hands 'checkAgain' items on; null: none. */
	checkEvery: number | null;
}

export function saveWaitState(ctx: IExecuteFunctions, state: WaitState): void {
	// A string: the context is saved and read back as JSON, and an expression hands a string back unchanged.
	ctx.getContext('node')[KEY] = JSON.stringify(state);
}

/** The state this node saved earlier in this execution, if any (read where the node runs again, in a loop). */
export function savedWaitState(ctx: IExecuteFunctions): WaitState | undefined {
	return parseState(ctx.getContext('node')[KEY]);
}

function parseState(raw: unknown): WaitState | undefined {
	if (typeof raw !== 'string' || raw === '') return undefined;
	try {
		const state = JSON.parse(raw) as WaitState;
		return state.version === 1 && Array.isArray(state.items) ? state : undefined;
	} catch {
		return undefined;
	}
}

/** A string literal an expression reads as the given text, with no braces that could end the expression. */
function literal(text: string): string {
	return JSON.stringify(text).replace(/[{}]/g, (brace) => (brace === '{' ? '\\u007b' : '\\u007d'));
}

/**
 * The state the node saved before waiting, read in its webhook. A webhook has no getContext(), but the expression
 * `$node[name].context` reads the same saved context of the waiting execution.
 */
export function loadWaitState(ctx: IWebhookFunctions): WaitState | undefined {
	return parseState(ctx.evaluateExpression(`{{ $node[${literal(ctx.getNode().name)}].context[${literal(KEY)}] }}`, 0));
}
