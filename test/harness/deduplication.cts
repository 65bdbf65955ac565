// n8n keeps its deduplication store (helpers.checkProcessedAndRecord, what the Remove Duplicates node uses) in its
// database, through the cli's DeduplicationHelper. The in-process engine has no database, so this store stands in
// for it with the same semantics ('entries' and 'latestIncrementalKey', per workflow and context, oldest entries
// dropped past maxEntries, check and record in one call, delete); like the database it outlives an execution and its
// static data, until a test clears it.
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

function contextKey(scope: DeduplicationScope, contextData: ICheckProcessedContextData): string {
	if (scope === 'node' && !contextData.node) throw new Error("No node information has been provided and so cannot use scope 'node'");
	return `${contextData.workflow.id}|${scope === 'node' ? `n:${contextData.node?.id}` : ''}`;
}

type Row = { mode: ICheckProcessedOptions['mode']; data: string[] | number };

/** A row's size in n8n's database: its value as JSON, each entry an md5 in base64 (24 characters, quoted, a comma). */
const rowBytes = (row: Row | undefined): number =>
	row === undefined ? 0 : Buffer.byteLength(JSON.stringify({ mode: row.mode, data: Array.isArray(row.data) ? [] : row.data })) + (Array.isArray(row.data) ? 27 * row.data.length : 0);

export class InMemoryDeduplicator implements IDataDeduplicator {
	private readonly rows = new Map<string, Row>();
	/** Every call, in order: what the tests count ('section': the exclusive section's calls on the workflow's row). */
	readonly calls: Array<{ kind: 'check' | 'remove' | 'section'; items: string[] }> = [];
	/**
	 * Races as n8n's database does (the cli's DeduplicationHelper): a call reads the row, and writes its own copy
	 * back a moment later, without a lock (two calls at once: the first's keys are lost); a missing row is inserted,
	 * and a second insert of the same row is refused; a row deleted meanwhile takes no update. Off: each call is one step.
	 */
	raceLikeDatabase = false;
	/** While racing, the time between a call's read and its write (ms): SQLite's or PostgreSQL's round trips. */
	raceDelayMs: () => number = () => 10;
	/** Bytes of rows read and written, as n8n's database would move them (bench section 12). */
	readonly traffic = { read: 0, written: 0 };

	/** The row as the call read it, and how to write its copy back as n8n's database would. */
	private async readRow(key: string): Promise<{ existed: boolean; row: Row | undefined; write: (row: Row) => void }> {
		const found = this.rows.get(key);
		const row = found && { mode: found.mode, data: Array.isArray(found.data) ? [...found.data] : found.data };
		this.traffic.read += rowBytes(row);
		const write = (written: Row) => {
			if (row === undefined && this.rows.has(key)) throw new Error('SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context');
			// An update of a row deleted meanwhile changes nothing (UPDATE ... WHERE its key).
			if (row !== undefined && !this.rows.has(key)) return;
			this.traffic.written += rowBytes(written);
			this.rows.set(key, written);
		};
		// Between the read and the write: the database's round trips on a busy machine.
		if (this.raceLikeDatabase) await new Promise((resolve) => setTimeout(resolve, this.raceDelayMs()));
		return { existed: row !== undefined, row, write };
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const { row, write } = await this.readRow(contextKey(scope, contextData));
		if (row !== undefined && row.mode !== options.mode) throw new Error('Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter.');
		if (options.mode === 'latestIncrementalKey') {
			this.calls.push({ kind: 'section', items: items.map(String) });
			return this.latest(items, row, write);
		}
		if (options.mode !== 'entries') throw new Error(`The harness's deduplication store keeps entries and incremental keys only, not ${options.mode}`);
		const stored = (row?.data as string[] | undefined) ?? [];
		const output: IDeduplicationOutput = { new: [], processed: [] };
		const present = new Set(row === undefined ? [] : stored);
		for (const item of items) {
			const value = String(item);
			if (present.has(value)) output.processed.push(item);
			else {
				output.new.push(item);
				stored.push(value);
				present.add(value);
			}
		}
		if (options.maxEntries) stored.splice(0, Math.max(0, stored.length - options.maxEntries));
		write({ mode: 'entries', data: stored });
		this.calls.push({ kind: 'check', items: items.map(String) });
		return output;
	}

	/** n8n's latestIncrementalKey mode: the row keeps the largest key; a key above it is new. */
	private latest(items: DeduplicationItemTypes[], row: Row | undefined, write: (row: Row) => void): IDeduplicationOutput {
		const keys = items.map(Number);
		if (row === undefined) {
			write({ mode: 'latestIncrementalKey', data: Math.max(...keys) });
			return { new: items, processed: [] };
		}
		const stored = row.data as number;
		const output: IDeduplicationOutput = { new: [], processed: [] };
		items.forEach((item, index) => (keys[index] > stored ? output.new : output.processed).push(item));
		write({ mode: 'latestIncrementalKey', data: Math.max(stored, ...keys) });
		return output;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<void> {
		const { row, write } = await this.readRow(contextKey(scope, contextData));
		this.calls.push({ kind: 'remove', items: items.map(String) });
		// As n8n: no row, nothing to remove.
		if (row === undefined || !Array.isArray(row.data)) return;
		const stored = row.data;
		for (const item of items) {
			const index = stored.indexOf(String(item));
			if (index !== -1) stored.splice(index, 1);
		}
		write(row);
	}

	async clearAllProcessedItems(scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<void> {
		this.calls.push({ kind: 'section', items: [] });
		this.rows.delete(contextKey(scope, contextData));
	}

	async getProcessedDataCount(scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<number> {
		const data = this.rows.get(contextKey(scope, contextData))?.data;
		return Array.isArray(data) ? data.length : 0;
	}

	/** Forgets everything (a fresh n8n database). */
	clear(): void {
		this.raceLikeDatabase = false;
		this.raceDelayMs = () => 10;
		this.rows.clear();
		this.calls.length = 0;
		this.traffic.read = this.traffic.written = 0;
	}
}
