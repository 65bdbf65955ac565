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

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new Error(`The harness's deduplication store keeps entries only, not ${options.mode}`);
		const key = contextKey(scope, contextData);
		const stored = this.entries.get(key) ?? [];
		const output: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			const value = String(item);
			if (stored.includes(value)) output.processed.push(item);
			else {
				output.new.push(item);
				stored.push(value);
			}
		}
		if (options.maxEntries) stored.splice(0, Math.max(0, stored.length - options.maxEntries));
		this.entries.set(key, stored);
		this.calls.push({ kind: 'check', items: items.map(String) });
		return output;
	}

	async removeProcessed(items: DeduplicationItemTypes[], scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<void> {
		const stored = this.entries.get(contextKey(scope, contextData)) ?? [];
		for (const item of items) {
			const index = stored.indexOf(String(item));
			if (index !== -1) stored.splice(index, 1);
		}
		this.calls.push({ kind: 'remove', items: items.map(String) });
	}

	async clearAllProcessedItems(scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<void> {
		this.entries.delete(contextKey(scope, contextData));
	}

	async getProcessedDataCount(scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<number> {
		return (this.entries.get(contextKey(scope, contextData)) ?? []).length;
	}

	/** Forgets everything (a fresh n8n database). */
	clear(): void {
		this.entries.clear();
		this.calls.length = 0;
	}
}
