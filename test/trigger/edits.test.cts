// Edits of an active trigger lose nothing it keeps watching: a seeded schedule of random edits (event types added and
// removed, the order-type filter narrowed and widened, watched order and job ids added and removed, look-back days
// changed, failed jobs included or not) between polls and during them (a poll in flight when the workflow is saved
// again: n8n discards its result), while deactivated, and while n8n is stopped, in both of n8n's persistence modes
// and for all three events. Every emitted item is counted against the sandbox and against the configurations in
// force: an event must be emitted once when every configuration from the first poll after it on watches it; it may
// be emitted (once) when the configuration of that first poll watches it (an order read only later, after an edit
// that stopped watching it, is not); any other emission is unexpected. "The first poll after it" follows the polls
// whose state n8n kept (the runner's `parents`): a poll whose state n8n lost does not count as having looked.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { QC_MINUTES } from '../../sandbox/domain/orderEvaluations.cts';
import { FAIL_IMPORT_MARKER, startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.cts';
import type { PersistenceMode, PollRunner } from '../harness/poll.cts';
import { ScheduleRandom, call, itemsOf, startImport, triggerRunner, watchedOrderIds } from './helpers.cts';

/**
 * Each schedule runs on a sandbox of its own: the orders of another schedule would widen what a look-back window
 * holds past what one poll re-reads (Recheck per Poll is at most 200), and the figures would depend on which
 * schedules ran before.
 */
const SANDBOX_OPTIONS: SandboxOptions = { quiet: true, seed: 2121, progression: { mode: 'random', redeliveryProbability: 0.3 } };

const STEPS = 45;
const DAY_MS = 86_400_000;
/** Orders this close to a window's edge may be in or out of it (the window is measured from the poll before). */
const EDGE_MS = 2 * 3_600_000;
const EVENT_TYPES = ['ai_delivered', 'translator_delivered', 'lsp_approved', 'order_delivered'];
const ORDER_TYPES = ['cc', 'subtitle', 'document', 'aiDubbing', 'studioDubbing'];
const LOOKBACKS = [1, 2, 30];

type Kind = 'delivery' | 'qc' | 'jobs';

/** One configuration of the trigger, as the test edits it. */
interface Config {
	eventTypes: string[];
	mode: 'recentOrders' | 'orderIds';
	orderTypes: string[];
	lookbackDays: number;
	orderIds: string[];
	jobIds: string[];
	includeFailed: boolean;
}

function parametersOf(kind: Kind, config: Config): INodeParameters {
	if (kind === 'jobs') return { event: 'importJobFinished', jobIds: config.jobIds.join(','), includeFailed: config.includeFailed };
	const common: INodeParameters = {
		event: kind === 'qc' ? 'qcEvaluationFinished' : 'orderDeliveryEvent',
		eventTypes: kind === 'qc' ? [] : config.eventTypes,
		watch: config.mode,
		// Every watched order is read on every poll: the first poll after an event finds it (the rotation that spreads
		// re-reads over polls is tested on its own in orderEvents.test.cts).
		options: { recheckPerPoll: 200 },
	};
	if (config.mode === 'orderIds') return { ...common, orderIds: config.orderIds.join(',') };
	return { ...common, lookbackDays: config.lookbackDays, filters: { types: config.orderTypes } };
}

/** A thing the trigger may emit: a delivery event, a finished QC evaluation or a finished import job. */
interface Happening {
	id: string;
	/** Service time (ms) it happened: the event, the evaluation's request, the job's end. */
	at: number;
	orderId?: string;
	type?: string;
	jobId?: string;
	failed?: boolean;
}

type Watch = 'yes' | 'no' | 'edge';

/**
 * Whether a configuration watches a happening during one poll's interval, from `early` (the poll before it: the
 * node lists the look-back window measured from there) to `late` (when it happened, or the poll itself for later
 * polls). An order inside the window at `late` is watched; one that left it between the two may be emitted or not.
 */
function watches(target: Sandbox, kind: Kind, config: Config, happening: Happening, early: number, late: number): Watch {
	if (kind === 'jobs') {
		if (!config.jobIds.includes(happening.jobId!)) return 'no';
		return happening.failed && !config.includeFailed ? 'no' : 'yes';
	}
	if (kind === 'delivery' && !config.eventTypes.includes(happening.type!)) return 'no';
	const order = target.state.orders.get(happening.orderId!)!;
	if (config.mode === 'orderIds') return config.orderIds.includes(order.id) ? 'yes' : 'no';
	if (config.orderTypes.length > 0 && !config.orderTypes.includes(order.type)) return 'no';
	const createdAt = Date.parse(order.createdAt);
	const window = config.lookbackDays * DAY_MS;
	if (createdAt - (late - window) > EDGE_MS) return 'yes';
	return createdAt - (early - window) < -EDGE_MS ? 'no' : 'edge';
}

interface Figures {
	edits: number;
	editsDuringPolls: number;
	restarts: number;
	expected: number;
	emitted: number;
	missed: number;
	duplicated: number;
	unexpected: number;
	/** Emitted though not required: an order at the edge of a look-back window, or a failed job. */
	optional: number;
	/** Happened after the last poll whose state n8n kept: nothing could be required of it. Must be 0. */
	unchecked: number;
	/** What went wrong, to trace it: each missed, duplicated or unexpected item with its time and the polls around it. */
	traces: string[];
}

/** A random edit of what is watched. */
function edit(random: ScheduleRandom, kind: Kind, config: Config, orderIds: string[], jobIds: string[]): Config {
	const next: Config = { ...config, eventTypes: [...config.eventTypes], orderTypes: [...config.orderTypes], orderIds: [...config.orderIds], jobIds: [...config.jobIds] };
	const choice = random.int(0, 5);
	if (kind === 'jobs') {
		if (choice <= 1 && next.jobIds.length > 1) next.jobIds.splice(random.int(0, next.jobIds.length - 1), 1);
		else if (choice <= 3) {
			const candidates = jobIds.filter((jobId) => !next.jobIds.includes(jobId));
			if (candidates.length > 0) next.jobIds.push(random.pick(candidates));
		} else next.includeFailed = !next.includeFailed;
		return next;
	}
	if (choice === 0 && kind === 'delivery') {
		const missing = EVENT_TYPES.filter((type) => !next.eventTypes.includes(type));
		if (missing.length > 0 && (random.chance(0.6) || next.eventTypes.length === 1)) next.eventTypes.push(random.pick(missing));
		else if (next.eventTypes.length > 1) next.eventTypes.splice(random.int(0, next.eventTypes.length - 1), 1);
	} else if (choice <= 1) {
		// Narrowed (one type more in the filter narrows only from "any"; fewer types narrow) or widened.
		if (next.orderTypes.length === 0) next.orderTypes = [random.pick(ORDER_TYPES)];
		else if (random.chance(0.5)) next.orderTypes = [];
		else next.orderTypes = [...new Set([...next.orderTypes, random.pick(ORDER_TYPES)])];
	} else if (choice === 2) {
		next.lookbackDays = random.pick(LOOKBACKS.filter((days) => days !== next.lookbackDays));
	} else if (choice === 3) {
		next.mode = next.mode === 'recentOrders' ? 'orderIds' : 'recentOrders';
		if (next.orderIds.length === 0) next.orderIds = orderIds.filter(() => random.chance(0.3)).slice(0, 15);
	} else if (next.mode === 'orderIds') {
		if (random.chance(0.5) && next.orderIds.length > 1) next.orderIds.splice(random.int(0, next.orderIds.length - 1), 1);
		else next.orderIds.push(random.pick(orderIds));
		next.orderIds = [...new Set(next.orderIds)];
	} else {
		next.orderTypes = next.orderTypes.length === 0 ? [random.pick(ORDER_TYPES)] : [];
	}
	return next;
}

async function runSchedule(target: Sandbox, kind: Kind, persistence: PersistenceMode, seed: number): Promise<Figures> {
	const random = new ScheduleRandom(seed);
	const memory = await call(target, 'POST', '/integration/memories', { body: { title: `Edits ${kind} ${persistence}` } });
	const jobIds: string[] = [];
	const evaluations: Happening[] = [];
	const qcRequested = new Set<string>();
	/** Completed orders the clock leaves alone: those a QC evaluation may be requested for. */
	const qcOrders: string[] = [];
	const createOrders = (count: number, level: 0 | 1) => {
		const created = target.simulate.createOrders(count, kind === 'qc' ? { type: 'subtitle', status: 'completed', progress: false } : { level });
		if (kind === 'qc') qcOrders.push(...created.map((order) => order.id));
	};
	// Orders that exist before activation, some of them days old (for the look-back edits).
	for (let day = 0; day < 3; day++) {
		createOrders(6, random.chance(0.5) ? 1 : 0);
		target.clock.advance(random.int(600, 1200));
	}
	const existingOrders = () => [...target.state.orders.keys()];
	let config: Config = {
		eventTypes: ['ai_delivered', 'order_delivered'],
		mode: 'recentOrders',
		orderTypes: [],
		lookbackDays: 2,
		orderIds: [],
		jobIds: [],
		includeFailed: true,
	};
	if (kind === 'jobs') {
		for (let index = 0; index < 3; index++) jobIds.push(await startImport(target, memory.body.id, random.int(50, 600)));
		config.jobIds = [...jobIds];
	}
	const activatedAt = target.clock.now().getTime();
	const runner: PollRunner = triggerRunner(target, parametersOf(kind, config), { persistence, nodeName: `Edits ${kind}` });
	/** Per poll number (as the runner counts them): its service time and the configuration it ran with. */
	const polls: Array<{ at: number; config: Config }> = [{ at: activatedAt, config }];
	const emitted: string[] = [];
	/** Per emitted id: the numbers of the polls that emitted it (for the traces). */
	const emittedBy = new Map<string, number[]>();
	const record = (items: string[]) => {
		const number = runner.parents.length - 1;
		for (const id of items) emittedBy.set(id, [...(emittedBy.get(id) ?? []), number]);
		emitted.push(...items);
	};
	const figures: Figures = { edits: 0, editsDuringPolls: 0, restarts: 0, expected: 0, emitted: 0, missed: 0, duplicated: 0, unexpected: 0, optional: 0, unchecked: 0, traces: [] };
	const idOf = (item: IDataObject) => String(kind === 'jobs' ? item.jobId : item.eventId);
	/** n8n's scheduled polls are a minute apart (the node's overlap guard reads this machine's clock). */
	const nextMinute = () => jest.setSystemTime(Date.now() + 60_000);
	const poll = async () => {
		nextMinute();
		polls.push({ at: target.clock.now().getTime(), config });
		record(itemsOf(await runner.poll()).map(idOf));
	};
	const applyEdit = () => {
		config = edit(random, kind, config, existingOrders(), jobIds);
		runner.setParameters(parametersOf(kind, config));
		figures.edits++;
	};

	await poll();
	for (let step = 0; step < STEPS; step++) {
		// The service's time moves on after an answer: what happens next is after the poll that just ran (a poll at
		// T has checked everything stamped at or before T).
		target.clock.advance(1);
		if (kind === 'qc') {
			createOrders(random.int(0, 2), 0);
			// One evaluation per order (the API shows only an order's latest one).
			const candidates = qcOrders.filter((orderId) => !qcRequested.has(orderId));
			for (let count = random.int(0, 3); count > 0 && candidates.length > 0; count--) {
				const orderId = candidates.splice(random.int(0, candidates.length - 1), 1)[0];
				qcRequested.add(orderId);
				const answer = await call(target, 'POST', `/integration/orders/${orderId}/qc`, { body: {} });
				expect(answer.status).toBe(200);
				evaluations.push({ id: `${orderId}:qc:${String(answer.body.evalId)}`, at: target.clock.now().getTime(), orderId });
			}
		} else if (kind === 'delivery') {
			createOrders(random.int(0, 3), random.chance(0.4) ? 1 : 0);
			const delivered = [...target.state.orders.values()].filter((order) => order.status === 'delivered' && order.logsEvents);
			if (delivered.length > 0 && random.chance(0.5)) {
				target.simulate.appendDeliveryEvent(random.pick(delivered).id, random.pick(['order_delivered', 'translator_delivered'] as const));
			}
		} else if (random.chance(0.5)) {
			jobIds.push(await startImport(target, memory.body.id, random.int(1, 800), random.chance(0.3) ? FAIL_IMPORT_MARKER : ''));
			// Mostly watched at once, as a workflow that starts imports would add them.
			if (random.chance(0.7)) {
				config = { ...config, jobIds: [...config.jobIds, jobIds[jobIds.length - 1]] };
				runner.setParameters(parametersOf(kind, config));
			}
		}
		// Minutes between steps, now and then most of a day (orders age through the look-back windows).
		target.clock.advance(random.int(5, 60) + (random.chance(0.1) ? random.int(720, 1800) : 0));

		const moment = random.int(0, 9);
		if (moment <= 2) {
			// Saved again between polls (n8n re-activates: the activation poll runs with the new configuration).
			applyEdit();
		} else if (moment === 3) {
			// Saved again while a poll is in flight: n8n discards that poll's result and activates the new version.
			nextMinute();
			polls.push({ at: target.clock.now().getTime(), config });
			const requestsBefore = target.requests.count();
			// A poll that stands down (another poll of this node emitted moments ago) makes no request at all.
			let settled = false;
			const inFlight = runner.poll().finally(() => {
				settled = true;
			});
			while (!settled && target.requests.count() === requestsBefore) await new Promise((resolve) => setImmediate(resolve));
			if (!settled) figures.editsDuringPolls++;
			applyEdit();
			record(itemsOf(await inFlight).map(idOf));
		} else if (moment === 4) {
			// Edited while n8n is stopped (import or public API), events meanwhile, then n8n starts again.
			runner.restart();
			figures.restarts++;
			target.clock.advance(random.int(5, 60));
			applyEdit();
		} else if (moment === 5) {
			runner.restart();
			figures.restarts++;
		}
		await poll();
		if (random.chance(0.3)) {
			target.clock.advance(random.int(1, 10));
			await poll();
		}
	}
	// Everything started finishes; then (clock still) the background checks re-read every watched order.
	for (let settle = 0; settle < 8; settle++) {
		target.clock.advance(60);
		await poll();
	}
	if (kind !== 'jobs') {
		for (let drain = Math.ceil(watchedOrderIds(runner).length / 10) + 1; drain >= 0; drain--) await poll();
	}

	// The polls whose state n8n kept, oldest first, from the one the next poll would start from.
	const lineage: number[] = [];
	for (let number = runner.keptPoll(); number > 0; number = runner.parents[number]) lineage.unshift(number);
	expect(runner.parents.length).toBe(polls.length);

	const happenings: Happening[] = [];
	if (kind === 'delivery') {
		for (const order of target.state.orders.values()) {
			order.deliveryEvents.forEach((event, index) =>
				happenings.push({ id: `${order.id}:${index}`, at: Date.parse(event.occurredAt), orderId: order.id, type: event.type }),
			);
		}
	} else if (kind === 'qc') {
		happenings.push(...evaluations);
	} else {
		for (const jobId of jobIds) {
			const job = target.state.importJobs.get(jobId)!;
			if (job.status === 'completed') happenings.push({ id: jobId, at: Date.parse(String(job.completedAt)), jobId });
			// A failure carries no time: the trigger emits one whenever it reads it (see below).
			if (job.status === 'failed') happenings.push({ id: jobId, at: Number.NaN, jobId, failed: true });
		}
	}

	const counts = new Map<string, number>();
	for (const id of emitted) counts.set(id, (counts.get(id) ?? 0) + 1);
	const known = new Set(happenings.map((happening) => happening.id));
	for (const happening of happenings) {
		let required: boolean;
		let allowed: boolean;
		if (happening.failed) {
			// No end time: required when every kept poll watched it; allowed when any did.
			const verdicts = lineage.map((number) => watches(target, kind, polls[number].config, happening, polls[runner.parents[number]].at, polls[number].at));
			required = verdicts.every((verdict) => verdict === 'yes');
			allowed = verdicts.some((verdict) => verdict !== 'no');
		} else if (!(happening.at > activatedAt)) {
			required = false;
			allowed = false;
		} else {
			const first = lineage.findIndex((number) => polls[number].at >= happening.at);
			const after = first === -1 ? [] : lineage.slice(first);
			// A QC evaluation finishes QC_MINUTES after it was requested: watched from its request to the first poll
			// that sees it finished (an order no longer watched meanwhile starts from a later poll when watched again).
			const finished = kind === 'qc' ? after.findIndex((number) => polls[number].at >= happening.at + QC_MINUTES * 60_000) : 0;
			const span = finished === -1 ? after : after.slice(0, finished + 1);
			// No kept poll after it (or after it finished): the schedule ended before anything could check it.
			if (first === -1 || finished === -1) figures.unchecked++;
			const verdicts = span.map((number, index) =>
				watches(target, kind, polls[number].config, happening, polls[runner.parents[number]].at, index === 0 ? happening.at : polls[number].at),
			);
			required = verdicts.length > 0 && verdicts.every((verdict) => verdict === 'yes');
			allowed = verdicts.length > 0 && verdicts[0] !== 'no';
		}
		const count = counts.get(happening.id) ?? 0;
		if ((required && count === 0) || count > 1 || (count > 0 && !allowed)) {
			const around = lineage
				.filter((number) => Math.abs(polls[number].at - happening.at) < 3 * 3_600_000)
				.map((number) => `#${number} ${new Date(polls[number].at).toISOString()} ${JSON.stringify(polls[number].config)}`);
			figures.traces.push(`${happening.id} ${happening.type ?? ''} at ${new Date(happening.at).toISOString()} emitted ${count}x (by polls ${(emittedBy.get(happening.id) ?? []).join(', ')}; activated ${new Date(activatedAt).toISOString()}), required ${required}, allowed ${allowed}; kept polls around it: ${around.join(' | ')}`);
		}
		if (required) figures.expected++;
		if (count > 0) figures.emitted++;
		if (required && count === 0) figures.missed++;
		if (count > 1) figures.duplicated++;
		if (count > 0 && !allowed) figures.unexpected++;
		if (count > 0 && allowed && !required) figures.optional++;
	}
	for (const [id] of counts) if (!known.has(id)) figures.unexpected++;
	return figures;
}

const SEEDS: Record<Kind, Record<PersistenceMode, number>> = {
	delivery: { default: 21001, durable: 21034 },
	qc: { default: 21003, durable: 21044 },
	jobs: { default: 21005, durable: 21006 },
};

describe.each<[Kind, PersistenceMode]>([
	['delivery', 'default'],
	['delivery', 'durable'],
	['qc', 'default'],
	['qc', 'durable'],
	['jobs', 'default'],
	['jobs', 'durable'],
])('random edits of a %s trigger, %s persistence', (kind, persistence) => {
	it('emits once whatever stays watched across edits, nothing before the last poll for what is newly watched', async () => {
		const seed = SEEDS[kind][persistence];
		const target = await startSandbox(SANDBOX_OPTIONS);
		// Only Date is faked (moved on a minute per poll): timers, HTTP and the sandbox's own clock run as usual.
		jest.useFakeTimers({ doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame', 'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
		let figures: Figures;
		try {
			figures = await runSchedule(target, kind, persistence, seed);
		} finally {
			jest.useRealTimers();
			await target.close();
		}
		console.log(
			`edits (${kind}, ${persistence} persistence, seed ${seed}): ${figures.edits} edits (${figures.editsDuringPolls} during a poll), ` +
				`${figures.restarts} restarts; expected ${figures.expected}, emitted ${figures.emitted}, missed ${figures.missed}, ` +
				`duplicated ${figures.duplicated}, unexpected ${figures.unexpected}, after the last kept poll ${figures.unchecked}; emitted where either was right (window edge, failed job) ${figures.optional}` +
				figures.traces.map((trace) => `\n  ${trace}`).join(''),
		);
		expect({ missed: figures.missed, duplicated: figures.duplicated, unexpected: figures.unexpected, unchecked: figures.unchecked }).toEqual({
			missed: 0,
			duplicated: 0,
			unexpected: 0,
			unchecked: 0,
		});
		// The schedule did what it is for.
		expect(figures.edits).toBeGreaterThanOrEqual(12);
		expect(figures.editsDuringPolls).toBeGreaterThanOrEqual(2);
		expect(figures.restarts).toBeGreaterThanOrEqual(4);
		expect(figures.expected).toBeGreaterThanOrEqual(5);
	}, 600_000);
});
