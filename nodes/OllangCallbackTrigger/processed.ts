import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { SharedReads } from '../shared/sharedReads';
import { forgetOldest, KEEP_AT_MOST } from '../shared/sharedReads';

/**
 * What this n8n process remembers per trigger (workflow and node; test events apart, so a test never hides a
 * production event), so that repeats and forged traffic start no execution and cost no read: the callbacks the
 * executions found already emitted or not the API's (an unknown order, an evaluation that is not the latest), the
 * orders to sweep, and its reads (nodes/shared/sharedReads.ts). Memory only, a fast path: the webhook answers before
 * anything is read, and the durable check is the node's execute() in the execution the webhook starts (emitOnce.ts:
 * n8n's deduplication store, across restarts, webhook processes and workers). In regular mode webhooks and
 * executions share one process, and this.
 */

/** The API repeats a callback within minutes (the sandbox's last retry comes 21 minutes after the first). */
const EMITTED_KEEP_MS = 24 * 60 * 60 * 1000;

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
	/**
	 * `push:<orderId>`, `sweep:<orderId>` -> its read: callbacks of one order arriving together share one, and an
	 * order a sweep read serves the sweep's execution.
	 */
	reads: SharedReads;
	/** Orders a callback named and no execution of this process confirmed yet: the next sweep reads them. */
	toSweep: Set<string>;
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

function memoryOf(scope: string): Memory {
	let memory = memories.get(scope);
	if (memory === undefined) {
		memory = { answers: new Map(), reads: new Map(), toSweep: new Set() };
		memories.set(scope, memory);
	}
	forgetOldest(memory.answers, Date.now());
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

/** The trigger's shared reads (nodes/shared/sharedReads.ts). */
export function readsOf(scope: string): SharedReads {
	return memoryOf(scope).reads;
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
