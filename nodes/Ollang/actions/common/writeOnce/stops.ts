import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { appliedNote } from '../../../transport/errors';
import type { WriteRecord, WriteResult } from './types';

// How write-once ends an item without sending it: what the output says of an item already applied, and the errors
// that stop one, each saying what was (not) sent and what to do.

/** A skipped item: what was applied, said to be so, when and by which execution (where known). */
export function alreadyAppliedOutput(result: WriteResult, record: WriteRecord | undefined): WriteResult {
	const mark = (json: IDataObject): IDataObject => ({
		...json,
		alreadyApplied: true,
		...(record?.at !== undefined ? { appliedAt: new Date(record.at).toISOString() } : {}),
		...(record?.execution ? { appliedInExecution: record.execution } : {}),
	});
	return Array.isArray(result) ? result.map(mark) : mark(result);
}

export function storeDidNotAnswer(ctx: IExecuteFunctions, itemIndex: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex} was not sent: n8n's deduplication store did not answer`, {
		itemIndex,
		description: `Without it, a retry could not tell whether item ${itemIndex} was sent. ${appliedNote('notApplied')} Retry the execution. If a Remove Duplicates node of this workflow keeps its history with the scope Workflow, set it to Node, or turn off Retry Protection in this node's Options.`,
	});
}

/** Another execution holds the attempt and has not finished it (or its end cannot be seen from here). */
export function sentElsewhere(ctx: IExecuteFunctions, itemIndex: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex}'s Idempotency Key is being sent by another execution`, {
		itemIndex,
		description: `Nothing was sent for it here, and that execution had not finished it when this one stopped waiting: its result is this item's. If that execution fails, retry it, or run item ${itemIndex} again with the same key once it has ended.`,
	});
}

export function mayHaveBeenApplied(ctx: IExecuteFunctions, itemIndex: number, sentAt: number | undefined, byKey: boolean): NodeOperationError {
	const when = sentAt !== undefined ? ` (${new Date(sentAt).toISOString()})` : '';
	const message = byKey
		? `Item ${itemIndex}'s Idempotency Key was sent by another execution${when} whose answer is not known here, so it may have been applied`
		: `Item ${itemIndex} was sent in the run this retries${when} and its answer was lost, so it may have been applied`;
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: `Nothing was sent again for it. ${appliedNote('mayHaveApplied')} If it was not applied, send item ${itemIndex} alone: run it in a new execution (not Retry), or give it an Idempotency Key of its own. Retrying with Retry Protection off would send every item again.`,
	});
}

export function outOfAttempts(ctx: IExecuteFunctions, itemIndex: number, attempts: number): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Item ${itemIndex} was not sent: it was sent ${attempts} times already, each found not applied`, {
		itemIndex,
		description: `${appliedNote('notApplied')} Look at why the API refuses it (the earlier executions' errors), then send item ${itemIndex} in a new execution (not Retry), or with an Idempotency Key of its own.`,
	});
}
