import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * What this n8n process remembers per trigger (workflow, node and mode: a test event never hides a production one),
 * so that repeats and forged traffic cost no read: the completions it emitted, and the answers it gave to what it
 * read (a claim found to be an emitted completion, an unknown order, an order not completed yet). Memory only: a
 * webhook node has nothing durable of its own in n8n 2.x (its context has no deduplication helpers, and the static
 * data it changes is overwritten when the execution it starts saves its own copy). The durable check is the node's
 * execute() in that execution (emitOnce.ts): n8n's deduplication store, across restarts and workers.
 */

/** The API repeats a callback within minutes (the sandbox's last retry comes 21 minutes after the first). */
const EMITTED_KEEP_MS = 24 * 60 * 60 * 1000;
/** Bounds the memory of a very busy trigger: the oldest entries are forgotten first. */
const KEEP_AT_MOST = 20_000;

/** How long an answer from a read stands in for the read. */
export const ANSWER_KEEP_MS = {
	/** A claim found to be a completion already emitted: its repeats, as long as the completion is remembered. */
	repeat: EMITTED_KEEP_MS,
	/** An order the API does not know for this key, an evaluation that is not the order's latest: lasting answers. */
	refused: 10 * 60 * 1000,
	/** An order not completed yet (503): shorter than the API's first retry (a minute), so the retry reads again. */
	notYet: 30 * 1000,
} as const;

/** An answer this process gave, given again without a read until `until`. */
export interface RememberedAnswer {
	status: number;
	reason: string;
	until: number;
}

interface Memory {
	/** Completion key -> when it was emitted, oldest first. */
	emitted: Map<string, number>;
	/** Claim or order -> the answer a read led to. */
	answers: Map<string, RememberedAnswer>;
	/** Order id -> its read under way: callbacks of one order arriving together share one read. */
	reading: Map<string, Promise<unknown>>;
}

const memories = new Map<string, Memory>();

/** The trigger a request reached, as the key of its memory and its read limits. */
export function triggerScope(ctx: IWebhookFunctions): string {
	return `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${ctx.getMode()}`;
}

function forgetOldest<T>(entries: Map<string, T>, expired: (value: T) => boolean): void {
	for (const [key, value] of entries) {
		if (entries.size <= KEEP_AT_MOST && !expired(value)) break;
		entries.delete(key);
	}
}

function memoryOf(ctx: IWebhookFunctions): Memory {
	const scope = triggerScope(ctx);
	let memory = memories.get(scope);
	if (memory === undefined) {
		memory = { emitted: new Map(), answers: new Map(), reading: new Map() };
		memories.set(scope, memory);
	}
	const now = Date.now();
	forgetOldest(memory.emitted, (at) => now - at > EMITTED_KEEP_MS);
	forgetOldest(memory.answers, (answer) => answer.until < now);
	return memory;
}

/** The first still-standing answer remembered under any of `keys`. */
export function rememberedAnswer(ctx: IWebhookFunctions, keys: string[]): RememberedAnswer | undefined {
	const { answers } = memoryOf(ctx);
	const now = Date.now();
	for (const key of keys) {
		const answer = answers.get(key);
		if (answer !== undefined && answer.until >= now) return answer;
	}
	return undefined;
}

export function rememberAnswer(ctx: IWebhookFunctions, key: string, answer: Omit<RememberedAnswer, 'until'>, keepMs: number): void {
	const { answers } = memoryOf(ctx);
	answers.delete(key);
	answers.set(key, { ...answer, until: Date.now() + keepMs });
}

export function wasEmitted(ctx: IWebhookFunctions, completionKey: string): boolean {
	return memoryOf(ctx).emitted.has(completionKey);
}

export function recordEmitted(ctx: IWebhookFunctions, completionKey: string): void {
	memoryOf(ctx).emitted.set(completionKey, Date.now());
}

/** The read of `orderId` under way for this trigger, or `read()` started and shared until it ends. */
export function sharedRead<T>(ctx: IWebhookFunctions, orderId: string, read: () => Promise<T>): Promise<T> {
	const { reading } = memoryOf(ctx);
	const underWay = reading.get(orderId) as Promise<T> | undefined;
	if (underWay !== undefined) return underWay;
	const started = read().finally(() => reading.delete(orderId));
	reading.set(orderId, started);
	return started;
}
