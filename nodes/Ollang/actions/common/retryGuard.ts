import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { appliedNote } from '../../transport/errors';
import { asNodeError } from './outcomes';
import { checkText, invalidField } from './parameters';

// n8n's Retry (executions list) runs the failed node again with all its input items, and Retry On Fail runs it again
// within the execution: items already applied would be applied again by actions the API repeats (charging again or
// creating duplicates). Each such item is remembered in the workflow's static data under its idempotency key, which
// n8n saves after every execution that is not a manual one (success or failure, regular and queue mode), and keeps in
// memory for the whole execution (so Retry On Fail sees it in manual executions too).

/** Static data key of the records, in the node's own static data. */
const STORE_KEY = 'ollangAppliedItems';
/** An item applied longer ago than this is forgotten: a repeat after it is taken for a new request. */
export const REMEMBER_HOURS = 24;
/** At most this many records per node; the oldest go first. */
export const MAX_REMEMBERED = 1000;

/** 'applied': the API answered success. 'sent': sent, the answer lost or unclear, so it may have been applied. */
interface AppliedRecord {
	state: 'applied' | 'sent';
	/** Epoch milliseconds of the request. */
	at: number;
	/** What the API answered (ids, credits): returned again for a repeat. */
	result?: WriteResult;
	/** What the operation read from the service before sending, to tell later whether the request was applied. */
	before?: IDataObject;
}

export const retryProtectionFields: INodeProperties[] = [
	{
		displayName: 'Retry Protection',
		name: 'retryProtection',
		type: 'boolean',
		default: true,
		description:
			'Whether to skip an item this node already applied in an earlier run of this workflow with the same Idempotency Key (within 24 hours), so that n8n Retry and Retry On Fail never apply or charge it twice. A skipped item returns what was applied, with alreadyApplied true.',
	},
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		displayOptions: { show: { retryProtection: [true] } },
		placeholder: 'e.g. {{ $json.ticketId }}',
		description:
			"What identifies the item across runs. Empty: the item's position and the request it sends (its parameters), so the same request at the same position within 24 hours counts as a repeat.",
	},
];

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

/** The node's records, and how to mark them changed (n8n saves static data only when told it changed). */
function storeOf(ctx: IExecuteFunctions): { store: Record<string, AppliedRecord>; save: () => void } {
	const nodeData = ctx.getWorkflowStaticData('node');
	const found = nodeData[STORE_KEY];
	const store = (typeof found === 'object' && found !== null ? found : {}) as unknown as Record<string, AppliedRecord>;
	// Assigning the top-level key marks the static data changed, whatever changed inside.
	const save = () => {
		nodeData[STORE_KEY] = store as unknown as IDataObject;
	};
	return { store, save };
}

/** Forgets records past REMEMBER_HOURS, then the oldest beyond MAX_REMEMBERED. */
function prune(store: Record<string, AppliedRecord>, now: number): void {
	const oldest = now - REMEMBER_HOURS * 3600_000;
	const entries = Object.entries(store);
	for (const [key, record] of entries) if (!(record.at >= oldest)) delete store[key];
	const kept = Object.entries(store).sort((a, b) => a[1].at - b[1].at);
	for (const [key] of kept.slice(0, Math.max(0, kept.length - MAX_REMEMBERED))) delete store[key];
}

/** A failure after which the service may have acted: kept as 'sent'. Anything else means it did not act. */
function mayHaveApplied(error: unknown): boolean {
	if (!(error instanceof NodeApiError || error instanceof NodeOperationError)) return true;
	const description = String(error.description ?? '');
	if (description.includes(appliedNote('notApplied'))) return false;
	if (description.includes(appliedNote('mayHaveApplied'))) return true;
	// An answer from the API (4xx) is a refusal: nothing was done.
	const status = Number((error as { httpCode?: string | null }).httpCode);
	return !(status >= 400 && status < 500);
}

/** An item's output: one object, or several (Order > Create makes one order per target language). */
export type WriteResult = IDataObject | IDataObject[];

function repeated(result: WriteResult | undefined, at: number): WriteResult {
	const mark = (json: IDataObject) => ({ ...json, alreadyApplied: true, appliedAt: new Date(at).toISOString() });
	return Array.isArray(result) ? result.map(mark) : mark(result ?? {});
}

