// How many items of a read operation run at once: the Read Concurrency option, in every read operation's Options.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkNumberInRange } from './parameters';

/** Items of a read operation run this many at a time unless Read Concurrency says otherwise. */
export const READ_ITEM_CONCURRENCY = 8;
/** Read Concurrency's largest value. */
export const MAX_READ_CONCURRENCY = 64;

const FIELD = 'Read Concurrency';

/** Read Concurrency, in the Options of every read operation whose items can differ (fields.ts forReadOperation). */
export const readConcurrencyOption: INodeProperties = {
	displayName: FIELD,
	name: 'readConcurrency',
	type: 'number',
	default: READ_ITEM_CONCURRENCY,
	typeOptions: { minValue: 1, maxValue: MAX_READ_CONCURRENCY },
	description: `How many input items to read at the same time (1 to ${MAX_READ_CONCURRENCY}). When Ollang asks for fewer requests, the node waits and tries again; lower this if it still refuses them.`,
};

/**
 * The node's Read Concurrency, read once per run (from the first item: concurrency belongs to the run, not to an
 * item) and checked before any request is sent.
 */
export function readConcurrency(ctx: IExecuteFunctions): number {
	const value = ctx.getNodeParameter('options.readConcurrency', 0, READ_ITEM_CONCURRENCY);
	return checkNumberInRange(ctx, value, FIELD, 0, { min: 1, max: MAX_READ_CONCURRENCY });
}
