import { z } from 'zod';
import type { FaultInjector, FaultRule } from './faults.cts';
import { setListingGrowth } from './growth.cts';
import { readJsonBody } from './http/body.cts';
import { shapeB } from './http/errors.cts';
import type { AdminRoute, Reply } from './http/server.cts';
import { validate } from './http/validation.cts';
import type { RequestLog } from './requestLog.cts';
import type { Simulate } from './simulate.cts';
import { ACTOR_TYPES, DELIVERY_EVENT_TYPES, ORDER_STATUSES, ORDER_TYPES } from './types.cts';
import type { World } from './world.cts';

/**
 * Admin routes under /__sandbox/ (no API key; loopback only), for tests and tools outside the process.
 * Documented in sandbox/README.md.
 */
export interface AdminDeps {
	world: World;
	faults: FaultInjector;
	requests: RequestLog;
	simulate: Simulate;
	info: () => unknown;
	setLatency: (ms: number) => void;
	latencyMs: () => number;
}

const faultBody = z
	.object({
		method: z.string().optional(),
		path: z.string().optional(),
		pathRegex: z.string().optional(),
		kind: z.enum(['status', 'drop', 'delay']),
		status: z.number().int().min(400).max(599).optional(),
		retryAfterSeconds: z.number().min(0).optional(),
		delayMs: z.number().min(0).optional(),
		when: z.enum(['before', 'after']).optional(),
		times: z.number().int().min(1).optional(),
		skip: z.number().int().min(0).optional(),
		probability: z.number().min(0).max(1).optional(),
	})
	.strict();

const advanceBody = z.object({ minutes: z.number().min(0) }).strict();
const latencyBody = z.object({ ms: z.number().min(0) }).strict();
const eventBody = z.object({ type: z.enum(DELIVERY_EVENT_TYPES), actorType: z.enum(ACTOR_TYPES).optional(), actorId: z.string().min(1).optional() }).strict();
const delayBody = z.object({ minutes: z.number().positive().max(100_000) }).strict();
const createOrdersBody = z
	.object({
		count: z.number().int().min(1).max(10_000),
		type: z.enum(ORDER_TYPES).optional(),
		level: z.union([z.literal(0), z.literal(1)]).optional(),
		status: z.enum(ORDER_STATUSES).optional(),
		projectId: z.string().optional(),
		targetLanguage: z.string().optional(),
		progress: z.boolean().optional(),
	})
	.strict();
const simulationBody = z
	.object({
		jobFailureRate: z.number().min(0).max(1).optional(),
		vectorizationFailureRate: z.number().min(0).max(1).optional(),
		progression: z.object({ mode: z.enum(['fixed', 'random']).optional(), redeliveryProbability: z.number().min(0).max(1).optional() }).strict().optional(),
	})
	.strict();

const growthBody = z
	.object({
		consumption: z.number().int().min(0).max(10_000).optional(),
		orders: z.number().int().min(0).max(1_000).optional(),
		clockStepMs: z.number().int().min(0).max(86_400_000).optional(),
		batches: z.number().int().min(0).nullable().optional(),
	})
	.strict();

function ok(status: number, body?: unknown): Reply {
	return { status, body };
}

/** Turns a thrown Error from the simulation (unknown order, unreachable status) into a 400/404. */
function simulation<T>(run: () => T): T {
	try {
		return run();
	} catch (error) {
		const message = (error as Error).message;
		throw shapeB(/no order|no project|no user/.test(message) ? 404 : 400, message);
	}
}

