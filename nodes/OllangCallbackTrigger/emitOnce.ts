import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { checkAndRecord, removeRecorded } from '../shared/deduplicationStore';

/**
 * Completions n8n's deduplication store keeps per node (the entries of one row in n8n's database). Repeats come
 * within hours; at thousands of completions a day this keeps several days.
 */
export const REMEMBERED_COMPLETIONS = 10_000;

const LOG = 'Ollang Callback Trigger:';

/** Keys of this node's completions in n8n's store: one row, its oldest entries dropped first. */
const STORE_OPTIONS = { mode: 'entries', maxEntries: REMEMBERED_COMPLETIONS } as const;

/** Records the markers in n8n's store; says which were there before. */
async function record(ctx: IExecuteFunctions, markers: string[]): Promise<Set<string>> {
	try {
		return new Set((await checkAndRecord(ctx.helpers, markers, STORE_OPTIONS)).processed.map(String));
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

/** This execution's claim on a completion, recorded beside it: whose write of the completion the row kept. */
function claimOf(key: string, claimant: string): string {
	return `${key}|claim:${claimant}`;
}

/**
 * Reads back the completions this execution recorded as new, and says which are its own to emit. Two processes
 * (queue-mode workers) recording one completion at the same moment both read the row without it, so both find it
 * new; the row then keeps one copy, the last written, and with it one claim. Each read-back records the completion
 * and the claim again (one call: nothing is recorded and taken back, which a write read before it could bring back):
 * - both were there: this execution's record stands, the completion is its own;
 * - the completion was there without this claim: another execution's write replaced this one's, and that execution
 *   emits it; it is dropped here;
 * - the completion was gone (another process's write of other keys replaced this one's): this call has recorded it
 *   again, and it is read back again.
 * Stops when none is left undecided (normally at the first read-back); what is still undecided then is emitted. The
 * waits run outside the process's one-at-a-time queue, so completions arriving together wait side by side.
 */
async function ownedAfterReadBack(ctx: IExecuteFunctions, keys: string[], claimant: string): Promise<Set<string>> {
	const owned = new Set<string>();
	let pending = keys;
	for (let readBack = 0; readBack < READ_BACKS && pending.length > 0; readBack++) {
		await sleep(READ_BACK_AFTER_MS);
		const found = await record(ctx, pending.flatMap((key) => [key, claimOf(key, claimant)]));
		for (const key of pending.filter((each) => found.has(each))) {
			if (found.has(claimOf(key, claimant))) owned.add(key);
			else ctx.logger.info(`${LOG} ${key} was recorded at the same moment by another execution, which emits it; dropped here`);
		}
		pending = pending.filter((key) => !found.has(key));
		for (const key of pending) ctx.logger.info(`${LOG} ${key} was dropped from n8n's deduplication store by another process's write; recorded again`);
	}
	for (const key of pending) owned.add(key);
	return owned;
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
	const keys = [...new Set(items.map((item) => String(item.json.completionKey)))];
	const claimant = `${this.getExecutionId() ?? ''}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
	let owned: Set<string>;
	try {
		const processed = await record(this, keys.flatMap((key) => [key, claimOf(key, claimant)]));
		for (const key of keys.filter((each) => processed.has(each))) {
			this.logger.info(`${LOG} repeated callback dropped (${key}): this completion started a workflow before`);
		}
		owned = await ownedAfterReadBack(this, keys.filter((key) => !processed.has(key)), claimant);
	} catch (error) {
		// Emitting again is better than losing the event: at least once, as the API itself delivers.
		this.logger.warn(`${LOG} n8n's deduplication store could not be read (${(error as Error).message}); emitting without the check`);
		return [items];
	}
	try {
		// The claims have served (a repeat's too: it was recorded with the others). Left behind, they only take room.
		await removeRecorded(this.helpers, keys.map((key) => claimOf(key, claimant)), STORE_OPTIONS);
	} catch (error) {
		this.logger.debug(`${LOG} claims not removed from n8n's deduplication store (${(error as Error).message})`);
	}
	return [items.filter((item) => owned.has(String(item.json.completionKey)))];
}