export interface GuardedWrite {
	/** The request as sent (method, path, body or multipart fields): the default idempotency key is made of it. */
	request: unknown;
	/** Sends the request; returns the item's output json. */
	send(): Promise<WriteResult>;
	/** Reads what will tell later whether the request was applied (before sending; kept with the record). */
	readBefore?(): Promise<IDataObject>;
	/**
	 * For a request whose answer was lost in an earlier run: the service's state says whether it was applied (its
	 * output json, then) or not (undefined). Without it such an item stops the node instead of being sent again.
	 */
	confirm?(before: IDataObject | undefined, sentAt: number): Promise<WriteResult | undefined>;
}

/** Key, or undefined when Retry Protection is off. */
function readKey(ctx: IExecuteFunctions, itemIndex: number, operation: string, request: unknown): string | undefined {
	const enabled = ctx.getNodeParameter('retryProtection', itemIndex, true) as unknown;
	if (enabled === false || enabled === 'false') return undefined;
	if (enabled !== true && enabled !== 'true') {
		throw invalidField(ctx, itemIndex, 'Retry Protection', 'must be true or false');
	}
	const raw = ctx.getNodeParameter('idempotencyKey', itemIndex, '') as unknown;
	const given = typeof raw === 'number' ? String(raw) : checkText(ctx, raw, 'Idempotency Key', itemIndex, false);
	// n8n's retries run the same items in the same order: the position tells identical items of one run apart.
	return `${operation}:${given !== undefined ? `key:${given}` : hash(canonical({ item: itemIndex, request }))}`;
}

/** The read before a write; when it fails, the error says the write itself was not sent. */
async function readBeforeSending(
	ctx: IExecuteFunctions,
	itemIndex: number,
	read: () => Promise<IDataObject>,
): Promise<IDataObject> {
	try {
		return await read();
	} catch (caught) {
		const error = asNodeError(ctx, caught, itemIndex);
		error.description = [error.description, `The action itself was not sent. ${appliedNote('notApplied')}`]
			.filter(Boolean)
			.join(' ');
		throw error;
	}
}

/**
 * Sends a write the API would apply again, at most once per idempotency key: an item applied in an earlier run
 * (n8n Retry, Retry On Fail) returns that run's answer with alreadyApplied true instead of being sent again.
 */
export async function sendOnce(
	ctx: IExecuteFunctions,
	itemIndex: number,
	operation: string,
	write: GuardedWrite,
): Promise<WriteResult> {
	const key = readKey(ctx, itemIndex, operation, write.request);
	if (key === undefined) return await write.send();
	const { store, save } = storeOf(ctx);
	const now = Date.now();
	prune(store, now);
	save();
	const earlier = store[key];
	if (earlier?.state === 'applied') return repeated(earlier.result, earlier.at);
	if (earlier?.state === 'sent') {
		if (write.confirm === undefined) {
			throw new NodeOperationError(
				ctx.getNode(),
				`Item ${itemIndex} was sent in an earlier run (${new Date(earlier.at).toISOString()}) and its answer was lost, so it may have been applied`,
				{
					itemIndex,
					description: `Nothing was sent again, so nothing is done or charged twice. ${appliedNote('mayHaveApplied')} To send it again anyway, turn off Retry Protection or change the Idempotency Key.`,
				},
			);
		}
		const confirmed = await write.confirm(earlier.before, earlier.at);
		if (confirmed !== undefined) {
			store[key] = { state: 'applied', at: earlier.at, result: confirmed };
			save();
			return repeated(confirmed, earlier.at);
		}
	}
	const before = write.readBefore ? await readBeforeSending(ctx, itemIndex, write.readBefore) : undefined;
	store[key] = { state: 'sent', at: now, ...(before ? { before } : {}) };
	save();
	try {
		const result = await write.send();
		store[key] = { state: 'applied', at: now, result };
		return result;
	} catch (error) {
		if (!mayHaveApplied(error)) delete store[key];
		throw asNodeError(ctx, error, itemIndex);
	} finally {
		prune(store, now);
		save();
	}
}
