import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { WriteRecord, WriteResult } from './types';

// The item records write-once keeps in the workflow's static data: state, time, execution, the API's answer, the
// baseline read before sending. They are this workflow's memory of what its executions sent, and a fast path: n8n
// saves static data after every production execution (failed or not), so the next execution, a Retry with the saved
// workflow and Retry On Fail find them. They are never the only guard: n8n saves static data by overwriting it, so
// of two executions that overlap, the one saved last erases the other's records; a Retry with the original workflow
// gets the static data from before its run; a process stopped before the save leaves none. Where a record is
// missing, the claims and facts in n8n's store (markers.ts) decide.

/** Static data key of the records, in the node's own static data. */
const STORE_KEY = 'ollangAppliedItems';
/** A failed execution can be retried as long as n8n keeps it (14 days by default): records live that long. */
export const REMEMBER_DAYS = 14;
/** At most this many records per node (static data is saved with the workflow); the oldest go first. */
export const MAX_REMEMBERED = 1000;

/** Fields of an answer that name what a write made. */
const ID_FIELDS = ['orderId', 'projectId', 'id', 'evalId', 'documentId', 'revisionId', 'memoryId'];


/** The ids an answer names (a Figma order's answer lists its orders inside: theirs count too). */
export function idsOf(result: WriteResult): string[] {
	const results = Array.isArray(result) ? result : [result];
	const nested = results.flatMap((each) => (Array.isArray(each.orders) ? (each.orders as IDataObject[]) : []));
	return [...new Set([...results, ...nested].flatMap((each) => ID_FIELDS.filter((field) => typeof each?.[field] === 'string').map((field) => each[field] as string)))];
}

export class StaticRecords {
	private readonly store: Record<string, WriteRecord>;
	private readonly nodeData: IDataObject;

	constructor(ctx: IExecuteFunctions) {
		this.nodeData = ctx.getWorkflowStaticData('node');
		const found = this.nodeData[STORE_KEY];
		this.store = (typeof found === 'object' && found !== null ? found : {}) as unknown as Record<string, WriteRecord>;
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
		this.save();
		if (isNew && Object.keys(this.store).length > MAX_REMEMBERED) this.prune(record.at);
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

	private save(): void {
		// Assigning the top-level key marks the static data changed, whatever changed inside.
		this.nodeData[STORE_KEY] = this.store as unknown as IDataObject;
	}
}
