import type { IExecuteFunctions } from 'n8n-workflow';

import { claim, record } from '../../../../shared/claim';
import { hasStore, recordInSection } from '../../../../shared/deduplicationStore';
import { hash } from './keys';

// What write-once keeps in n8n's deduplication store (in n8n's database, shared at once by mains and workers): who
// sends each attempt of an item, and what that attempt left, for the executions that find it taken.
//
// The store has no read: asking whether a name is there records it. So every name here is asked about by at most
// one execution, ever, and a name recorded by asking is never taken for a fact:
// - `K|a<n>`: attempt n of key K, claimed (nodes/shared/claim.ts): the one execution that sends it.
// - `K|a<n>|reader<k>`: reader slot k of attempt n, claimed: the one execution that reads slot k's facts.
// - `K|a<n>|r<k>|applied`, `|released`, `|made:<id>`: the attempt's outcome, recorded by its sender once per slot
//   (applied, and the ids it made; or released: the API refused it, nothing was done).
// - `K|a<n>|settle`, claimed, and `K|a<n>|based`, `K|a<n>|base:<token>`: the baseline read before sending, read by
//   the one execution that settles a lost answer of that attempt.

/** Reads of one attempt's outcome (the other execution of a pair looks twice at most; retries once); a fifth stops. */
export const READERS = 4;
/** Sends of one item after sends settled as not applied: a fifth stops with a way forward. */
export const ATTEMPTS = 4;
/** At most this many baseline tokens are kept in the store (a listing's ids); a longer baseline lives in static data only. */
const MAX_BASELINE_MARKERS = 50;
/** At most this many ids of one answer are kept as facts (an order per target language). */
const MAX_MADE_IDS = 20;
/** Names one item can leave: claims (attempt, readers, settle), facts per slot, the baseline. */
export const NAMES_PER_ITEM = 2 + 2 * READERS + 2 + READERS * (2 + MAX_MADE_IDS) + 1 + MAX_BASELINE_MARKERS;

/** What a reader finds an attempt left. */
export type Facts = { applied: true; made: string[] } | { released: true } | { unknown: true };

export type ClaimResult = 'won' | 'taken' | 'failed';

