// How many items of a read operation run at once: the Read Concurrency option, in every read operation's Options.
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { RETRY_POLICY } from '../../transport';
import { checkNumberInRange } from './parameters';

/** Items of a read operation run this many at a time unless Read Concurrency says otherwise. */
export const READ_ITEM_CONCURRENCY = 8;
/** Read Concurrency's largest value. */
export const MAX_READ_CONCURRENCY = 64;

const FIELD = 'Read Concurrency';

const readConcurrencyOption: INodeProperties = {
	displayName: FIELD,
	name: 'readConcurrency',
	type: 'number',
	default: READ_ITEM_CONCURRENCY,
	typeOptions: { minValue: 1, maxValue: MAX_READ_CONCURRENCY },
	description: `How many input items are read at the same time (1 to ${MAX_READ_CONCURRENCY}); a Return All listing also reads up to 10 pages at a time within each item. The Ollang API publishes no rate limit; when it answers 429, each request waits as long as the answer's "Retry-After" asks (up to ${RETRY_POLICY.maxRetryAfterMs / 1000} s) and is sent again.`,
};

/**
 * A read operation's parameters with Read Concurrency in their Options: added to the Options collection they have
 * (in alphabetical place, as n8n lists options), or as a new Options collection at the end.
 */
export function withReadConcurrency(properties: INodeProperties[]): INodeProperties[] {
	const hasOptions = properties.some((property) => property.name === 'options' && property.type === 'collection');
	if (!hasOptions) {
		return [
			...properties,
			{ displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, options: [readConcurrencyOption] },
		];
	}
	return properties.map((property) => {
		if (property.name !== 'options' || property.type !== 'collection') return property;
		const options = [...(property.options ?? []), readConcurrencyOption] as INodeProperties[];
		return { ...property, options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)) };
	});
}

/**
 * The node's Read Concurrency, read once per run (from the first item: concurrency belongs to the run, not to an
 * item) and checked before any request is sent.
 */
export function readConcurrency(ctx: IExecuteFunctions): number {
	const value = ctx.getNodeParameter('options.readConcurrency', 0, READ_ITEM_CONCURRENCY);
	return checkNumberInRange(ctx, value, FIELD, 0, { min: 1, max: MAX_READ_CONCURRENCY });
}
