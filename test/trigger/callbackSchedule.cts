// One generated delivery schedule for the Ollang Callback Trigger, as data and as a run against a `ScheduleWorld`:
// the in-process one (test/trigger/callbackSchedules.test.cts: n8n-core's WebhookContext and WorkflowExecute) and
// the real n8n's (test/e2e/callbackTrigger.test.mts, a sample by seed). The sandbox's real completion callbacks
// (orders completing, reruns completing again, a QC evaluation) are recorded by it and not sent; the schedule
// delivers them: repeats, copies at once, answers the API never saw in time, forged variants, confirming reads
// that fail, restarts, two webhook processes. After each phase the API sends every completion not yet answered 2xx
// again, as it retries. The invariant is checked on the sandbox's records (its deliveries and its request log).
import fc from 'fast-check';
import type { CallbackDelivery } from '../../sandbox/callbacks.cts';

type Json = Record<string, unknown>;

export type Variant = 'real' | 'oneSecondLater' | 'withoutMillis' | 'otherOffset' | 'dayEarlier' | 'unknownOrder' | 'otherEvaluation';

export type Step =
	| { kind: 'send'; pick: number; variant: Variant; process: 0 | 1; answerLost: boolean }
	| { kind: 'together'; picks: number[]; process: 0 | 1 }
	| { kind: 'readsFail'; times: number }
	| { kind: 'restart'; process: 0 | 1 };

export interface Schedule {
	orders: number;
	reruns: boolean[];
	qc: boolean;
	processes: 1 | 2;
	/** Steps after the orders complete, after their reruns complete, after the QC evaluation finishes. */
	phases: Step[][];
	/** Then more forged callbacks naming unknown orders than a minute's reads, 20 at once. */
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

export const scheduleArbitrary: fc.Arbitrary<Schedule> = fc
	.record({
		orders: fc.integer({ min: 1, max: 2 }),
		reruns: fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }),
		qc: fc.boolean(),
		processes: fc.constantFrom<1 | 2>(1, 2),
		phases: fc.array(fc.array(step, { maxLength: 6 }), { minLength: 3, maxLength: 3 }),
		flood: fc.constantFrom(false, false, false, true),
	})
	.map((drawn) => ({ ...drawn, reruns: drawn.reruns.slice(0, drawn.orders) }));

/** A trigger the schedule delivers to: its URL and what it emitted so far. */
export interface ScheduleReceiver {
	url: string;
	emitted(): Promise<Json[]>;
}

/** What a schedule runs against: the sandbox and the trigger's processes, in-process or in a real n8n. */
export interface ScheduleWorld {
	/** The trigger of a new workflow (a clean store), and a second process of it when `processes` is 2. */
	receivers(processes: 1 | 2): Promise<ScheduleReceiver[]>;
	/** n8n started again under this receiver: the same workflow, a fresh process memory, n8n's store kept. */
	restart(receiver: ScheduleReceiver): Promise<ScheduleReceiver>;
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
	/** Statuses of the POSTs, in order (a real client's concurrency: a few at a time). */
	post(url: string, bodies: Json[]): Promise<number[]>;
	/** The trigger's reads per minute (its bound), per process. */
	readsPerMinute: number;
}

export interface ScheduleRecord {
	emitted: Json[];
	expected: string[];
	reads: number;
	readBound: number;
	floodReads: number | null;
	unanswered: number;
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
	let nonce = 0;
	let pool: CallbackDelivery[] = [];
	const target = (index: 0 | 1) => processes[Math.min(index, processes.length - 1)];
	const deliver = async (deliveries: CallbackDelivery[], chosen: Variant, to: ScheduleReceiver, answerLost = false) => {
		const sent = deliveries.map((delivery) => ({ delivery, ...variantBody(delivery, chosen, nonce++) }));
		const statuses = await world.post(to.url, sent.map((each) => each.body));
		sent.forEach(({ delivery, used }, index) => {
			if (used === 'real' && statuses[index] >= 200 && statuses[index] < 300 && !answerLost) answered.add(delivery.id);
		});
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
			else {
				const index = Math.min(drawnStep.process, processes.length - 1);
				processes[index] = await world.restart(processes[index]);
				everyProcess.push(processes[index]);
			}
		}
		// The API sends each completion it has not seen answered 2xx again (it retries failed deliveries).
		await world.clearFaults();
		for (const delivery of pool) {
			for (let attempt = 0; attempt < 4 && !answered.has(delivery.id); attempt++) await deliver([delivery], 'real', target((attempt % 2) as 0 | 1));
		}
	}
	const expected = pool.map((delivery) => (delivery.kind === 'qcCompleted' ? `qc:${delivery.evalId}` : `order:${delivery.orderId}:${delivery.completedAt}`));
	let floodReads: number | null = null;
	if (drawn.flood) {
		const before = await world.orderReads();
		const bodies = Array.from({ length: world.readsPerMinute + 30 }, (_, index) => ({ orderId: unknownOrderId(index + 7), status: 'completed', completedAt: new Date().toISOString() }));
		await world.post(processes[0].url, bodies);
		floodReads = (await world.orderReads()) - before;
	}
	const emitted = (await Promise.all([...new Set(everyProcess)].map(async (each) => await each.emitted()))).flat();
	const reads = (await world.orderReads()) - readsBefore;
	// Each process may begin a minute's reads; a read the API fails is tried up to 4 times by the transport.
	const readBound = world.readsPerMinute * new Set(everyProcess).size * 4;
	return { emitted, expected, reads, readBound, floodReads, unanswered: pool.filter((delivery) => !answered.has(delivery.id)).length };
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
	if (record.unanswered > 0) found.push(`${record.unanswered} real deliveries never answered 2xx`);
	if (record.reads > record.readBound) found.push(`${record.reads} confirming reads, above the bound ${record.readBound}`);
	if (record.floodReads !== null && record.floodReads > readsPerMinute) {
		found.push(`a flood of ${readsPerMinute + 30} forged callbacks cost ${record.floodReads} reads (bound ${readsPerMinute})`);
	}
	return found;
}