export class StoreMarkers {
	/** n8n gives this node a deduplication store (every supported n8n does; an engine without a database may not). */
	readonly available: boolean;

	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly options: { mode: 'entries'; maxEntries: number },
	) {
		this.available = hasStore(ctx.helpers);
	}

	/** Claims attempt n of the key: 'won' sends it. Without a store every claim is won (static data alone protects). */
	async claimAttempt(key: string, attempt: number): Promise<ClaimResult> {
		return await this.claimName(`${key}|a${attempt}`);
	}

	/** Claims a reader slot of attempt n; the slot, or undefined when every slot is taken; 'failed' when the store did not answer. */
	async claimReader(key: string, attempt: number): Promise<number | undefined | 'failed'> {
		for (let slot = 0; slot < READERS; slot++) {
			const outcome = await this.claimName(`${key}|a${attempt}|reader${slot}`);
			if (outcome === 'failed') return 'failed';
			if (outcome === 'won') return slot;
		}
		return undefined;
	}

	/** Claims the settling of attempt n's lost answer from its baseline: one execution ever reads that baseline. */
	async claimSettle(key: string, attempt: number): Promise<ClaimResult> {
		return await this.claimName(`${key}|a${attempt}|settle`);
	}

	/**
	 * The baseline of attempt n, for the one execution that will settle it; a long baseline only in static data.
	 * Before the send, one write (the send's outcome decides whether it is needed); `lasting` after an unknown end.
	 */
	async recordBaseline(key: string, attempt: number, tokens: string[], { lasting = false } = {}): Promise<void> {
		if (!this.available || tokens.length > MAX_BASELINE_MARKERS) return;
		const names = [`${key}|a${attempt}|based`, ...tokens.map((token) => baseName(key, attempt, token))];
		if (lasting) await this.recordFacts(names);
		else await this.ask(names);
	}

	/** The attempt applied, with the ids its answer named: recorded for every reader slot. */
	async recordApplied(key: string, attempt: number, ids: string[]): Promise<void> {
		const made = ids.slice(0, MAX_MADE_IDS);
		await this.recordFacts(slots().flatMap((slot) => [`${factsOf(key, attempt, slot)}|applied`, ...made.map((id) => madeName(key, attempt, slot, id))]));
	}

	/** The API refused the attempt: nothing was done, the next attempt may be sent. */
	async recordReleased(key: string, attempt: number): Promise<void> {
		await this.recordFacts(slots().map((slot) => `${factsOf(key, attempt, slot)}|released`));
	}

	/**
	 * What attempt n left, as reader slot `slot` sees it (asked once: a second look at a slot would find its own
	 * question). `candidates` are ids that may be the attempt's effect: those it made are returned. Undefined when
	 * the store did not answer.
	 */
	async readFacts(key: string, attempt: number, slot: number, candidates: string[]): Promise<Facts | undefined> {
		const base = factsOf(key, attempt, slot);
		const found = await this.ask([`${base}|applied`, `${base}|released`, ...candidates.map((id) => madeName(key, attempt, slot, id))]);
		if (found === undefined) return undefined;
		if (found.has(`${base}|applied`)) return { applied: true, made: candidates.filter((id) => found.has(madeName(key, attempt, slot, id))) };
		if (found.has(`${base}|released`)) return { released: true };
		return { unknown: true };
	}

	/**
	 * The baseline of attempt n, as the one execution that settles it asks: each token at most once, the first
	 * question also asking whether a baseline was kept at all. Undefined where it was not kept or the store did not answer.
	 */
	baselineOf(key: string, attempt: number): (token: string) => Promise<boolean | undefined> {
		let based: boolean | undefined;
		const answers = new Map<string, boolean | undefined>();
		return async (token) => {
			if (answers.has(token)) return answers.get(token);
			const names = [baseName(key, attempt, token), ...(based === undefined ? [`${key}|a${attempt}|based`] : [])];
			const found = await this.ask(names);
			if (found === undefined) return undefined;
			based ??= found.has(`${key}|a${attempt}|based`);
			const answer = based ? found.has(baseName(key, attempt, token)) : undefined;
			answers.set(token, answer);
			return answer;
		};
	}

	private async claimName(name: string): Promise<ClaimResult> {
		if (!this.available) return 'won';
		try {
			return (await claim(this.ctx.helpers, [name], this.options)).get(name) === 'won' ? 'won' : 'taken';
		} catch (error) {
			this.debug(error);
			return 'failed';
		}
	}

	/** Facts recorded (they stay: only the exclusive section writes the row); a store that does not answer is logged: the static record still holds. */
	private async recordFacts(facts: string[]): Promise<void> {
		if (!this.available) return;
		try {
			await record(this.ctx.helpers, facts, this.options);
		} catch (error) {
			this.debug(error);
		}
	}

	private async ask(names: string[]): Promise<Set<string> | undefined> {
		if (!this.available) return undefined;
		try {
			return await recordInSection(this.ctx.helpers, names, this.options);
		} catch (error) {
			this.debug(error);
			return undefined;
		}
	}

	private debug(error: unknown): void {
		this.ctx.logger.debug("Ollang: n8n's deduplication store did not answer", {
			error: error instanceof Error ? error.message : String(error),
		});
	}
}

const slots = () => Array.from({ length: READERS }, (_, slot) => slot);
const factsOf = (key: string, attempt: number, slot: number) => `${key}|a${attempt}|r${slot}`;
const madeName = (key: string, attempt: number, slot: number, id: string) => `${factsOf(key, attempt, slot)}|made:${hash(id)}`;
const baseName = (key: string, attempt: number, token: string) => `${key}|a${attempt}|base:${hash(token)}`;
