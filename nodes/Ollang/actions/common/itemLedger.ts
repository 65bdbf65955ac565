import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { appliedNote } from '../../transport/errors';
import type { AppliedRecord, WriteResult } from './appliedRecords';
import { AppliedRecords } from './appliedRecords';
import type { RunIdentity } from './runIdentity';
import { runIdentity } from './runIdentity';

// The ledger of one write item: the key it is remembered under, and what an earlier send of it left. With no
// Idempotency Key the key holds the run (see runIdentity): only a retry of the run that sent it finds it, so a
// deliberate repeat in another execution is sent. An Idempotency Key names the item in any execution.

export type { WriteResult } from './appliedRecords';

/** 53-bit hash (cyrb53) of text or bytes: short keys for long requests; collisions among a thousand keys are negligible. */
function hash(input: string | Uint8Array): string {
	let h1 = 0xdeadbeef;
	let h2 = 0x41c6ce57;
	for (let index = 0; index < input.length; index++) {
		const code = typeof input === 'string' ? input.charCodeAt(index) : input[index];
		h1 = Math.imul(h1 ^ code, 2654435761);
		h2 = Math.imul(h2 ^ code, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** JSON with object keys sorted, so the same parameters always give the same key. */
function canonical(value: unknown): string {
	// A file part: its size and a hash of its bytes stand for it.
	if (value instanceof Uint8Array) return `"bytes:${value.length}:${hash(value)}"`;
	if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value as IDataObject)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${canonical((value as IDataObject)[key])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/** One node run's records and identity, shared by its items. */
interface NodeRun {
	records: AppliedRecords;
	identity: RunIdentity;
	/** Old records are forgotten once per node run, before its first item. */
	pruned: boolean;
}
const runs = new WeakMap<IExecuteFunctions, NodeRun>();

/** What an earlier send of the item left: a record, or only n8n's markers (the record was not kept). */
export type Earlier =
	| { kind: 'none' }
	| { kind: 'applied'; record?: AppliedRecord }
	| { kind: 'sent'; record?: AppliedRecord };

export class ItemLedger {
	readonly identity: RunIdentity;
	private readonly records: AppliedRecords;
	private readonly run: NodeRun;

	private constructor(
		ctx: IExecuteFunctions,
		/** The key without the run: the operation, and the item's position and request or the Idempotency Key. */
		private readonly itemKey: string,
		readonly explicitKey: boolean,
	) {
		let run = runs.get(ctx);
		if (run === undefined) {
			run = { records: new AppliedRecords(ctx), identity: runIdentity(ctx), pruned: false };
			runs.set(ctx, run);
		}
		this.run = run;
		this.records = run.records;
		this.identity = run.identity;
	}

	static forItem(ctx: IExecuteFunctions, itemIndex: number, operation: string, request: unknown, givenKey?: string): ItemLedger {
		// n8n's retries run the same items in the same order: the position tells identical items of one run apart.
		const itemKey =
			givenKey !== undefined ? `${operation}:key:${givenKey}` : `${operation}:auto:${hash(canonical({ item: itemIndex, request }))}`;
		return new ItemLedger(ctx, itemKey, givenKey !== undefined);
	}

	private get key(): string {
		return this.explicitKey ? this.itemKey : `${this.itemKey}@${this.identity.run}`;
	}

	/**
	 * What an earlier send of this item left. When nothing did, the item is marked as being sent in n8n's
	 * deduplication store, so that a run killed before n8n saved its static data still knows.
	 */
	async begin(): Promise<Earlier> {
		if (!this.run.pruned) {
			this.run.pruned = true;
			await this.records.prune(Date.now());
		}
		// Outside n8n's Retry only this execution's own earlier try (Retry On Fail) is a repeat of a default-keyed item:
		// another execution that happens to share the run's start time is not, nor a tool call outside any execution
		// (n8n's MCP Server Trigger calls its tools with no execution id: each call is the model asking).
		const counts = this.explicitKey || this.identity.isRetry;
		const record =
			this.records.get(this.key) ??
			(this.identity.retryOfUnknownRun && !this.explicitKey ? this.records.newestWithPrefix(`${this.itemKey}@`) : undefined);
		const sameExecution = this.identity.execution !== '' && record?.execution === this.identity.execution;
		if (record !== undefined && (counts || sameExecution)) return { kind: record.state, record };
		const marker = await this.records.markSending(this.key);
		return counts && (marker === 'applied' || marker === 'sent') ? { kind: marker } : { kind: 'none' };
	}

	/**
	 * Right before the request goes out. What was read before sending is kept in the record and, as a hash, in n8n's
	 * deduplication store, where a run that lost the record can still ask whether the state it reads now is that one.
	 */
	async sending(at: number, before?: IDataObject): Promise<void> {
		await this.records.set(this.key, { state: 'sent', at, execution: this.identity.execution, ...(before ? { before } : {}) });
		if (before) await this.records.recordOrFind(this.beforeMarker(before));
	}

	/** Whether the state read before the earlier send was exactly `state`; undefined when that cannot be known. */
	async wasBefore(state: IDataObject): Promise<boolean | undefined> {
		return await this.records.recordOrFind(this.beforeMarker(state), false);
	}

	private beforeMarker(state: IDataObject): string {
		return `${this.key}|before:${hash(canonical(state))}`;
	}

	async applied(at: number, result: WriteResult, execution = this.identity.execution): Promise<void> {
		await this.records.set(this.key, { state: 'applied', at, execution, result });
		await this.records.markApplied(this.key);
	}

	/** The service did not act (a refusal, a connection never made): nothing is remembered. */
	async notApplied(): Promise<void> {
		this.records.delete(this.key);
		await this.records.markNotSent(this.key);
	}

	/** Order ids, project ids, ... that this node's records say it made: not to be taken for another item's. */
	claimedIds(): Set<string> {
		return this.records.resultIds();
	}
}

/** A failure after which the service may have acted: kept as 'sent'. Anything else means it did not act. */
export function mayHaveApplied(error: unknown): boolean {
	if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return true;
	const description = String(error.description ?? '');
	if (description.includes(appliedNote('notApplied'))) return false;
	if (description.includes(appliedNote('mayHaveApplied'))) return true;
	// An answer from the API (4xx) is a refusal: nothing was done.
	const status = Number((error as { httpCode?: string | null }).httpCode);
	return !(status >= 400 && status < 500);
}