export function adminRoutes(deps: AdminDeps): AdminRoute[] {
	const { world } = deps;
	return [
		{ method: 'GET', pattern: '/__sandbox/info', handler: () => ok(200, deps.info()) },
		{
			method: 'POST',
			pattern: '/__sandbox/clock/advance',
			handler: async ({ req }) => {
				const { minutes } = validate(advanceBody, await readJsonBody(req));
				world.clock.advance(minutes);
				return ok(200, { now: world.clock.nowIso() });
			},
		},
		{
			method: 'POST',
			pattern: '/__sandbox/faults',
			handler: async ({ req }) => {
				const { pathRegex, ...body } = validate(faultBody, await readJsonBody(req));
				let path: string | RegExp | undefined = body.path;
				if (pathRegex !== undefined) {
					try {
						path = new RegExp(pathRegex);
					} catch {
						throw shapeB(400, ['pathRegex must be a valid regular expression'], 'Bad Request');
					}
				}
				const rule: FaultRule = { ...body, path };
				const id = simulation(() => deps.faults.add(rule));
				return ok(201, { id, rule: { ...body, ...(pathRegex !== undefined ? { pathRegex } : {}) } });
			},
		},
		{
			method: 'GET',
			pattern: '/__sandbox/faults',
			handler: () =>
				ok(
					200,
					deps.faults.list().map(({ id, rule, fired }) => {
						const { path, ...rest } = rule;
						return { id, fired, rule: path instanceof RegExp ? { ...rest, pathRegex: path.source } : rule };
					}),
				),
		},
		{ method: 'DELETE', pattern: '/__sandbox/faults', handler: () => ok(200, { cleared: deps.faults.clear() }) },
		{
			method: 'PUT',
			pattern: '/__sandbox/latency',
			handler: async ({ req }) => {
				deps.setLatency(validate(latencyBody, await readJsonBody(req)).ms);
				return ok(200, { latencyMs: deps.latencyMs() });
			},
		},
		{
			method: 'GET',
			pattern: '/__sandbox/requests',
			handler: () =>
				ok(200, { count: deps.requests.log.length, inFlight: deps.requests.inFlight, maxInFlight: deps.requests.maxInFlight, requests: deps.requests.log }),
		},
		{
			method: 'DELETE',
			pattern: '/__sandbox/requests',
			handler: () => {
				deps.requests.reset();
				return ok(204);
			},
		},
		{
			method: 'POST',
			pattern: '/__sandbox/orders/:orderId/events',
			handler: async ({ req, params }) => {
				const body = validate(eventBody, await readJsonBody(req));
				return ok(201, simulation(() => deps.simulate.appendDeliveryEvent(params.orderId, body.type, body.actorType, body.actorId)));
			},
		},
		{
			method: 'POST',
			pattern: '/__sandbox/orders/:orderId/delay',
			handler: async ({ req, params }) => {
				const body = validate(delayBody, await readJsonBody(req));
				return ok(200, simulation(() => deps.simulate.delayOrder(params.orderId, body.minutes)));
			},
		},
		{
			method: 'POST',
			pattern: '/__sandbox/orders',
			handler: async ({ req }) => {
				const { count, ...input } = validate(createOrdersBody, await readJsonBody(req));
				const orders = simulation(() => deps.simulate.createOrders(count, input));
				return ok(201, orders.map((order) => ({ orderId: order.id, orderType: order.type, status: order.status })));
			},
		},
		{
			// What each order action charged or refunded (human review, reruns, QC evaluations, refunds): the API shows
			// only the wallet's totals.
			method: 'GET',
			pattern: '/__sandbox/ledger',
			handler: () => ok(200, world.state.wallet.ledger),
		},
		{
			// The translators an Assign Translator may name: the API has no route that lists them.
			method: 'GET',
			pattern: '/__sandbox/translators',
			handler: () => ok(200, deps.world.state.translators),
		},
		{
			// The content database, read-only: the API itself can only import into it.
			method: 'GET',
			pattern: '/__sandbox/content',
			handler: () =>
				ok(
					200,
					[...world.state.content.values()].map(({ targets, ...term }) => ({
						...term,
						targets: Object.fromEntries(targets),
					})),
				),
		},
		{
			// Listings that grow while they are read: new rows after each answered page (sandbox/growth.cts).
			method: 'PUT',
			pattern: '/__sandbox/growth',
			handler: async ({ req }) => ok(200, setListingGrowth(world, validate(growthBody, await readJsonBody(req)))),
		},
		{
			method: 'PUT',
			pattern: '/__sandbox/simulation',
			handler: async ({ req }) => {
				const body = validate(simulationBody, await readJsonBody(req));
				if (body.jobFailureRate !== undefined) deps.simulate.setJobFailureRate(body.jobFailureRate);
				if (body.vectorizationFailureRate !== undefined) deps.simulate.setVectorizationFailureRate(body.vectorizationFailureRate);
				if (body.progression) deps.simulate.setProgression(body.progression);
				return ok(200, world.settings);
			},
		},
	];
}
