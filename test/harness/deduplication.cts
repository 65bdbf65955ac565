// n8n keeps its deduplication store (helpers.checkProcessedAndRecord, what the Remove Duplicates node uses) in its
// database, through the cli's DeduplicationHelper. The in-process engine has no database, so this store stands in
// for it with the same 'entries' semantics (per workflow and context, oldest entries dropped past maxEntries, check
// and record in one call); like the database it outlives an execution and its static data, until a test clears it.
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

export class InMemoryDeduplicator implements IDataDeduplicator {
	private readonly entries = new Map<string, string[]>();
	/** Every call, in order: what the tests count. */
	readonly calls: Array<{ kind: 'check' | 'remove'; items: string[] }> = [];
	/**
	 * Races as n8n's database does (the cli's DeduplicationHelper): a call reads the row, and writes its own copy
	 * back a moment later, without a lock (two calls at once: the first's keys are lost); a node's first call inserts
	 * the row, and a second insert of the same row is refused. Off: each call is one step.
	 */
	raceLikeDatabase = false;
	/** While racing, the time between a call's read and its write (ms): SQLite's or PostgreSQL's round trips. */
	raceDelayMs: () => number = () => 10;

	/** The row as the call read it, and how to write its copy back as n8n's database would. */
	private async readRow(key: string): Promise<{ existed: boolean; row: string[]; write: () => void }> {
		const existed = this.entries.has(key);
		const row = [...(this.entries.get(key) ?? [])];
		if (!this.raceLikeDatabase) return { existed, row, write: () => this.entries.set(key, row) };
		// Between the read and the write: the database's round trips on a busy machine.
		await new Promise((resolve) => setTimeout(resolve, this.raceDelayMs()));
		return {
			existed,
			row,
			write: () => {
				if (!existed && this.entries.has(key)) throw new Error('SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context');
				this.entries.set(key, row);
			},
		};
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new Error(`The harness's deduplication store keeps entries only, not ${options.mode}`);
		const { row: stored, write } = await this.readRow(contextKey(scope, contextData));
		const output: IDeduplicationOutput = { new: [], processed: [] };
		const present = new Set(stored);
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
		write();
		this.calls.push({ kind: 'check', items: items.map(String) });
		return output;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<void> {
		const { existed, row: stored, write } = await this.readRow(contextKey(scope, contextData));
		this.calls.push({ kind: 'remove', items: items.map(String) });
		// As n8n: no row, nothing to remove.
		if (!existed) return;
		for (const item of items) {
			const index = stored.indexOf(String(item));
			if (index !== -1) stored.splice(index, 1);
		}
		write();
	}

	async clearAllProcessedItems(scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<void> {
		this.entries.delete(contextKey(scope, contextData));
	}

	async getProcessedDataCount(scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<number> {
		return (this.entries.get(contextKey(scope, contextData)) ?? []).length;
	}

	/** Forgets everything (a fresh n8n database). */
	clear(): void {
		this.raceLikeDatabase = false;
		this.raceDelayMs = () => 10;
		this.entries.clear();
		this.calls.length = 0;
	}
}
