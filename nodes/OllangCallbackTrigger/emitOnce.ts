import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { ClaimOutcome } from '../shared/claim';
import { claim, markOf, newClaimant } from '../shared/claim';
import { removeRecorded } from '../shared/deduplicationStore';

/**
 * Completions n8n's deduplication store keeps per node (the entries of one row in n8n's database). Repeats come
 * within hours; at thousands of completions a day this keeps several days.
 */
export const REMEMBERED_COMPLETIONS = 10_000;

const LOG = 'Ollang Callback Trigger:';

/** Keys of this node's completions in n8n's store: one row, its oldest entries dropped first. */
const STORE_OPTIONS = { mode: 'entries', maxEntries: REMEMBERED_COMPLETIONS } as const;

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
	const claimant = newClaimant(this.getExecutionId());
	let outcomes: Map<string, ClaimOutcome>;
	try {
		// Two processes recording one completion at the same moment: the claim's read-back says whose write the row
		// kept, and only that execution emits it (nodes/shared/claim.ts).
		outcomes = await claim(this.helpers, keys, claimant, STORE_OPTIONS, (key) =>
			this.logger.info(`${LOG} ${key} was dropped from n8n's deduplication store by another process's write; recorded again`),
		);
	} catch (error) {
		// Emitting again is better than losing the event: at least once, as the API itself delivers.
		this.logger.warn(`${LOG} n8n's deduplication store could not be read (${(error as Error).message}); emitting without the check`);
		return [items];
	}
	for (const [key, outcome] of outcomes) {
		if (outcome === 'before') this.logger.info(`${LOG} repeated callback dropped (${key}): this completion started a workflow before`);
		if (outcome === 'meanwhile') this.logger.info(`${LOG} ${key} was recorded at the same moment by another execution, which emits it; dropped here`);
		// The row kept losing it to other processes' writes: emitted, as a completion is never lost.
		if (outcome === 'undecided') this.logger.info(`${LOG} ${key} kept disappearing from n8n's deduplication store; emitted`);
	}
	try {
		// The marks have served. Left behind, they only take room.
		await removeRecorded(this.helpers, keys.map((key) => markOf(key, claimant)), STORE_OPTIONS);
	} catch (error) {
		this.logger.debug(`${LOG} claims not removed from n8n's deduplication store (${(error as Error).message})`);
	}
	const emitted = new Set(['won', 'undecided']);
	return [items.filter((item) => emitted.has(outcomes.get(String(item.json.completionKey)) ?? 'won'))];
}
