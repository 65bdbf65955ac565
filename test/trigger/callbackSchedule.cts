// One generated delivery schedule for the Ollang Callback Trigger, as data and as a run against a `ScheduleWorld`:
// the in-process one (test/trigger/callbackSchedules.test.cts: n8n-core's WebhookContext, TriggerContext and
// WorkflowExecute) and the real n8n's (test/e2e/callbackTrigger.test.mts, a sample by seed). The sandbox's real
// completion callbacks (orders completing, reruns completing again, a QC evaluation) are recorded by it and not sent;
// the schedule delivers them: repeats, copies at once, answers the API never saw in time, forged variants, confirming
// reads that fail, restarts, two webhook processes, n8n's main down for a while, and the trigger's sweep (alone, or at
// the same moment as a callback). After each phase the API sends every completion not yet answered 2xx again, as
// often as its retry policy says (drawn: none, once, three), to whichever process is up; what it gave up on is the
// sweep's to find. After the last phase every process is up and the main sweeps once more. The invariant is checked
// on the sandbox's records (its deliveries, its request log): each real completion emitted exactly once, by push or
// by the sweep; nothing else; every well-formed callback a running trigger received answered 200; the reads of
// forged callbacks bounded.
import fc from 'fast-check';
import type { CallbackDelivery } from '../../sandbox/callbacks.cts';
import type { EmissionLoss } from '../harness/webhook.cts';

type Json = Record<string, unknown>;

export type Variant = 'real' | 'oneSecondLater' | 'withoutMillis' | 'otherOffset' | 'dayEarlier' | 'unknownOrder' | 'otherEvaluation';

export type Step =
	| { kind: 'send'; pick: number; variant: Variant; process: 0 | 1; answerLost: boolean }
	| { kind: 'together'; picks: number[]; process: 0 | 1 }
	| { kind: 'readsFail'; times: number }
	| { kind: 'restart'; process: 0 | 1 }
	/** The main's sweep now; with `alongside`, that real delivery sent to `process` at the same moment. */
	| { kind: 'sweep'; alongside: number | null; process: 0 | 1 }
	/**
	 * The main's sweep now, and n8n loses the execution of what it hands over: refuses it (its database not ready),
	 * drops it (never runs it, never says), or runs it late (after the sweep stopped waiting for it).
	 */
	| { kind: 'sweepLost'; how: EmissionLoss }
	/** n8n's main stopped (its URL refuses connections) until an 'up', a restart of it, or the schedule's end. */
	| { kind: 'down' }
	/** n8n's main started again (its sweep at activation runs). */
	| { kind: 'up' };

/** How often the API tries a delivery that was not answered 2xx (the sandbox's policies): 1, 2 or 4 attempts in all. */
export type Retries = 'none' | 'once' | 'three';
const ATTEMPTS: Record<Retries, number> = { none: 1, once: 2, three: 4 };

export interface Schedule {
	orders: number;
	reruns: boolean[];
	qc: boolean;
	processes: 1 | 2;
	/** Steps after the orders complete, after their reruns complete, after the QC evaluation finishes. */
	phases: Step[][];
	/** Then more forged callbacks naming unknown orders than a minute's refused reads, 20 at once. */
	flood: boolean;
	/** The API's retry policy for deliveries not answered 2xx. */
	retries: Retries;
	/** Deliveries (picks into the pool) the API never sends after the steps: lost to push, the sweep's to find. */
	lost: number[];
}

const variant = fc.constantFrom<Variant>('real', 'real', 'real', 'oneSecondLater', 'withoutMillis', 'otherOffset', 'dayEarlier', 'unknownOrder', 'otherEvaluation');
const processIndex = fc.constantFrom<0 | 1>(0, 1);
const step: fc.Arbitrary<Step> = fc.oneof(
	{ weight: 6, arbitrary: fc.record({ kind: fc.constant('send' as const), pick: fc.nat(), variant, process: processIndex, answerLost: fc.boolean() }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('together' as const), picks: fc.array(fc.nat(), { minLength: 2, maxLength: 4 }), process: processIndex }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('readsFail' as const), times: fc.integer({ min: 1, max: 8 }) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), process: processIndex }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('sweep' as const), alongside: fc.option(fc.nat(), { nil: null }), process: processIndex }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('sweepLost' as const), how: fc.constantFrom<EmissionLoss>('refused', 'dropped', 'late') }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'down' as const }) },
	{ weight: 1, arbitrary: fc.constant({ kind: 'up' as const }) },
);

