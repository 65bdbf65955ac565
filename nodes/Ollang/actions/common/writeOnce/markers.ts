import type { IExecuteFunctions } from 'n8n-workflow';

import type { Row } from '../../../../shared/deduplicationStore';
import { hasStore, inSection } from '../../../../shared/deduplicationStore';
import { hash } from './keys';

// Decides which execution of all n8n's processes sends each attempt of a paid item, and keeps what the attempt
// left for the others, in n8n's deduplication store (n8n's database: shared at once by mains, workers and webhook
// processes). Per attempt n of key K:
// - `K|a<n>`: claimed inside the workflow's exclusive section (nodes/shared/claim.ts): the one execution that sends it;
// - `K|a<n>|applied` with `K|a<n>|made:<id>` (the ids its answer named), or `K|a<n>|released` (the API refused it,
//   nothing was done): its end, recorded by whichever execution learnt it;
// - `K|a<n>|based` with `K|a<n>|base:<token>`: the baseline read before sending, kept while the end is unknown.
// Others read these without leaving a trace (Row.has), as often as they need.

/** Sends of one item after sends settled as not applied: a fifth stops with a way forward. */
export const ATTEMPTS = 4;
/** At most this many baseline tokens are kept in the store (a listing's ids); a longer one is kept in this process's memory only. */
const MAX_BASELINE_MARKERS = 50;
/** At most this many ids of one answer are kept (an order per target language). */
const MAX_MADE_IDS = 20;
/** Names an item leaves once its attempts have ended: each attempt's claim and end, the ids the applied one made. */
export const NAMES_PER_ITEM = 2 * ATTEMPTS + MAX_MADE_IDS;

export type ClaimResult = 'won' | 'taken' | 'failed';
/** How an attempt ended, as far as the store tells. */
export type End = 'applied' | 'released' | 'unknown';

export class StoreMarkers {
	/** n8n gives this node a deduplication store (every supported n8n does; an engine without a database may not). */
	readonly available: boolean;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly options: { mode: 'entries'; maxEntries: number },
	) {
		this.available = hasStore(ctx.helpers);
	}

	/**
	 * Claims attempt n of the key: 'won' sends it, and its baseline (when short enough) is kept in the same section.
	 * Without a store every claim is won (this process's memory alone protects).
	 */
	async claimAttempt(key: string, attempt: number, baseline: string[] | undefined): Promise<ClaimResult> {
		if (!this.available) return 'won';
		const name = `${key}|a${attempt}`;
		const kept = baseline !== undefined && baseline.length <= MAX_BASELINE_MARKERS ? baselineNames(key, attempt, baseline) : [];
		const claimed = await this.section(async (row) => {
			// One call for the usual case (won); a taken attempt's baseline is its sender's: what this call added goes.
			const held = await row.record([name, ...kept]);
			if (!held.has(name)) return 'won';
			await row.remove(kept.filter((each) => !held.has(each)));
			return 'taken';
		});
		return claimed ?? 'failed';
	}

	/**
	 * The attempt's end: applied (with the ids its answer named) or released; the baseline given is no longer needed
	 * (none given: no second call on the row; a settler's leftovers go with the oldest names).
	 */
	async recordEnd(key: string, attempt: number, end: { applied: string[] } | 'released', baseline?: string[]): Promise<void> {
		const facts = end === 'released' ? [`${key}|a${attempt}|released`] : [`${key}|a${attempt}|applied`, ...end.applied.slice(0, MAX_MADE_IDS).map((id) => madeName(key, attempt, id))];
		await this.section(async (row) => {
			await row.record(facts);
			if (baseline !== undefined) await row.remove(baselineNames(key, attempt, baseline));
		});
	}

	/** How attempt n ended; undefined when the store did not answer. */
	async readEnd(key: string, attempt: number): Promise<End | undefined> {
		const held = await this.section(async (row) => await row.has([`${key}|a${attempt}|applied`, `${key}|a${attempt}|released`]));
		if (held === undefined) return undefined;
		return held.has(`${key}|a${attempt}|applied`) ? 'applied' : held.has(`${key}|a${attempt}|released`) ? 'released' : 'unknown';
	}

	/** Which of the ids attempt n's answer named; undefined when the store did not answer. */
	async madeAmong(key: string, attempt: number, ids: string[]): Promise<string[] | undefined> {
		const held = await this.section(async (row) => await row.has(ids.map((id) => madeName(key, attempt, id))));
		return held === undefined ? undefined : ids.filter((id) => held.has(madeName(key, attempt, id)));
	}

	/** Whether attempt n's baseline held the token; undefined where none was kept or the store did not answer. */
	baselineOf(key: string, attempt: number): (token: string) => Promise<boolean | undefined> {
		return async (token) => {
			const [based, name] = baselineNames(key, attempt, [token]);
			const held = await this.section(async (row) => await row.has([based, name]));
			return held?.has(based) ? held.has(name) : undefined;
		};
	}

	/** One section on the node's row; undefined when the store did not answer (logged). */
	private async section<T>(work: (row: Row) => Promise<T>): Promise<T | undefined> {
		if (!this.available) return undefined;
		try {
			return await inSection(this.ctx.helpers, this.options, work);
		} catch (error) {
			this.ctx.logger.debug("Ollang: n8n's deduplication store did not answer", { error: error instanceof Error ? error.message : String(error) });
			return undefined;
		}
	}
}

const madeName = (key: string, attempt: number, id: string) => `${key}|a${attempt}|made:${hash(id)}`;
const baselineNames = (key: string, attempt: number, tokens: string[]) => [`${key}|a${attempt}|based`, ...tokens.map((token) => `${key}|a${attempt}|base:${hash(token)}`)];
