import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

// Where a protected item's record lives. Two stores, each for what it does best:
// - the workflow's static data keeps the record itself (state, time, the execution, the API's answer, what was read
//   before sending); n8n saves it with the workflow after every production execution, failed or not;
// - n8n's deduplication store (`helpers.checkProcessedAndRecord`, what the Remove Duplicates node keeps across
//   executions) keeps two markers per record, "sent" and "applied", written to n8n's database at once and shared by
//   mains and workers. It covers what static data cannot: a Retry with the original workflow (n8n gives that run the
//   static data from before the failed run), a process killed before n8n saved the execution, and two executions at
//   once with the same Idempotency Key. It stores hashes only, so the answer itself comes from static data or, where
//   that is gone, from the API's state.

/** Static data key of the records, in the node's own static data. */
const STORE_KEY = 'ollangAppliedItems';
/** A failed execution can be retried as long as n8n keeps it (14 days by default): records live that long. */
export const REMEMBER_DAYS = 14;
/** At most this many records per node (static data is saved with the workflow); the oldest go first. */
export const MAX_REMEMBERED = 1000;
/** Markers kept in n8n's deduplication store per node: two a record, and room for those of records pruned late. */
const MAX_MARKERS = 3 * MAX_REMEMBERED;

/** Fields of an answer that name what a write made. */
const ID_FIELDS = ['orderId', 'projectId', 'id', 'evalId', 'documentId', 'revisionId', 'memoryId'];

/** 'applied': the API answered success. 'sent': sent, the answer lost or unclear, so it may have been applied. */
export interface AppliedRecord {
	state: 'applied' | 'sent';
	/** Epoch milliseconds of the request. */
	at: number;
	/** The execution that sent it. */
	execution?: string;
	/** The run (see runIdentity): a record made without an Idempotency Key counts for this run only. */
	run?: string;
	/** What the API answered (ids, credits): returned again for a repeat. */
	result?: WriteResult;
	/** What the operation read from the service before sending, to tell later whether the request was applied. */
	before?: IDataObject;
}

/** An item's output: one object, or several (Order > Create makes one order per target language). */
export type WriteResult = IDataObject | IDataObject[];

/** What n8n's deduplication store knows of a key: nothing, sent (answer unknown), applied; or no store to ask. */
export type MarkerState = 'none' | 'sent' | 'applied' | 'unavailable';

type Dedup = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'removeProcessed'>;
const MARKER_OPTIONS = { mode: 'entries', maxEntries: MAX_MARKERS } as const;

/** The node's records for one run of the node. */
export class AppliedRecords {
	private readonly store: Record<string, AppliedRecord>;
	private readonly nodeData: IDataObject;
	/** False once n8n's deduplication store failed to answer (not set up in this engine, an older n8n). */
	private markersAvailable: boolean;

	constructor(private readonly ctx: IExecuteFunctions) {
		this.nodeData = ctx.getWorkflowStaticData('node');
		const found = this.nodeData[STORE_KEY];
		this.store = (typeof found === 'object' && found !== null ? found : {}) as unknown as Record<string, AppliedRecord>;
		const helpers = ctx.helpers as Partial<Dedup>;
		this.markersAvailable = typeof helpers.checkProcessedAndRecord === 'function' && typeof helpers.removeProcessed === 'function';
	}

	get(key: string): AppliedRecord | undefined {
		return this.store[key];
	}

	/** The newest record whose key starts with this prefix (a retry whose run cannot be named). */
	newestWithPrefix(prefix: string): AppliedRecord | undefined {
		let newest: AppliedRecord | undefined;
		for (const [key, record] of Object.entries(this.store)) {
			if (key.startsWith(prefix) && (newest === undefined || record.at > newest.at)) newest = record;
		}
		return newest;
	}

	/** Every id an applied record's answer names (orderId, projectId, id, ...). */
	resultIds(): Set<string> {
		const ids = new Set<string>();
		for (const record of Object.values(this.store)) {
			const results = record.result === undefined ? [] : Array.isArray(record.result) ? record.result : [record.result];
			// A Figma order's answer lists its orders inside: theirs count too.
			const nested = results.flatMap((result) => (Array.isArray(result.orders) ? (result.orders as IDataObject[]) : []));
			for (const result of [...results, ...nested]) {
				if (typeof result !== 'object' || result === null) continue;
				for (const field of ID_FIELDS) if (typeof result[field] === 'string') ids.add(result[field] as string);
			}
		}
		return ids;
	}