export const scheduleArbitrary: fc.Arbitrary<Schedule> = fc
	.record({
		orders: fc.integer({ min: 1, max: 2 }),
		reruns: fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }),
		qc: fc.boolean(),
		processes: fc.constantFrom<1 | 2>(1, 2),
		phases: fc.array(fc.array(step, { maxLength: 6 }), { minLength: 3, maxLength: 3 }),
		flood: fc.constantFrom(false, false, false, true),
		retries: fc.constantFrom<Retries>('none', 'once', 'three'),
		lost: fc.array(fc.nat(), { maxLength: 2 }),
	})
	.map((drawn) => ({ ...drawn, reruns: drawn.reruns.slice(0, drawn.orders) }));

/** A trigger the schedule delivers to: its URL and what it emitted so far (each item with its completionKey). */
export interface ScheduleReceiver {
	url: string;
	emitted(): Promise<Json[]>;
}

/** What a schedule runs against: the sandbox and the trigger's processes, in-process or in a real n8n. */
export interface ScheduleWorld {
	/**
	 * The trigger of a new workflow (a clean store) on n8n's main (its sweep activated: the baseline), and a webhook
	 * process of it when `processes` is 2.
	 */
	receivers(processes: 1 | 2): Promise<ScheduleReceiver[]>;
	/**
	 * n8n started again under this receiver (stopped first if it runs): the same workflow, a fresh process memory,
	 * n8n's store and the workflow's static data kept; the main's sweep at activation runs.
	 */
	restart(receiver: ScheduleReceiver): Promise<ScheduleReceiver>;
	/** n8n stopped under this receiver: its URL refuses connections. Without it, 'down' steps do nothing. */
	stop?(receiver: ScheduleReceiver): Promise<void>;
	/**
	 * One sweep of the main now (its trigger()'s), its execution ended (with `lose`, lost so). A world without it
	 * sweeps on its own schedule and must have swept after the last phase by the time `emitted()` answers; 'sweep'
	 * and 'sweepLost' steps then do nothing.
	 */
	sweep?(main: ScheduleReceiver, lose?: EmissionLoss): Promise<void>;
	/** AI-only document orders; their callbacks recorded, not sent. */
	createOrders(count: number): Promise<string[]>;
	rerun(orderId: string): Promise<void>;
	requestQc(orderId: string): Promise<void>;
	/** The sandbox's clock moved until the orders have `count` callback deliveries. */
	advanceUntil(orderIds: string[], count: number): Promise<CallbackDelivery[]>;
	failReads(times: number): Promise<void>;
	clearFaults(): Promise<void>;
	/** Get Order requests the sandbox has answered so far. */
	orderReads(): Promise<number>;
	/**
	 * Statuses of the POSTs, in order (a real client's concurrency: a few at a time); 0 when the connection was
	 * refused (n8n down). Resolves once the executions they started ended.
	 */
	post(url: string, bodies: Json[]): Promise<number[]>;
	/** The trigger's bound: reads of orders the API refuses, per minute and process. */
	readsPerMinute: number;
}

export interface ScheduleRecord {
	emitted: Json[];
	expected: string[];
	/** Get Order reads outside the sweeps (the push confirmations), and their bound. */
	reads: number;
	readBound: number;
	/** Reads while the main swept (its poll and the execution confirming what it found). */
	sweepReads: number;
	floodReads: number | null;
	/** Real deliveries the API gave up on (never answered 2xx): the sweep's to emit. */
	unanswered: number;
	/** Answers other than 200 to well-formed callbacks a running trigger received (0, a refused connection, is n8n down). */
	notAnswered200: number[];
}

export function unknownOrderId(seed: number): string {
	return `ffff${((seed * 2654435761) >>> 0).toString(16).padStart(8, '0')}${Date.now().toString(16).slice(-12)}`.slice(0, 24);
}

