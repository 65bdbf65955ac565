// Generated schedules for the Ollang Callback Trigger (docs/push.md, /work/shared/guides/GENERATED-SCHEDULES.md):
// the sandbox's real completion callbacks (orders completing, reruns completing again, QC evaluations) delivered
// through n8n-core's WebhookContext and the started execution through WorkflowExecute (test/harness/webhook.cts),
// in an order fast-check draws: repeats, reorderings and copies at once, answers the API never saw in time (so it
// sends again), forged variants (another completedAt, other formats, unknown orders, other evaluations),
// confirming reads that fail, n8n restarted between deliveries (the node's module loaded afresh, n8n's store kept),
// and two webhook processes (two module instances sharing the store). After each phase the API sends every
// completion not yet answered 2xx again, as it retries. Invariant, on the sandbox's own records: each real
// completion emitted exactly once, nothing else emitted, and the confirming reads within the trigger's bound.
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../../sandbox/index.cts';
import type { CallbackDelivery } from '../../sandbox/callbacks.cts';
import { createWebhookReceiver, type WebhookReceiver } from '../harness/webhook.cts';
import { call } from '../sandbox/helpers.cts';
import { Container } from '../harness/runtime.cts';
import { dirname } from 'node:path';
import { READS_PER_MINUTE } from '../../nodes/OllangCallbackTrigger/admission';

/** `npm test` runs this many schedules; OLLANG_CALLBACK_SCHEDULES=2000 for the long run. */
const RUNS = Number(process.env.OLLANG_CALLBACK_SCHEDULES ?? 40);
/** OLLANG_CALLBACK_SEED (and OLLANG_CALLBACK_PATH) replay a reported failure. */
const SEED = process.env.OLLANG_CALLBACK_SEED === undefined ? undefined : Number(process.env.OLLANG_CALLBACK_SEED);

type Variant = 'real' | 'oneSecondLater' | 'withoutMillis' | 'otherOffset' | 'dayEarlier' | 'unknownOrder' | 'otherEvaluation';

type Step =
	| { kind: 'send'; pick: number; variant: Variant; process: 0 | 1; answerLost: boolean }
	| { kind: 'together'; picks: number[]; process: 0 | 1 }
	| { kind: 'readsFail'; times: number }
	| { kind: 'restart'; process: 0 | 1 };

interface Schedule {
	orders: number;
	reruns: boolean[];
	qc: boolean;
	processes: 1 | 2;
	phases: Step[][];
	flood: boolean;
}

const variant = fc.constantFrom<Variant>('real', 'real', 'real', 'oneSecondLater', 'withoutMillis', 'otherOffset', 'dayEarlier', 'unknownOrder', 'otherEvaluation');
const processIndex = fc.constantFrom<0 | 1>(0, 1);
const step: fc.Arbitrary<Step> = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ kind: fc.constant('send' as const), pick: fc.nat(), variant, process: processIndex, answerLost: fc.boolean() }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('together' as const), picks: fc.array(fc.nat(), { minLength: 2, maxLength: 4 }), process: processIndex }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('readsFail' as const), times: fc.integer({ min: 1, max: 4 }) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), process: processIndex }) },
);
const schedule: fc.Arbitrary<Schedule> = fc
	.record({
		orders: fc.integer({ min: 1, max: 2 }),
		reruns: fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }),
		qc: fc.boolean(),
		processes: fc.constantFrom<1 | 2>(1, 2),
		phases: fc.array(fc.array(step, { maxLength: 6 }), { minLength: 3, maxLength: 3 }),
		flood: fc.constantFrom(false, false, false, true),
	})
	.map((drawn) => ({ ...drawn, reruns: drawn.reruns.slice(0, drawn.orders) }));

let sandbox: Sandbox;
const open: WebhookReceiver[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ quiet: true, seed: 35, callbacks: { allowLoopback: true, repeatProbability: 0 } });
	// The sandbox records each completion's callback (its real body) and sends none: the schedule delivers them.
	sandbox.callbacks.settings.dropNext = 1_000_000;
	// n8n's log is not what this test reads; the node's warnings would fill the output.
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [dirname(require.resolve('n8n-core'))] })) as { Logger: new (...args: never[]) => object };
	const logger = Container.get(Logger as never) as Record<string, unknown>;
	for (const level of ['warn', 'info', 'error']) logger[level] = () => undefined;
});
afterAll(async () => {
	await Promise.all(open.splice(0).map((receiver) => receiver.close()));
	await sandbox.close();
});

const orderReads = () => sandbox.requests.count({ method: 'GET', path: '/integration/orders/:orderId' });

async function receiver(restartOf?: WebhookReceiver): Promise<WebhookReceiver> {
	const created = await createWebhookReceiver({
		parameters: { events: ['orderCompleted', 'qcEvaluationCompleted'] },
		credentials: { baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.owner },
		restartOf,
	});
	open.push(created);
	return created;
}