	/** Keeps the record; a new one beyond MAX_REMEMBERED makes the oldest go. */
	async set(key: string, record: AppliedRecord): Promise<void> {
		const isNew = this.store[key] === undefined;
		this.store[key] = record;
		this.save();
		if (isNew && Object.keys(this.store).length > MAX_REMEMBERED) await this.prune(record.at);
	}

	delete(key: string): void {
		delete this.store[key];
		this.save();
	}

	/** Forgets records past REMEMBER_DAYS, then the oldest beyond MAX_REMEMBERED (their markers too). */
	async prune(now: number): Promise<void> {
		const oldest = now - REMEMBER_DAYS * 86_400_000;
		const entries = Object.entries(this.store).sort((a, b) => a[1].at - b[1].at);
		const excess = Math.max(0, entries.length - MAX_REMEMBERED);
		const forgotten = entries.filter(([, record], index) => index < excess || !(record.at >= oldest)).map(([key]) => key);
		if (forgotten.length === 0) return;
		for (const key of forgotten) delete this.store[key];
		this.save();
		await this.removeMarkers(forgotten.flatMap((key) => [`${key}|sent`, `${key}|applied`]));
	}

	/**
	 * Records in n8n's deduplication store that the key is being sent, and says what it knew before: 'none' (first
	 * time), 'sent' (sent before, its answer unknown), 'applied' (applied before), or 'unavailable'.
	 */
	async markSending(key: string): Promise<MarkerState> {
		const sent = await this.check(`${key}|sent`);
		if (sent === 'unavailable' || sent === 'new') return sent === 'new' ? 'none' : 'unavailable';
		const applied = await this.check(`${key}|applied`);
		if (applied === 'processed') return 'applied';
		// Checking wrote the "applied" marker: take it back, nothing says the earlier send was applied.
		await this.removeMarkers([`${key}|applied`]);
		return 'sent';
	}

	/**
	 * Whether `marker` was recorded before (and it is recorded now); undefined without n8n's store. `keep: false`
	 * takes a marker this check wrote back out.
	 */
	async recordOrFind(marker: string, keep = true): Promise<boolean | undefined> {
		const found = await this.check(marker);
		if (found === 'unavailable') return undefined;
		if (found === 'new' && !keep) await this.removeMarkers([marker]);
		return found === 'processed';
	}

	async markApplied(key: string): Promise<void> {
		await this.check(`${key}|applied`);
	}

	/** The send did not reach the service: its markers go, so the next run sends it. */
	async markNotSent(key: string): Promise<void> {
		await this.removeMarkers([`${key}|sent`, `${key}|applied`]);
	}

	private save(): void {
		// Assigning the top-level key marks the static data changed, whatever changed inside.
		this.nodeData[STORE_KEY] = this.store as unknown as IDataObject;
	}

	private async check(marker: string): Promise<'new' | 'processed' | 'unavailable'> {
		if (!this.markersAvailable) return 'unavailable';
		try {
			const answer = await this.ctx.helpers.checkProcessedAndRecord([marker], 'node', MARKER_OPTIONS);
			return answer.processed.length > 0 ? 'processed' : 'new';
		} catch (error) {
			// An engine without n8n's database (no deduplication service set up): static data alone, as before.
			this.markersAvailable = false;
			this.ctx.logger.debug('Ollang: n8n\'s deduplication store is not available; Retry Protection uses static data only', {
				error: error instanceof Error ? error.message : String(error),
			});
			return 'unavailable';
		}
	}

	private async removeMarkers(markers: string[]): Promise<void> {
		if (!this.markersAvailable || markers.length === 0) return;
		try {
			await this.ctx.helpers.removeProcessed(markers, 'node', MARKER_OPTIONS);
		} catch {
			this.markersAvailable = false;
		}
	}
}