/** The body a variant of a real delivery sends (a QC callback has no completedAt to vary: those draws send it as it is). */
export function variantBody(delivery: CallbackDelivery, chosen: Variant, nonce: number): { body: Json; used: Variant } {
	const fits = chosen === 'real' || chosen === 'unknownOrder' || (delivery.kind === 'qcCompleted') === (chosen === 'otherEvaluation');
	const used: Variant = fits ? chosen : 'real';
	const body = { ...(delivery.body as Json) };
	const at = delivery.completedAt === null ? 0 : Date.parse(delivery.completedAt);
	const instant = (shift: number) => new Date(at + shift).toISOString();
	const claims: Partial<Record<Variant, Json>> = {
		oneSecondLater: { completedAt: instant(1000) },
		withoutMillis: { completedAt: instant(0).replace(/\.\d{3}Z$/, 'Z') },
		otherOffset: { completedAt: instant(2 * 3_600_000).replace('Z', '+02:00') },
		dayEarlier: { completedAt: instant(-86_400_000) },
		unknownOrder: { orderId: unknownOrderId(nonce) },
	};
	if (used === 'otherEvaluation') {
		return { body: { orderId: delivery.orderId, evalId: `eval_forged_${nonce}`, status: 'completed', textSummary: '', scores: [], segmentEvals: [] }, used };
	}
	return { body: { ...body, ...claims[used] }, used };
}

