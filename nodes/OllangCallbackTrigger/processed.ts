import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * The first filter for repeated callbacks: completions this n8n process has started a workflow for, per workflow,
 * node and mode (a test event never hides a production one). It answers repeats at once, without asking the API or
 * starting an execution, and lets one of two copies arriving together through. It is memory only, because a webhook
 * node has nothing durable of its own in n8n 2.x: its context has no deduplication helpers, and the static data it
 * changes is overwritten when the execution it starts saves its own copy (loaded before the webhook's is saved).
 * The durable check is the node's execute() in that execution (emitOnce.ts): n8n's deduplication store, in n8n's
 * database, across restarts and workers.
 */

/** The API repeats a callback within minutes (the sandbox's last retry comes 21 minutes after the first). */
const KEEP_MS = 24 * 60 * 60 * 1000;
/** Bounds the memory of a very busy node: the oldest completions are forgotten first. */
const KEEP_AT_MOST = 20_000;

/** Per workflow, node and mode: completion key -> when it was claimed (undefined while being confirmed). */
const memory = new Map<string, Map<string, number | undefined>>();

function memoryOf(ctx: IWebhookFunctions): Map<string, number | undefined> {
	const scope = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${ctx.getMode()}`;
	let keys = memory.get(scope);
	if (keys === undefined) {
		keys = new Map();
		memory.set(scope, keys);
	}
	const now = Date.now();
	for (const [key, at] of keys) {
		if (at !== undefined && now - at <= KEEP_MS && keys.size <= KEEP_AT_MOST) break;
		if (at !== undefined) keys.delete(key);
	}
	return keys;
}

/**
 * Claims a completion for this request: false when it was emitted already or another request is confirming it.
 * A claim is given back (`release`) when the callback is not confirmed, and kept (`record`) when emitted.
 */
export function claim(ctx: IWebhookFunctions, key: string): boolean {
	const keys = memoryOf(ctx);
	if (keys.has(key)) return false;
	keys.set(key, undefined);
	return true;
}

export function release(ctx: IWebhookFunctions, key: string): void {
	memoryOf(ctx).delete(key);
}

export function record(ctx: IWebhookFunctions, key: string): void {
	const keys = memoryOf(ctx);
	// Re-inserted at the end: the map stays in emission order, oldest first.
	keys.delete(key);
	keys.set(key, Date.now());
}
