import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { checkAndRecord, checkOnly, hasStore, removeRecorded } from '../../../../shared/deduplicationStore';
import { hash } from './keys';

// Where an item's record lives. Two stores, each for what it does best:
// - the workflow's static data keeps the record (state, time, execution, the API's answer, the baseline read before
//   sending); n8n saves it with the workflow after every production execution, failed or not;
// - n8n's deduplication store (`helpers.checkProcessedAndRecord`, what Remove Duplicates keeps across executions)
//   keeps markers, written to n8n's database at once and shared by mains and workers: "sent", "applied" and the
//   baseline's tokens. It covers what static data cannot: n8n's Retry with the original workflow (the static data
//   from before the failed run), a process stopped before n8n saved the run, two executions with one key at once.
// A marker carries its week, and only the last three weeks' count: markers age out like records (14 days, at most 21).

/** Static data key of the records, in the node's own static data. */
const STORE_KEY = 'ollangAppliedItems';
/** A failed execution can be retried as long as n8n keeps it (14 days by default): records live that long. */
export const REMEMBER_DAYS = 14;
/** At most this many records per node (static data is saved with the workflow); the oldest go first. */
export const MAX_REMEMBERED = 1000;
/** At most this many baseline tokens are kept as markers (a listing's ids); a longer baseline lives in static data only. */
const MAX_BASELINE_MARKERS = 50;
const WEEK_MS = 7 * 86_400_000;
/** Sends of one item after lost answers settled as not applied: a fourth stops with a way forward. */
const ATTEMPTS = [0, 1, 2, 3];
const MARKER_OPTIONS = { mode: 'entries', maxEntries: (3 + MAX_BASELINE_MARKERS) * MAX_REMEMBERED } as const;

/** An item's output: one object, or several (Order > Create makes one order per target language). */
export type WriteResult = IDataObject | IDataObject[];

/** 'sent': reserved and sent, the answer not known (it may have been applied). 'applied': the API answered success. */
export interface WriteRecord {
	state: 'applied' | 'sent';
	/** Epoch milliseconds of the send. */
	at: number;
	/** The execution that sent it. */
	execution?: string;
	/** What the API answered (ids, credits): returned again for a repeat. */
	result?: WriteResult;
	/** Tokens of the state read before sending (a listing's ids, the latest evaluation's id). */
	baseline?: string[];
	/** Which send of the item this is (0 first; one more after each lost answer settled as not applied). */
	attempt?: number;
	/** Kept by earlier versions: what was read before sending ({ ids } or { latestEvaluationId }). */
	before?: IDataObject;
}

/** What the deduplication store says of a key: nothing, reserved and sent, applied; or it cannot be asked. */
export type MarkerState = 'none' | 'sent' | 'applied' | 'unavailable';

/** Fields of an answer that name what a write made. */
const ID_FIELDS = ['orderId', 'projectId', 'id', 'evalId', 'documentId', 'revisionId', 'memoryId'];


export class Records {
	private readonly store: Record<string, WriteRecord>;
	private readonly nodeData: IDataObject;
	/** n8n gives this node a deduplication store (every supported n8n does; an engine without a database may not). */
	readonly markersAvailable: boolean;

	constructor(private readonly ctx: IExecuteFunctions) {
		this.nodeData = ctx.getWorkflowStaticData('node');
		const found = this.nodeData[STORE_KEY];
		this.store = (typeof found === 'object' && found !== null ? found : {}) as unknown as Record<string, WriteRecord>;
		this.markersAvailable = hasStore(ctx.helpers);
	}

	get(key: string): WriteRecord | undefined {
		return this.store[key];
	}

	/** The newest record of an item in any run (a retry whose run cannot be named). */
	newestOfItem(itemKey: string): WriteRecord | undefined {
		return Object.entries(this.store)
			.filter(([key]) => key.startsWith(`${itemKey}@`))
			.map(([, record]) => record)
			.sort((a, b) => b.at - a.at)[0];
	}

	/** Ids the answers of this node's records name: never taken for another item's. */
	claimedIds(): Set<string> {
		const ids = new Set<string>();
		for (const record of Object.values(this.store)) {
			const results = record.result === undefined ? [] : Array.isArray(record.result) ? record.result : [record.result];
			// A Figma order's answer lists its orders inside: theirs count too.
			const nested = results.flatMap((result) => (Array.isArray(result.orders) ? (result.orders as IDataObject[]) : []));
			for (const result of [...results, ...nested]) {
				for (const field of ID_FIELDS) if (typeof result?.[field] === 'string') ids.add(result[field] as string);
			}
		}
		return ids;
	}

	/** Keeps the record; a new one beyond MAX_REMEMBERED makes the oldest go. */
	set(key: string, record: WriteRecord): void {
		const isNew = this.store[key] === undefined;
		this.store[key] = record;
		this.save();
		if (isNew && Object.keys(this.store).length > MAX_REMEMBERED) this.prune(record.at);
	}