/** Moves the sandbox's clock until `done` holds (the order life runs on it), at most an hour. */
async function advanceUntil(done: () => boolean): Promise<void> {
	for (let minute = 0; minute < 60 && !done(); minute++) sandbox.clock.advance(1);
	if (!done()) throw new Error('the sandbox did not reach the expected state within a simulated hour');
}

const ourDeliveries = (orderIds: string[]): CallbackDelivery[] => sandbox.callbacks.list().filter((delivery) => orderIds.includes(delivery.orderId));

function randomOrderId(seed: number): string {
	return `ffff${(seed * 2654435761 >>> 0).toString(16).padStart(8, '0')}${Date.now().toString(16).slice(-12)}`.slice(0, 24);
}

/** The body a variant of a real delivery sends. */
function bodyOf(delivery: CallbackDelivery, chosen: Variant, nonce: number): IDataObject {
	const body = { ...(delivery.body as IDataObject) };
	const at = delivery.completedAt === null ? null : new Date(delivery.completedAt);
	switch (chosen) {
		case 'oneSecondLater':
			if (at) body.completedAt = new Date(at.getTime() + 1000).toISOString();
			return body;
		case 'withoutMillis':
			if (at) body.completedAt = at.toISOString().replace(/\.\d{3}Z$/, 'Z');
			return body;
		case 'otherOffset':
			// The same instant written in another zone.
			if (at) body.completedAt = new Date(at.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
			return body;
		case 'dayEarlier':
			if (at) body.completedAt = new Date(at.getTime() - 86_400_000).toISOString();
			return body;
		case 'unknownOrder':
			return { ...body, orderId: randomOrderId(nonce) };
		case 'otherEvaluation':
			return { orderId: delivery.orderId, evalId: `eval_forged_${nonce}`, status: 'completed', textSummary: '', scores: [], segmentEvals: [] };
		default:
			return body;
	}
}

async function post(url: string, body: IDataObject): Promise<number> {
	const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	await response.text();
	return response.status;
}

interface RunRecord {
	emitted: IDataObject[];
	expected: string[];
	reads: number;
	readBound: number;
	floodReads: number | null;
	unanswered: number;
}

/** Runs one schedule against the sandbox and fresh receivers; returns what the invariant is checked on. */
async function runSchedule(drawn: Schedule): Promise<RunRecord> {
	sandbox.faults.clear();
	const readsBefore = orderReads();
	const first = await receiver();
	const processes: WebhookReceiver[] = [first];
	if (drawn.processes === 2) processes.push(await receiver(first));
	const retired: WebhookReceiver[] = [];
	const fixtures = sandbox.fixtures;
	const created = await call(sandbox, 'POST', '/integration/orders/create', {
		body: {
			orderType: 'document',
			level: 0,
			projectId: fixtures.projects.writable,
			targetLanguageConfigs: ['de', 'fr'].slice(0, drawn.orders).map((language) => ({ language })),
			callbackUrl: 'https://receiver.example/ollang-callback',
		},
	});
	const orderIds = (created.body as Array<{ orderId: string }>).map((row) => row.orderId);
	/** Real deliveries answered 2xx as the API saw it (an answer it never saw in time does not count). */
	const answered = new Set<number>();
	let nonce = 0;

	const target = (index: 0 | 1): WebhookReceiver => processes[Math.min(index, processes.length - 1)];
	const deliver = async (delivery: CallbackDelivery, chosen: Variant, to: WebhookReceiver, answerLost: boolean) => {
		// A QC callback has no completedAt to vary, an order completion no evaluation: those draws send it as it is.
		const fits = chosen === 'real' || chosen === 'unknownOrder' || (delivery.kind === 'qcCompleted') === (chosen === 'otherEvaluation');
		const used: Variant = fits ? chosen : 'real';
		const status = await post(to.url, bodyOf(delivery, used, nonce++));
		if (used === 'real' && status >= 200 && status < 300 && !answerLost) answered.add(delivery.id);
	};
	const phases: Array<() => Promise<void>> = [
		async () => advanceUntil(() => ourDeliveries(orderIds).length === orderIds.length),
		async () => {
			const rerun = orderIds.filter((_, index) => drawn.reruns[index]);
			for (const orderId of rerun) expect((await call(sandbox, 'POST', `/integration/orders/${orderId}/rerun`, { body: {} })).status).toBe(200);
			const count = ourDeliveries(orderIds).length + rerun.length;
			await advanceUntil(() => ourDeliveries(orderIds).length === count);
		},
		async () => {
			if (!drawn.qc) return;
			expect((await call(sandbox, 'POST', `/integration/orders/${orderIds[0]}/qc`, { body: { callbackUrl: 'https://receiver.example/qc' } })).status).toBe(200);
			const count = ourDeliveries(orderIds).length + 1;
			await advanceUntil(() => ourDeliveries(orderIds).length === count);
		},
	];
	for (const [phase, steps] of drawn.phases.entries()) {
		await phases[phase]();
		const pool = ourDeliveries(orderIds);
		for (const drawnStep of steps) {
			if (drawnStep.kind === 'send') await deliver(pool[drawnStep.pick % pool.length], drawnStep.variant, target(drawnStep.process), drawnStep.answerLost);
			else if (drawnStep.kind === 'together') {
				await Promise.all(drawnStep.picks.map((pick) => deliver(pool[pick % pool.length], 'real', target(drawnStep.process), false)));
			} else if (drawnStep.kind === 'readsFail') {
				sandbox.faults.add({ kind: 'status', status: 503, retryAfterSeconds: 0, path: '/integration/orders/:orderId', method: 'GET', times: drawnStep.times });
			} else {
				const index = Math.min(drawnStep.process, processes.length - 1);
				retired.push(processes[index]);
				processes[index] = await receiver(processes[index]);
			}
		}
		// The API sends each completion it has not seen answered 2xx again (it retries failed deliveries).
		sandbox.faults.clear();
		for (const delivery of pool) {
			for (let attempt = 0; attempt < 4 && !answered.has(delivery.id); attempt++) await deliver(delivery, 'real', target((attempt % 2) as 0 | 1), false);
		}
	}
	const real = ourDeliveries(orderIds);
	const expected = real.map((delivery) => (delivery.kind === 'qcCompleted' ? `qc:${delivery.evalId}` : `order:${delivery.orderId}:${delivery.completedAt}`));
	let floodReads: number | null = null;
	if (drawn.flood) {
		// More forged callbacks naming unknown orders than one minute's reads, at once (20 in flight).
		const before = orderReads();
		const bodies = Array.from({ length: READS_PER_MINUTE + 30 }, (_, index) => ({ orderId: randomOrderId(index + 7), status: 'completed', completedAt: new Date().toISOString() }));
		for (let index = 0; index < bodies.length; index += 20) await Promise.all(bodies.slice(index, index + 20).map((body) => post(processes[0].url, body)));
		floodReads = orderReads() - before;
	}
	const emitted = [...processes, ...retired].flatMap((each) => each.emissions.flat());
	const reads = orderReads() - readsBefore;
	await Promise.all([...processes, ...retired].map((each) => each.close()));
	// Each process may confirm up to a minute's reads, and a read the API fails is tried up to 4 times by the transport.
	return { emitted, expected, reads, readBound: READS_PER_MINUTE * processes.length * 4, floodReads, unanswered: real.filter((delivery) => !answered.has(delivery.id)).length };
}

/** What broke the invariant in one run, or [] when it held. */
function violations(record: RunRecord): string[] {
	const found: string[] = [];
	const keys = record.emitted.map((item) => String(item.completionKey));
	for (const key of record.expected) {
		const times = keys.filter((each) => each === key).length;
		if (times !== 1) found.push(`${key} emitted ${times} times`);
	}
	for (const key of keys) if (!record.expected.includes(key)) found.push(`emitted ${key}, not a real completion`);
	if (record.unanswered > 0) found.push(`${record.unanswered} real deliveries never answered 2xx`);
	if (record.reads > record.readBound) found.push(`${record.reads} confirming reads, above the bound ${record.readBound}`);
	if (record.floodReads !== null && record.floodReads > READS_PER_MINUTE) found.push(`a flood of ${READS_PER_MINUTE + 30} forged callbacks cost ${record.floodReads} reads (bound ${READS_PER_MINUTE})`);
	return found;
}

describe('Ollang Callback Trigger: generated delivery schedules', () => {
	it(`each real completion emitted once, nothing else, reads within the bound (${RUNS} schedules)`, async () => {
		let runs = 0;
		let failed = 0;
		const result = await fc.check(
			fc.asyncProperty(schedule, async (drawn) => {
				runs++;
				const found = violations(await runSchedule(drawn));
				if (found.length > 0) failed++;
				if (found.length > 0) throw new Error(found.join('; '));
			}),
			{ numRuns: RUNS, seed: SEED, path: process.env.OLLANG_CALLBACK_PATH, endOnFailure: false },
		);
		console.log(`callback trigger: schedules ${runs.toLocaleString('en')} (shrinking included), violations ${failed}${result.failed ? `; seed ${result.seed}, path ${result.counterexamplePath}` : ''}`);
		if (result.failed) {
			throw new Error(
				`seed ${result.seed}, path ${result.counterexamplePath}: ${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}\n` +
					`shrunk schedule: ${JSON.stringify(result.counterexample?.[0])}`,
			);
		}
	}, 600_000);
});
