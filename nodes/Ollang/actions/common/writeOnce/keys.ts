import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

// What names an item across n8n's retries. n8n's Retry of a failed execution (mode 'retry') runs the failed node
// again on the stored execution data, which carries the execution context n8n 2.x established when the run began
// (`establishedAt`, `source`): every retry of a run sees the same context, any other execution a new one. Retry On
// Fail runs the node again in the same execution. Both rerun the node at the failed run's run index, so the context
// plus the run index names "this run of this node"; a loop's next pass is another.

export interface RunIdentity {
	/** The run this execution is, or retries: a record made without an Idempotency Key counts for it only. */
	run: string;
	/** The id of this execution (a retry has its own), named in a skipped item's output. */
	execution: string;
	/** n8n's Retry of a failed execution. */
	isRetry: boolean;
	/** n8n's Retry on an n8n without an execution context: any record of the same item counts. */
	retryOfUnknownRun: boolean;
}

export function runIdentity(ctx: IExecuteFunctions): RunIdentity {
	const execution = String(ctx.getExecutionId() ?? '');
	const isRetry = (typeof ctx.getMode === 'function' ? ctx.getMode() : undefined) === 'retry';
	const index = (ctx.getWorkflowDataProxy(0) as { $runIndex?: unknown }).$runIndex;
	const runIndex = typeof index === 'number' ? index : 0;
	// Absent before n8n 2.x: the function itself, or the context on an engine that does not establish one.
	const context = (typeof ctx.getExecutionContext === 'function' ? ctx.getExecutionContext() : undefined) as
		| { establishedAt?: unknown; source?: unknown }
		| undefined;
	if (context !== undefined && typeof context.establishedAt === 'number') {
		const run = `${context.establishedAt}:${String(context.source ?? '')}:${runIndex}`;
		return { run, execution, isRetry, retryOfUnknownRun: false };
	}
	return { run: `${execution}:${runIndex}`, execution, isRetry, retryOfUnknownRun: isRetry };
}

/** 53-bit hash (cyrb53) of text or bytes: short keys for long requests; collisions among a thousand keys are negligible. */
export function hash(input: string | Uint8Array): string {
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let index = 0; index < input.length; index++) {
		const code = typeof input === 'string' ? input.charCodeAt(index) : input[index];
		h1 = Math.imul(h1 ^ code, 2654435761);
		h2 = Math.imul(h2 ^ code, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** JSON with object keys sorted, so the same request always gives the same key; a file part stands as its hash. */
function canonical(value: unknown): string {
	if (value instanceof Uint8Array) return `"bytes:${value.length}:${hash(value)}"`;
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value as IDataObject)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonical((value as IDataObject)[key])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/**
 * The item's key without the run: the operation the router runs (its resource and operation, typed in node.type.ts),
 * then the Idempotency Key, or the item's position and request (n8n's retries run the same items in the same order).
 */
export function itemKey(ctx: IExecuteFunctions, itemIndex: number, request: unknown, idempotencyKey: string | undefined): string {
	const operation = `${String(ctx.getNodeParameter('resource', 0))}.${String(ctx.getNodeParameter('operation', 0))}`;
	return idempotencyKey !== undefined
		? `${operation}:key:${idempotencyKey}`
		: `${operation}:auto:${hash(canonical({ item: itemIndex, request }))}`;
}
