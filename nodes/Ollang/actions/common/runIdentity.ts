import type { IExecuteFunctions } from 'n8n-workflow';

// What tells a retry from a repeat. n8n's Retry of a failed execution (mode 'retry') runs the failed node again on
// the stored execution data; that data carries the execution context n8n 2.x established when the run began
// (`establishedAt`, `source`), so every retry of a run sees the same context, while any other execution (webhook,
// trigger, schedule, manual, sub-workflow, agent) establishes a new one. Retry On Fail runs the node again within the
// same execution. Both rerun the node at the run index of the failed run (n8n drops the failed run's data first), so
// the context plus the node's run index names "this run of this node" across retries; a loop's next pass is another.

export interface RunIdentity {
	/** The run this execution is, or retries: its items' records count only for the same run. */
	run: string;
	/** The id of this execution (a retry has its own), named in a skipped item's output. */
	execution: string;
	/** When the run began (epoch ms), where n8n says. */
	startedAt?: number;
	/** n8n's Retry of a failed execution: another execution that continues a run. */
	isRetry: boolean;
	/**
	 * n8n's Retry on an n8n older than those supported (no execution context): the run it retries cannot be named, so
	 * any record of the same item and request counts.
	 */
	retryOfUnknownRun: boolean;
}

interface ExecutionContextLike {
	establishedAt?: unknown;
	source?: unknown;
}

function runIndexOf(ctx: IExecuteFunctions): number {
	const index = (ctx.getWorkflowDataProxy(0) as { $runIndex?: unknown }).$runIndex;
	return typeof index === 'number' ? index : 0;
}

export function runIdentity(ctx: IExecuteFunctions): RunIdentity {
	const execution = String(ctx.getExecutionId() ?? '');
	const mode = typeof ctx.getMode === 'function' ? ctx.getMode() : undefined;
	const runIndex = runIndexOf(ctx);
	// Absent before n8n 2.x: the function itself, or the context on an engine that does not establish one.
	const context = (typeof ctx.getExecutionContext === 'function' ? ctx.getExecutionContext() : undefined) as
		| ExecutionContextLike
		| undefined;
	if (context !== undefined && typeof context.establishedAt === 'number') {
		return {
			run: `${context.establishedAt}:${String(context.source ?? '')}:${runIndex}`,
			execution,
			startedAt: context.establishedAt,
			isRetry: mode === 'retry',
			retryOfUnknownRun: false,
		};
	}
	return { run: `${execution}:${runIndex}`, execution, isRetry: mode === 'retry', retryOfUnknownRun: mode === 'retry' };
}
