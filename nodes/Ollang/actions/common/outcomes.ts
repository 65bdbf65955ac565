import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { BatchOutcome, OperationResult } from '../node.type';

/** Wraps plain API objects as output items. */
export function toResults(data: IDataObject | IDataObject[]): OperationResult[] {
	return (Array.isArray(data) ? data : [data]).map((json) => ({ json }));
}

/** Errors reach n8n as NodeApiError or NodeOperationError, tied to the item that caused them. */
export function asNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), error instanceof Error ? error : String(error), { itemIndex });
}

/**
 * An error as an output item under Continue On Fail: only the keys n8n reads as an error item (error, message,
 * details), so that "Continue (using error output)" routes it to the error output.
 */
export function errorItemJson(ctx: IExecuteFunctions, error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (ctx.getNode().onError === 'continueErrorOutput') {
		// n8n 1.x routes an item to the error output only when its json holds `error` and `message` alone.
		if (error.description) json.message = error.description;
		return json;
	}
	const details: IDataObject = {};
	const httpCode = (error as { httpCode?: string | null }).httpCode;
	if (httpCode) details.httpCode = httpCode;
	if (error.description) details.description = error.description;
	if (Object.keys(details).length > 0) json.details = details;
	return json;
}

export interface ParsedItem<T> {
	itemIndex: number;
	value: T;
}

/**
 * Reads and checks every input item before a batch operation sends anything. Without "continue on fail"
 * the first bad item stops the node (nothing sent); with it, that item becomes an error outcome and the
 * others go on.
 */
export async function parseEachItem<T>(
	ctx: IExecuteFunctions,
	itemCount: number,
	parse: (itemIndex: number) => T | Promise<T>,
): Promise<{ parsed: Array<ParsedItem<T>>; failures: BatchOutcome[] }> {
	const parsed: Array<ParsedItem<T>> = [];
	const failures: BatchOutcome[] = [];
	for (let itemIndex = 0; itemIndex < itemCount; itemIndex++) {
		try {
			parsed.push({ itemIndex, value: await parse(itemIndex) });
		} catch (error) {
			const nodeError = asNodeError(ctx, error, itemIndex);
			if (!ctx.continueOnFail()) throw nodeError;
			failures.push({ pairedItems: [itemIndex], error: nodeError });
		}
	}
	return { parsed, failures };
}

/** Fields that identify what an item's write did, in the order they are named. */
const APPLIED_FIELDS = ['orderId', 'evalId', 'projectId', 'id', 'memoryId', 'instructionId', 'revisionId', 'documentId', 'jobId', 'creditsUsed', 'assignedCount', 'unassignedCount'];
/** At most this many items are named; the rest are counted. */
const MAX_NAMED_ITEMS = 50;

function describeOutput(json: IDataObject): string {
	const named = APPLIED_FIELDS.filter((field) => typeof json[field] === 'string' || typeof json[field] === 'number').map(
		(field) => `${field} ${String(json[field])}`,
	);
	if (json.alreadyApplied === true) named.push('already applied earlier');
	return named.join(', ');
}

/**
 * For the error of a write that stopped the node: the items applied before it (their index and what the API
 * answered), since n8n discards the output of a node that fails. `outputs[i]` holds item i's output json.
 */
export function describeAppliedItems(outputs: IDataObject[][]): string | undefined {
	const applied = outputs.flatMap((jsons, itemIndex) =>
		jsons.length === 0 ? [] : [`item ${itemIndex}${jsons.map((json) => ` (${describeOutput(json)})`).join('').replace(/ \(\)/g, '')}`],
	);
	if (applied.length === 0) return undefined;
	const more = applied.length > MAX_NAMED_ITEMS ? `, and ${applied.length - MAX_NAMED_ITEMS} more` : '';
	return `Applied before the node stopped (${applied.length} items): ${applied.slice(0, MAX_NAMED_ITEMS).join('; ')}${more}.`;
}
