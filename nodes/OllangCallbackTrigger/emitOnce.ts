import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { ClaimOutcome } from '../shared/claim';
import { claim } from '../shared/claim';
import { confirmArrivals } from './confirmArrivals';
import { ANSWER_KEEP_MS, rememberAnswer, triggerScope } from './processed';
import { DEFAULT_SWEEP_MINUTES, sweepIntervalMs } from './sweep';

/**
 * Completions n8n's deduplication store keeps per node (the entries of one row in n8n's database). Repeats come
 * within hours; at thousands of completions a day this keeps several days.
 */
export const REMEMBERED_COMPLETIONS = 10_000;

const LOG = 'Ollang Callback Trigger:';

/** Keys of this node's completions in n8n's store: one row, its oldest entries dropped first. */
const STORE_OPTIONS = { mode: 'entries', maxEntries: REMEMBERED_COMPLETIONS } as const;

/**
 * The execution's first step. n8n runs a webhook trigger's execute() as the first step of the execution its webhook
 * (or its sweep, trigger()) started (WorkflowExecute.runNode), with those items as input, and there n8n's
 * deduplication store is open: in n8n's database, shared by restarts, main, webhook processes and workers. Each
 * arrival is confirmed with the API (confirmArrivals.ts), then each completion is claimed under its key: one already
 * in the store (a repeat, or the same completion found by push and sweep) leaves the node with no item for it, so
 * nothing after it runs. Test events (manual mode) are confirmed but pass unrecorded, so trying the workflow never
 * hides a production event.
 */
export async function emitOnce(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const completions = await confirmArrivals.call(this, this.getInputData(), sweepIntervalMs(this.getNodeParameter('options.sweepMinutes', 0, DEFAULT_SWEEP_MINUTES)) > 0);
	if (this.getMode() === 'manual') return [completions.map((completion) => ({ json: completion.json }))];
	const keys = [...new Set(completions.map((completion) => completion.completionKey))];
	if (keys.length === 0) return [[]];
	let outcomes: Map<string, ClaimOutcome>;
	/** Emitted without the check: the item says it may have been emitted before. */
	let unchecked = false;
	try {
		// Two processes recording one completion at the same moment: the one whose call ran in the workflow's
		// exclusive section first emits it (nodes/shared/claim.ts).
		outcomes = await claim(this.helpers, keys, STORE_OPTIONS);
	} catch (error) {
		// Emitting again is better than losing the event (at least once, as the API itself delivers), said on the item.
		this.logger.warn(`${LOG} n8n's deduplication store could not be read (${(error as Error).message}); emitting without the check`);
		outcomes = new Map(keys.map((key) => [key, 'won']));
		unchecked = true;
	}
	for (const [key, outcome] of outcomes) {
		if (outcome === 'before') this.logger.info(`${LOG} repeated completion dropped (${key}): it started a workflow before`);
	}
	const scope = triggerScope(this);
	const emitted = new Set<string>();
	const items: INodeExecutionData[] = [];
	for (const completion of completions) {
		// Repeats of these callbacks are answered without an execution from now on (in this process).
		for (const settled of completion.claims) rememberAnswer(scope, settled, `the API showed ${completion.completionKey}, settled`, ANSWER_KEEP_MS.repeat);
		const outcome = outcomes.get(completion.completionKey) ?? 'won';
		if (outcome !== 'won' || emitted.has(completion.completionKey)) continue;
		emitted.add(completion.completionKey);
		items.push({ json: unchecked ? { ...completion.json, possibleRepeat: true } : completion.json });
	}
	return [items];
}