/** Runs one schedule; returns what the invariant is checked on. */
export async function runSchedule(world: ScheduleWorld, drawn: Schedule): Promise<ScheduleRecord> {
	await world.clearFaults();
	const readsBefore = await world.orderReads();
	const processes = await world.receivers(drawn.processes);
	const everyProcess = [...processes];
	const orderIds = await world.createOrders(drawn.orders);
	/** Real deliveries answered 2xx as the API saw it (an answer it never saw in time does not count). */
	const answered = new Set<number>();
	/** The API's attempts of each real delivery (the steps' real sends, then its retries). */
	const attempts = new Map<number, number>();
	const notAnswered200: number[] = [];
	let sweepReads = 0;
	let mainDown = false;
	let nonce = 0;
	let pool: CallbackDelivery[] = [];
	const retries = drawn.retries ?? 'three';
	const target = (index: 0 | 1) => processes[Math.min(index, processes.length - 1)];
	const deliver = async (deliveries: CallbackDelivery[], chosen: Variant, to: ScheduleReceiver, answerLost = false) => {
		const sent = deliveries.map((delivery) => ({ delivery, ...variantBody(delivery, chosen, nonce++) }));
		const statuses = await world.post(to.url, sent.map((each) => each.body));
		sent.forEach(({ delivery, used }, index) => {
			const status = statuses[index];
			if (status !== 0 && status !== 200) notAnswered200.push(status);
			if (used !== 'real') return;
			attempts.set(delivery.id, (attempts.get(delivery.id) ?? 0) + 1);
			if (status >= 200 && status < 300 && !answerLost) answered.add(delivery.id);
		});
	};
	const sweep = async (lose?: EmissionLoss) => {
		if (world.sweep === undefined || mainDown) return;
		const before = await world.orderReads();
		await world.sweep(processes[0], lose);
		sweepReads += (await world.orderReads()) - before;
	};
	const up = async () => {
		if (!mainDown) return;
		processes[0] = await world.restart(processes[0]);
		everyProcess.push(processes[0]);
		mainDown = false;
	};
	const phases: Array<() => Promise<CallbackDelivery[]>> = [
		async () => await world.advanceUntil(orderIds, orderIds.length),
		async () => {
			const rerun = orderIds.filter((_, index) => drawn.reruns[index]);
			for (const orderId of rerun) await world.rerun(orderId);
			return await world.advanceUntil(orderIds, pool.length + rerun.length);
		},
		async () => {
			if (!drawn.qc) return pool;
			await world.requestQc(orderIds[0]);
			return await world.advanceUntil(orderIds, pool.length + 1);
		},
	];
	for (const [phase, steps] of drawn.phases.entries()) {
		pool = await phases[phase]();
		for (const drawnStep of steps) {
			if (drawnStep.kind === 'send') await deliver([pool[drawnStep.pick % pool.length]], drawnStep.variant, target(drawnStep.process), drawnStep.answerLost);
			else if (drawnStep.kind === 'together') await deliver(drawnStep.picks.map((pick) => pool[pick % pool.length]), 'real', target(drawnStep.process));
			else if (drawnStep.kind === 'readsFail') await world.failReads(drawnStep.times);
			else if (drawnStep.kind === 'sweep') {
				const alongside = drawnStep.alongside === null ? [] : [deliver([pool[drawnStep.alongside % pool.length]], 'real', target(drawnStep.process))];
				await Promise.all([sweep(), ...alongside]);
			} else if (drawnStep.kind === 'sweepLost') await sweep(drawnStep.how);
			else if (drawnStep.kind === 'down') {
				if (world.stop === undefined || mainDown) continue;
				await world.stop(processes[0]);
				mainDown = true;
			} else if (drawnStep.kind === 'up') await up();
			else if (drawnStep.process === 0 && mainDown) await up();
			else {
				const index = Math.min(drawnStep.process, processes.length - 1);
				processes[index] = await world.restart(processes[index]);
				everyProcess.push(processes[index]);
			}
		}
		// The API sends each completion it has not seen answered 2xx again, as often as its policy allows.
		await world.clearFaults();
		const lost = new Set((drawn.lost ?? []).map((pick) => pool[pick % pool.length].id));
		for (const delivery of pool.filter((each) => !lost.has(each.id))) {
			for (let attempt = 0; !answered.has(delivery.id) && (attempts.get(delivery.id) ?? 0) < ATTEMPTS[retries]; attempt++) {
				await deliver([delivery], 'real', target((attempt % 2) as 0 | 1));
			}
		}
	}
	// Every process up, and the main's sweep once more: what push did not bring, it finds.
	await up();
	await sweep();
	const expected = pool.map((delivery) => (delivery.kind === 'qcCompleted' ? `qc:${delivery.evalId}` : `order:${delivery.orderId}:${delivery.completedAt}`));
	let floodReads: number | null = null;
	if (drawn.flood) {
		const before = await world.orderReads();
		const bodies = Array.from({ length: world.readsPerMinute + 30 }, (_, index) => ({ orderId: unknownOrderId(index + 7), status: 'completed', completedAt: new Date().toISOString() }));
		const statuses = await world.post(processes[0].url, bodies);
		notAnswered200.push(...statuses.filter((status) => status !== 200));
		floodReads = (await world.orderReads()) - before;
	}
	const emitted = (await Promise.all([...new Set(everyProcess)].map(async (each) => await each.emitted()))).flat();
	const reads = (await world.orderReads()) - readsBefore - sweepReads;
	// Each process may spend a minute's refused reads; a read the API fails is tried up to 4 times by the transport.
	const readBound = world.readsPerMinute * new Set(everyProcess).size * 4;
	return { emitted, expected, reads, readBound, sweepReads, floodReads, unanswered: pool.filter((delivery) => !answered.has(delivery.id)).length, notAnswered200 };
}

/** What broke the invariant in one run, or [] when it held. */
export function violations(record: ScheduleRecord, readsPerMinute: number): string[] {
	const found: string[] = [];
	const keys = record.emitted.map((item) => String(item.completionKey));
	for (const key of record.expected) {
		const times = keys.filter((each) => each === key).length;
		if (times !== 1) found.push(`${key} emitted ${times} times`);
	}
	for (const key of keys) if (!record.expected.includes(key)) found.push(`emitted ${key}, not a real completion`);
	if (record.notAnswered200.length > 0) found.push(`well-formed callbacks answered ${record.notAnswered200.join(', ')}, not 200`);
	if (record.reads > record.readBound) found.push(`${record.reads} confirming reads, above the bound ${record.readBound}`);
	if (record.floodReads !== null && record.floodReads > readsPerMinute) {
		found.push(`a flood of ${readsPerMinute + 30} forged callbacks cost ${record.floodReads} reads (bound ${readsPerMinute} refused reads a minute)`);
	}
	return found;
}
