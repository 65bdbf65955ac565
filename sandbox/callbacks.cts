import type { ClientRequest } from 'node:http';
import { z } from 'zod';
import { orderView } from './api/orders.cts';
import { minutesToMs } from './core/clock.cts';
import { readJsonBody } from './http/body.cts';
import type { AdminRoute } from './http/server.cts';
import { postJson } from './http/postJson.cts';
import { validate } from './http/validation.cts';
import type { Evaluation, OrderRecord } from './types.cts';
import type { World } from './world.cts';

/**
 * The API's completion callbacks (public reference §1 "Callbacks", §3.2): a POST of JSON with a 10 s timeout when
 * an order completes (to the order's callbackUrl) and when a QC evaluation finishes (to the QC's callbackUrl).
 * At least once: a failed delivery is tried again as the retry policy says (RETRY_POLICIES, on the sandbox's clock), and a
 * delivery is sometimes sent twice (repeatProbability, drawn from the seeded RNG). Nothing here changes an order.
 */

export interface CallbackSettings {
	/** Loopback targets (a local n8n) are accepted and reached; the real API refuses them. Default false. */
	allowLoopback: boolean;
	/** Chance that a delivery is repeated a little later (a second delivery of the same body). Default 0.1. */
	repeatProbability: number;
	/** Wall-clock time an attempt may take until the receiver's status line (the API's 10 s). */
	timeoutMs: number;
	/**
	 * The next this many completions are lost: nothing is sent for them, no retry, no repeat (a callback that never
	 * arrives, so a receiver's fallback can be tested). Counts down; default 0.
	 */
	dropNext: number;
	/** Every completion of these orders is lost, as dropNext loses the next ones (for one run's orders). Default none. */
	dropOrders: string[];
	/** How a failed delivery is tried again (RETRY_POLICIES). Default 'three'. */
	retries: RetryPolicy;
}

/**
 * Simulated minutes before each further attempt of a failed delivery, per policy; after the last it is given up.
 * The reference does not say how often the real API tries: 'three' is the sandbox's default, 'none' and 'once' show
 * what a receiver loses if the API tries less.
 */
export const RETRY_POLICIES = Object.freeze({ none: [], once: [1], three: [1, 5, 15] } satisfies Record<string, readonly number[]>);
export type RetryPolicy = keyof typeof RETRY_POLICIES;
export const RETRY_POLICY_NAMES = Object.keys(RETRY_POLICIES) as RetryPolicy[];

export function isRetryPolicy(value: unknown): value is RetryPolicy {
	return typeof value === 'string' && Object.hasOwn(RETRY_POLICIES, value);
}

export const DEFAULT_CALLBACK_SETTINGS: Readonly<CallbackSettings> = { allowLoopback: false, repeatProbability: 0.1, timeoutMs: 10_000, dropNext: 0, dropOrders: [], retries: 'three' };

/** A repeat is sent this many simulated minutes after its original (0: in the same clock step, alongside it). */
const REPEAT_DELAY_MINUTES: readonly [number, number] = [0, 2];

export interface CallbackAttempt {
	number: number;
	/** Simulated time it was sent. */
	at: string;
	/** Wall time it was sent, and how long until the status line (or the failure). */
	sentAt: string;
	durationMs: number | null;
	/** The receiver's status; null when there was none (refused, timed out, connection failed). */
	statusCode: number | null;
	error: string | null;
}

export interface CallbackDelivery {
	id: number;
	kind: 'orderCompleted' | 'qcCompleted';
	target: string;
	orderId: string;
	evalId: string | null;
	completedAt: string | null;
	/** The delivery this one repeats (the same body sent again), or null. */
	repeatOf: number | null;
	/** Simulated time the completion happened (or the repeat was made). */
	createdAt: string;
	/** `dropped`: lost on purpose (settings.dropNext), never sent. */
	status: 'sending' | 'waiting' | 'delivered' | 'failed' | 'dropped';
	/** Simulated time of the next attempt while waiting. */
	nextAttemptAt: string | null;
	attempts: CallbackAttempt[];
	body: unknown;
}

/** What the order life and the QC evaluation call (World.callbacks). */
export interface CallbackSink {
	readonly settings: CallbackSettings;
	orderCompleted(order: OrderRecord): void;
	qcCompleted(order: OrderRecord, evaluation: Evaluation, callbackUrl: string): void;
}

export class CallbackDispatcher implements CallbackSink {
	readonly settings: CallbackSettings;
	private readonly deliveries: CallbackDelivery[] = [];
	private readonly inFlight = new Set<Promise<void>>();
	private readonly requests = new Set<ClientRequest>();

	constructor(
		private readonly world: World,
		private readonly signal: AbortSignal,
		settings: Partial<CallbackSettings> = {},
	) {
		this.settings = { ...DEFAULT_CALLBACK_SETTINGS };
		this.update(settings);
		// One listener for all attempts: closing the sandbox ends the ones in flight.
		signal.addEventListener('abort', () => {
			for (const request of this.requests) request.destroy(new Error('the sandbox closed'));
		});
	}

	update(settings: Partial<CallbackSettings>): void {
		const next = { ...this.settings, ...settings };
		if (!(next.repeatProbability >= 0 && next.repeatProbability <= 1)) {
			throw new RangeError(`callbacks.repeatProbability must be between 0 and 1, got ${next.repeatProbability}`);
		}
		if (!(next.timeoutMs > 0)) throw new RangeError(`callbacks.timeoutMs must be > 0, got ${next.timeoutMs}`);
		if (!(Number.isInteger(next.dropNext) && next.dropNext >= 0)) throw new RangeError(`callbacks.dropNext must be a whole number >= 0, got ${next.dropNext}`);
		if (!isRetryPolicy(next.retries)) throw new RangeError(`callbacks.retries must be one of ${RETRY_POLICY_NAMES.join(', ')}, got ${String(next.retries)}`);
		Object.assign(this.settings, next);
	}

