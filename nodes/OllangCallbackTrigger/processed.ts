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

/** A completion being confirmed: the promise says whether it was emitted; settle() is called once it is known. */
interface Confirming {
	outcome: Promise<boolean>;
	settle: (emitted: boolean) => void;
}

/** Per workflow, node and mode: completion key -> when it was emitted, or its confirmation under way. */
const memory = new Map<string, Map<string, number | Confirming>>();

function memoryOf(ctx: IWebhookFunctions): Map<string, number | Confirming> {
	const scope = `${ctx.getWorkflow().id ?? ''}:${ctx.getNode().id}:${ctx.getMode()}`;
	let keys = memory.get(scope);
	if (keys === undefined) {
		keys = new Map();
		memory.set(scope, keys);
	}
	const now = Date.now();
	for (const [key, at] of keys) {
		if (typeof at !== 'number') continue;
		if (now - at <= KEEP_MS && keys.size <= KEEP_AT_MOST) break;
		keys.delete(key);
	}
	return keys;
}

/** What this process knows of a completion when a callback of it arrives. */
export type Claim =
	| { state: 'claimed' }
	| { state: 'emitted' }
	/** Another request is confirming it: `outcome` says whether that one emitted it. */
	| { state: 'confirming'; outcome: Promise<boolean> };

/**
 * Claims a completion for this request, unless it was emitted already or another request is confirming it. A claim
 * ends with `release` (not confirmed) or `record` (emitted), which also answers the requests that waited for it.
 */
export function claim(ctx: IWebhookFunctions, key: string): Claim {
	const keys = memoryOf(ctx);
	const known = keys.get(key);
	if (typeof known === 'number') return { state: 'emitted' };
	if (known !== undefined) return { state: 'confirming', outcome: known.outcome };
	let settle: (emitted: boolean) => void = () => undefined;
	const outcome = new Promise<boolean>((resolve) => {
		settle = resolve;
	});
	keys.set(key, { outcome, settle });
	return { state: 'claimed' };
}

function end(ctx: IWebhookFunctions, key: string, emitted: boolean): void {
	const keys = memoryOf(ctx);
	const known = keys.get(key);
	keys.delete(key);
	// Re-inserted at the end: the map stays in emission order, oldest first.
	if (emitted) keys.set(key, Date.now());
	if (known !== undefined && typeof known !== 'number') known.settle(emitted);
}

export function release(ctx: IWebhookFunctions, key: string): void {
	end(ctx, key, false);
}

export function record(ctx: IWebhookFunctions, key: string): void {
	end(ctx, key, true);
}
