import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

/**
 * What this n8n process remembers per trigger (workflow and node; test events apart, so a test never hides a
 * production event), so that repeats and forged traffic start no execution and cost no read: the callbacks the
 * executions found already emitted or not the API's (an unknown order, an evaluation that is not the latest), and
 * the reads under way. Memory only, a fast path: the webhook answers before anything is read, and the durable check
 * is the node's execute() in the execution the webhook starts (emitOnce.ts: n8n's deduplication store, across
 * restarts, webhook processes and workers). In regular mode webhooks and executions share one process, and this.
 */

/** The API repeats a callback within minutes (the sandbox's last retry comes 21 minutes after the first). */
const EMITTED_KEEP_MS = 24 * 60 * 60 * 1000;
/** Bounds the memory of a very busy trigger: the oldest entries are forgotten first. */
const KEEP_AT_MOST = 20_000;

/** How long an order the sweep read serves its execution: the sweep waits a minute for n8n to start it. */
const SWEPT_KEEP_MS = 5 * 60 * 1000;

/** How long a callback settled by an execution is answered without starting another. */
export const ANSWER_KEEP_MS = {
	/** A callback whose completion was emitted: its repeats, as long as the completion is remembered. */
	repeat: EMITTED_KEEP_MS,
	/** An order the API does not know for this key, an evaluation that is not the order's latest: lasting answers. */
	refused: 10 * 60 * 1000,
} as const;

/** Why a callback needs no execution, until `until`. */
export interface RememberedAnswer {
	reason: string;
	until: number;
}

interface Memory {
	/** Claim or order -> why nothing needs to start for it. */
	answers: Map<string, RememberedAnswer>;
	/** Order id -> its read under way: callbacks of one order arriving together share one read. */
	reading: Map<string, Promise<unknown>>;
	/** Orders a callback named and no execution of this process confirmed yet: the next sweep reads them. */
	toSweep: Set<string>;
	/** Order id -> the order as the last sweep read it, for that sweep's execution (in this process) not to read it again. */
	swept: Map<string, { order: IDataObject; until: number }>;
}

const memories = new Map<string, Memory>();

type TriggerContext = Pick<IWebhookFunctions | IExecuteFunctions, 'getWorkflow' | 'getNode' | 'getMode'>;

/**
 * The trigger a request reached or an execution runs: its memory, its read budget. The webhook's mode is 'webhook',
 * its execution's 'webhook' or (a sweep's) 'trigger': all production; 'manual' is the editor's test URL.
 */
export function triggerScope(ctx: TriggerContext): string {
	const use = ctx.getMode() === 'manual' ? 'test' : 'production';
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${use}`;
}

function forgetOldest<T>(entries: Map<string, T>, expired: (value: T) => boolean): void {
	for (const [key, value] of entries) {
		if (entries.size <= KEEP_AT_MOST && !expired(value)) break;
		entries.delete(key);
	}
}

function memoryOf(scope: string): Memory {
	let memory = memories.get(scope);
	if (memory === undefined) {
		memory = { answers: new Map(), reading: new Map(), toSweep: new Set(), swept: new Map() };
		memories.set(scope, memory);
	}
	const now = Date.now();
	forgetOldest(memory.answers, (answer) => answer.until < now);
	forgetOldest(memory.swept, (read) => read.until < now);
	for (const orderId of memory.toSweep) {
		if (memory.toSweep.size <= KEEP_AT_MOST) break;
		memory.toSweep.delete(orderId);
	}
	return memory;
}

/** The first still-standing answer remembered under any of `keys`. */
export function rememberedAnswer(scope: string, keys: string[]): RememberedAnswer | undefined {
	const { answers } = memoryOf(scope);
	const now = Date.now();
	for (const key of keys) {
		const answer = answers.get(key);
		if (answer !== undefined && answer.until >= now) return answer;
	}
	return undefined;
}

export function rememberAnswer(scope: string, key: string, reason: string, keepMs: number): void {
	const { answers } = memoryOf(scope);
	answers.delete(key);
	answers.set(key, { reason, until: Date.now() + keepMs });
}

/** The read of `orderId` under way for this trigger, or `read()` started and shared until it ends. */
export function sharedRead<T>(scope: string, orderId: string, read: () => Promise<T>): Promise<T> {
	const { reading } = memoryOf(scope);
	const underWay = reading.get(orderId) as Promise<T> | undefined;
	if (underWay !== undefined) return underWay;
	const started = read().finally(() => reading.delete(orderId));
	reading.set(orderId, started);
	return started;
}

/** Keeps an order as the sweep read it, for the execution of what the sweep found. */
export function keepSweptOrder(scope: string, orderId: string, order: IDataObject): void {
	const { swept } = memoryOf(scope);
	swept.delete(orderId);
	swept.set(orderId, { order, until: Date.now() + SWEPT_KEEP_MS });
}

/** The order as a sweep of this process read it within the last minutes, or undefined (another process swept). */
export function sweptOrder(scope: string, orderId: string): IDataObject | undefined {
	const read = memoryOf(scope).swept.get(orderId);
	return read !== undefined && read.until >= Date.now() ? read.order : undefined;
}

/**
 * The sweep finds a completion by its order's listed status changing, or by background checks in rotation; an order
 * completed and rerun between two sweeps changes nothing listed. A callback names its order: noted when it arrives
 * (this process may be the leader that sweeps) and dropped once an execution here confirmed it, so the next sweep
 * reads what push could not settle. In queue mode the workers confirm, so the main reads every order a callback
 * reached it for once more.
 */
export function noteForSweep(scope: string, orderId: string): void {
	memoryOf(scope).toSweep.add(orderId);
}

export function confirmedByPush(scope: string, orderId: string): void {
	memoryOf(scope).toSweep.delete(orderId);
}

/** The orders noted for the sweep since the last one, forgotten as they are handed over. */
export function takeNotedForSweep(scope: string): string[] {
	const { toSweep } = memoryOf(scope);
	const orderIds = [...toSweep];
	toSweep.clear();
	return orderIds;
}