	orderCompleted(order: OrderRecord): void {
		const target = order.options.callbackUrl;
		if (!target) return;
		const completedAt = order.deliveredAt ?? this.world.clock.nowIso();
		const body = { ...orderView(order, this.world.storage?.signer()), orderId: order.id, status: 'completed', orderType: order.type, targetLanguage: order.targetLanguage, completedAt };
		this.enqueue({ kind: 'orderCompleted', target, orderId: order.id, evalId: null, completedAt, body });
	}

	qcCompleted(order: OrderRecord, evaluation: Evaluation, callbackUrl: string): void {
		const body = {
			orderId: order.id,
			evalId: evaluation.id,
			status: 'completed',
			textSummary: evaluation.textSummary ?? '',
			scores: structuredClone(evaluation.scores ?? []),
			segmentEvals: structuredClone(evaluation.segmentEvals ?? []),
		};
		this.enqueue({ kind: 'qcCompleted', target: callbackUrl, orderId: order.id, evalId: evaluation.id, completedAt: null, body });
	}

	list(): readonly CallbackDelivery[] {
		return this.deliveries;
	}

	/** Resolves once no attempt is in flight (attempts the clock has not reached yet are not waited for). */
	async settled(): Promise<void> {
		while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
	}

	private enqueue(fields: Pick<CallbackDelivery, 'kind' | 'target' | 'orderId' | 'evalId' | 'completedAt' | 'body'>, repeatOf: number | null = null): void {
		const delivery: CallbackDelivery = {
			...fields,
			id: this.deliveries.length + 1,
			repeatOf,
			createdAt: this.world.clock.nowIso(),
			status: 'sending',
			nextAttemptAt: null,
			attempts: [],
		};
		this.deliveries.push(delivery);
		// Drawn when the completion happens, so the seeded sequence does not depend on how receivers answer (or on drops).
		const rng = this.world.rng.callbacks;
		const repeated = repeatOf === null && rng.chance(this.settings.repeatProbability);
		const repeatDelay = repeated ? rng.int(...REPEAT_DELAY_MINUTES) : 0;
		const lostWithItsOrder = this.settings.dropOrders.includes(delivery.orderId);
		if (repeatOf === null && (lostWithItsOrder || this.settings.dropNext > 0)) {
			if (!lostWithItsOrder) this.settings.dropNext--;
			delivery.status = 'dropped';
			return;
		}
		if (repeated) this.world.clock.scheduleIn(repeatDelay, () => this.enqueue(fields, delivery.id));
		this.attempt(delivery);
	}

	private attempt(delivery: CallbackDelivery): void {
		if (this.signal.aborted) return;
		const attempt: CallbackAttempt = {
			number: delivery.attempts.length + 1,
			at: this.world.clock.nowIso(),
			sentAt: new Date().toISOString(),
			durationMs: null,
			statusCode: null,
			error: null,
		};
		delivery.attempts.push(attempt);
		delivery.status = 'sending';
		delivery.nextAttemptAt = null;
		const started = performance.now();
		const sent = postJson(delivery.target, delivery.body, this.settings, this.requests)
			.then(
				(statusCode) => {
					attempt.statusCode = statusCode;
				},
				(error: Error) => {
					attempt.error = error.message;
				},
			)
			.then(() => {
				attempt.durationMs = Math.round(performance.now() - started);
				this.afterAttempt(delivery, attempt);
			});
		this.inFlight.add(sent);
		void sent.finally(() => this.inFlight.delete(sent));
	}

	private afterAttempt(delivery: CallbackDelivery, attempt: CallbackAttempt): void {
		if (attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300) {
			delivery.status = 'delivered';
			return;
		}
		// The policy when the attempt failed: a change applies to the retries still to come.
		const wait: number | undefined = RETRY_POLICIES[this.settings.retries][attempt.number - 1];
		if (wait === undefined || this.signal.aborted) {
			delivery.status = 'failed';
			return;
		}
		const at = this.world.clock.nowMillis() + minutesToMs(wait);
		delivery.status = 'waiting';
		delivery.nextAttemptAt = new Date(at).toISOString();
		this.world.clock.schedule(at, () => this.attempt(delivery));
	}
}

const settingsBody = z
	.object({
		allowLoopback: z.boolean().optional(),
		repeatProbability: z.number().min(0).max(1).optional(),
		timeoutMs: z.number().positive().optional(),
		dropNext: z.number().int().min(0).optional(),
		dropOrders: z.array(z.string()).optional(),
		retries: z.enum(RETRY_POLICY_NAMES as [RetryPolicy, ...RetryPolicy[]]).optional(),
	})
	.strict();

/** GET /__sandbox/callbacks (every delivery, oldest first; `?orderId=` narrows), PUT /__sandbox/callbacks/settings. */
export function callbackAdminRoutes(dispatcher: CallbackDispatcher): AdminRoute[] {
	return [
		{
			method: 'GET',
			pattern: '/__sandbox/callbacks',
			handler: ({ req }) => {
				const orderId = new URL(req.url ?? '/', 'http://sandbox').searchParams.get('orderId');
				const deliveries = dispatcher.list().filter((delivery) => orderId === null || delivery.orderId === orderId);
				return { status: 200, body: { count: deliveries.length, settings: dispatcher.settings, deliveries } };
			},
		},
		{
			method: 'PUT',
			pattern: '/__sandbox/callbacks/settings',
			handler: async ({ req }) => {
				dispatcher.update(validate(settingsBody, await readJsonBody(req)));
				return { status: 200, body: dispatcher.settings };
			},
		},
	];
}
