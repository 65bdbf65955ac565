import type { IDeduplicationOutput, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { checkAndRecord } from '../shared/deduplicationStore';

/**
 * Completions n8n's deduplication store keeps per node (the entries of one row in n8n's database). Repeats come
 * within hours; at thousands of completions a day this keeps several days.
 */
export const REMEMBERED_COMPLETIONS = 10_000;

const LOG = 'Ollang Callback Trigger:';

/** Keys of this node's completions in n8n's store: one row, its oldest entries dropped first. */
const STORE_OPTIONS = { mode: 'entries', maxEntries: REMEMBERED_COMPLETIONS } as const;

async function record(ctx: IExecuteFunctions, keys: string[]): Promise<IDeduplicationOutput> {
	try {
		return await checkAndRecord(ctx.helpers, keys, STORE_OPTIONS);
	} catch (error) {
		throw new NodeOperationError(ctx.getNode(), error as Error);
	}
}

/** Read-backs of one record: another process overwriting it again right after a read-back is rarer each time. */
const READ_BACKS = 3;

/**
 * How long a read-back waits first. Another worker that read the row before this record writes its copy a few
 * milliseconds to a few hundred (a loaded machine) later: read back at once, the record is still there, and that
 * write drops it afterwards (the queue-mode e2e: 1 of 3 completions recorded together emitted again after a
 * restart). Waiting lets that write land first. It delays the workflow after the trigger by this much, in every mode.
 */
const READ_BACK_AFTER_MS = 250;

/**
 * Asks the store again for the keys just recorded: one another process's write has dropped comes back as new, and
 * that same call writes it again. Stops when all are there (normally the first read-back). The waits run outside
 * the process's one-at-a-time queue, so completions arriving together wait side by side, not one after another.
 */
async function confirmRecorded(ctx: IExecuteFunctions, keys: string[]): Promise<void> {
	let pending = keys;
	for (let readBack = 0; readBack < READ_BACKS && pending.length > 0; readBack++) {
		await sleep(READ_BACK_AFTER_MS);
		const again = await record(ctx, pending);
		pending = again.new.map(String);
		for (const key of pending) ctx.logger.info(`${LOG} ${key} was dropped from n8n's deduplication store by another process's write; recorded again`);
	}
}

/**
 * The durable half of "each completion once". n8n runs a webhook trigger's execute() as the first step of the
 * execution the webhook started (WorkflowExecute.runNode), with the webhook's items as input, and there n8n's
 * deduplication store is open: in n8n's database, shared by restarts, main and workers. A completion already in it
 * (a repeat that reached a restarted n8n or another webhook process) leaves the node with no items, so nothing after
 * it runs. Test events (manual mode) pass through unrecorded, so trying the workflow never hides a production event.
 */
export async function emitOnce(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (this.getMode() === 'manual') return [items];
	const keys = items.map((item) => String(item.json.completionKey));
	let processed: Set<string>;
	try {
		const result = await record(this, keys);
		processed = new Set(result.processed.map(String));
		const recorded = result.new.map(String);
		if (recorded.length > 0) await confirmRecorded(this, recorded);
	} catch (error) {
		// Emitting again is better than losing the event: at least once, as the API itself delivers.
		this.logger.warn(`${LOG} n8n's deduplication store could not be read (${(error as Error).message}); emitting without the check`);
		return [items];
	}
	const fresh = items.filter((item) => !processed.has(String(item.json.completionKey)));
	for (const key of processed) this.logger.info(`${LOG} repeated callback dropped (${key}): this completion started a workflow before`);
	return [fresh];
}
