import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { WriteRecord, WriteResult } from './types';

// Decides nothing: what this n8n process remembers of the items it sent (state, time, execution, the API's answer,
// the baseline read before sending), per node. A fast path with the first answer for Retry On Fail and for a Retry
// or a repeated key that reaches the same process. Kept in memory, not in the workflow's static data: n8n saves
// static data whole at the end of each execution that changed it, from the copy that execution loaded, so an
// execution writing records would put back old trigger cursors saved meanwhile. Where a record is missing (another
// process, a restart), the claims and ends in n8n's store (markers.ts) decide.

/** Per workflow and node: key -> record. */
const memory = new Map<string, Record<string, WriteRecord>>();

/** The records of a workflow's node in this process (live: what a run changes shows there). */
export function recordsOf(workflowId: string, nodeId: string): Record<string, WriteRecord> {
	const scope = `${workflowId}:${nodeId}`;
	const found = memory.get(scope) ?? {};
	memory.set(scope, found);
	return found;
}

/** Forgets every record (the harness: a new n8n process). */
export function forgetRecords(): void {
	memory.clear();
}
/** A failed execution can be retried as long as n8n keeps it (14 days by default): records live that long. */
export const REMEMBER_DAYS = 14;
/** At most this many records per node; the oldest go first. */
export const MAX_REMEMBERED = 1000;

/** Fields of an answer that name what a write made. */
const ID_FIELDS = ['orderId', 'projectId', 'id', 'evalId', 'documentId', 'revisionId', 'memoryId'];


/** The ids an answer names (a Figma order's answer lists its orders inside: theirs count too). */
export function idsOf(result: WriteResult): string[] {
	const results = Array.isArray(result) ? result : [result];
	const nested = results.flatMap((each) => (Array.isArray(each.orders) ? (each.orders as IDataObject[]) : []));
	return [...new Set([...results, ...nested].flatMap((each) => ID_FIELDS.filter((field) => typeof each?.[field] === 'string').map((field) => each[field] as string)))];
}

export class ProcessRecords {
	private readonly store: Record<string, WriteRecord>;

	constructor(ctx: IExecuteFunctions) {
		this.store = recordsOf(ctx.getWorkflow().id ?? '', ctx.getNode().id);
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
		return new Set(Object.values(this.store).flatMap((record) => (record.result === undefined ? [] : idsOf(record.result))));
	}

	/** Keeps the record; a new one beyond MAX_REMEMBERED makes the oldest go. */
	set(key: string, record: WriteRecord): void {
		const isNew = this.store[key] === undefined;
		this.store[key] = record;
		if (isNew && Object.keys(this.store).length > MAX_REMEMBERED) this.prune(record.at);
	}

	/** Forgets records past REMEMBER_DAYS, then the oldest beyond MAX_REMEMBERED. */
	prune(now: number): void {
		const oldest = now - REMEMBER_DAYS * 86_400_000;
		const entries = Object.entries(this.store).sort((a, b) => a[1].at - b[1].at);
		const excess = Math.max(0, entries.length - MAX_REMEMBERED);
		const forgotten = entries.filter(([, record], index) => index < excess || !(record.at >= oldest));
		for (const [key] of forgotten) delete this.store[key];
	}
}