	delete(key: string): void {
		delete this.store[key];
		this.save();
	}

	/** Forgets records past REMEMBER_DAYS, then the oldest beyond MAX_REMEMBERED. */
	prune(now: number): void {
		const oldest = now - REMEMBER_DAYS * 86_400_000;
		const entries = Object.entries(this.store).sort((a, b) => a[1].at - b[1].at);
		const excess = Math.max(0, entries.length - MAX_REMEMBERED);
		const forgotten = entries.filter(([, record], index) => index < excess || !(record.at >= oldest));
		for (const [key] of forgotten) delete this.store[key];
		if (forgotten.length > 0) this.save();
	}

	/**
	 * What the markers say of a key, recording nothing (what a check records is taken back): its state, and the
	 * latest attempt reserved (-1: none).
	 */
	async peek(key: string, now: number): Promise<{ state: MarkerState; attempt: number }> {
		const weeks = [0, 1, 2].map((back) => Math.floor(now / WEEK_MS) - back);
		const applied = weeks.map((week) => `${key}|applied|w${week}`);
		const sent = ATTEMPTS.flatMap((attempt) => weeks.map((week) => ({ attempt, marker: `${key}|sent|w${week}|a${attempt}` })));
		const found = await this.check([...applied, ...sent.map(({ marker }) => marker)], true);
		if (found === undefined) return { state: 'unavailable', attempt: -1 };
		const attempt = Math.max(-1, ...sent.filter(({ marker }) => found.has(marker)).map((entry) => entry.attempt));
		if (applied.some((marker) => found.has(marker))) return { state: 'applied', attempt };
		return { state: attempt >= 0 ? 'sent' : 'none', attempt };
	}

	/**
	 * Reserves this attempt of the key with its baseline's tokens, in one call: 'reserved', 'taken' (another
	 * execution reserved this attempt first) or 'failed' (the store did not answer). Attempts are numbered so that
	 * two executions sending again after one lost answer meet on the same marker. Without a store, the static record
	 * alone reserves.
	 */
	async reserve(key: string, attempt: number, now: number, baseline: string[] | undefined): Promise<'reserved' | 'taken' | 'failed'> {
		if (!this.markersAvailable) return 'reserved';
		if (!ATTEMPTS.includes(attempt)) return 'taken';
		const sent = `${key}|sent|w${Math.floor(now / WEEK_MS)}|a${attempt}`;
		const tokens =
			baseline !== undefined && baseline.length <= MAX_BASELINE_MARKERS
				? [`${key}|a${attempt}|based`, ...baseline.map((token) => this.baseMarker(key, attempt, token))]
				: [];
		const found = await this.check([sent, ...tokens], false);
		if (found === undefined) return 'failed';
		return found.has(sent) ? 'taken' : 'reserved';
	}

	/** Whether the baseline of that attempt, kept as markers, held this token; undefined when none was kept there. */
	async wasInBaseline(key: string, attempt: number, token: string): Promise<boolean | undefined> {
		const based = `${key}|a${attempt}|based`;
		const found = await this.check([based, this.baseMarker(key, attempt, token)], true);
		if (found === undefined || !found.has(based)) return undefined;
		return found.has(this.baseMarker(key, attempt, token));
	}

	async markApplied(key: string, now: number): Promise<void> {
		await this.check([`${key}|applied|w${Math.floor(now / WEEK_MS)}`], false);
	}

	/** The send did not reach the API: this attempt's reservation goes, so the next run sends it. */
	async release(key: string, attempt: number, now: number): Promise<void> {
		if (!this.markersAvailable) return;
		const weeks = [0, 1, 2].map((back) => Math.floor(now / WEEK_MS) - back);
		const markers = [...weeks.map((week) => `${key}|sent|w${week}|a${attempt}`), `${key}|a${attempt}|based`];
		try {
			await removeRecorded(this.ctx.helpers, markers, MARKER_OPTIONS);
		} catch (error) {
			this.debug(error);
		}
	}

	private baseMarker(key: string, attempt: number, token: string): string {
		return `${key}|a${attempt}|base:${hash(token)}`;
	}

	private save(): void {
		// Assigning the top-level key marks the static data changed, whatever changed inside.
		this.nodeData[STORE_KEY] = this.store as unknown as IDataObject;
	}

	/**
	 * Checks and records markers; `takeBack` removes again those this call recorded. The markers found before, or
	 * undefined without a store or when it did not answer (logged).
	 */
	private async check(markers: string[], takeBack: boolean): Promise<Set<string> | undefined> {
		if (!this.markersAvailable) return undefined;
		try {
			const answer = takeBack
				? await checkOnly(this.ctx.helpers, markers, MARKER_OPTIONS)
				: await checkAndRecord(this.ctx.helpers, markers, MARKER_OPTIONS);
			return new Set(answer.processed.map(String));
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
