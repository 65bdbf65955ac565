// Exactly-once over a long randomized schedule: the sandbox's clock moves orders and import jobs along while the
// real poll() runs in between, with faults on random polls, repeated polls, a deactivation and re-activation (new
// runner, static data kept) and an n8n restart. Every event must come out once, in order per order, none missed.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import type { FaultRule } from '../../sandbox/index.cts';
import { FAIL_IMPORT_MARKER } from '../../sandbox/index.cts';
import type { PollRunner } from '../harness/poll.cts';
import {
	EventLedger,
	ScheduleRandom,
	baselineOf,
	call,
	expectedEvents,
	itemsOf,
	orderEventParameters,
	startImport,
	stateSize,
	triggerRunner,
	useSandbox,
	watchedOrderIds,
} from './helpers.cts';

const sandbox = useSandbox({ seed: 2026, progression: { mode: 'random', redeliveryProbability: 0.3 } });

const STEPS = 130;
const RECHECK_PER_POLL = 10;
const NODE_KEY = 'node:Ollang Trigger';

/** Faults a poll may meet; each is added before one poll and cleared after it. */
function randomFault(random: ScheduleRandom): FaultRule {
	switch (random.int(0, 5)) {
		case 0:
			// Four or more exhaust the transport's retries: the whole poll fails.
			return { kind: 'status', status: 503, retryAfterSeconds: 0, path: '/integration/orders', times: random.int(1, 5) };
		case 1:
			return { kind: 'status', status: 429, retryAfterSeconds: 0, path: '/integration/orders/:orderId', probability: 0.3, times: 12 };
		case 2:
			return { kind: 'drop', path: '/integration/orders/:orderId', times: 1 };
		case 3:
			return { kind: 'status', status: 500, path: '/integration/orders/:orderId', probability: 0.1 };
		case 4:
			return { kind: 'drop', when: 'after', path: '/integration/orders', times: 1 };
		default:
			return { kind: 'status', status: 502, retryAfterSeconds: 0, path: '/integration/memories/import-jobs/:jobId', times: random.int(1, 6) };
	}
}

interface PollStats {
	polls: number;
	/** Polls that threw (a transient failure reported as an error). */
	failedPolls: number;
	/** Polls after which the trigger counted a transient failure (it kept its place and returned what it could). */
	degradedPolls: number;
}

/** One poll; a failure must be a transient one (never the key, never a lost permission). */
async function pollOnce(runner: PollRunner, stats: PollStats, onItems: (items: IDataObject[]) => void): Promise<void> {
	stats.polls++;
	let items: IDataObject[];
	try {
		items = itemsOf(await runner.poll());
	} catch (error) {
		stats.failedPolls++;
		const { httpCode, message } = error as { httpCode?: string | null; message: string };
		expect({ message, transient: httpCode === null || httpCode === undefined || /^(429|5\d\d)$/.test(httpCode) }).toEqual({
			message,
			transient: true,
		});
		return;
	}
	onItems(items);
	if (Number(runner.staticData.failedPolls) > 0) stats.degradedPolls++;
}

it(
	'emits every delivery event and finished job exactly once through faults, repeats, re-activation and a restart',
	async () => {
		const random = new ScheduleRandom(20261101);
		const orderParameters = orderEventParameters({ options: { recheckPerPoll: RECHECK_PER_POLL } });
		let orders = triggerRunner(sandbox(), orderParameters);
		await orders.poll();
		const since = baselineOf(orders);
		const ledger = new EventLedger(sandbox());
		const orderStats: PollStats = { polls: 0, failedPolls: 0, degradedPolls: 0 };

		const memory = await call(sandbox(), 'POST', '/integration/memories', { body: { title: 'Schedule memory' } });
		const jobIds: string[] = [];
		const jobParameters = (): INodeParameters => ({ event: 'importJobFinished', jobIds: [...jobIds], includeFailed: true });
		const jobs = triggerRunner(sandbox(), jobParameters(), { nodeName: 'Jobs Trigger' });
		await jobs.poll();
		const jobSince = baselineOf(jobs);
		const emittedJobs = new Map<string, IDataObject>();
		const jobStats: PollStats = { polls: 0, failedPolls: 0, degradedPolls: 0 };
		const recordJobs = (items: IDataObject[]) => {
			for (const item of items) {
				const jobId = String(item.jobId);
				if (emittedJobs.has(jobId)) throw new Error(`job ${jobId} was emitted twice`);
				emittedJobs.set(jobId, item);
			}
		};

		let maxStateSize = 0;
		let faultyPolls = 0;
		let repeatedPolls = 0;
		const reactivateAt = Math.floor(STEPS / 3);
		const restartAt = Math.floor((2 * STEPS) / 3);

		for (let step = 0; step < STEPS; step++) {
			sandbox().simulate.createOrders(random.int(0, 5), { level: random.chance(0.4) ? 1 : 0 });
			if (random.chance(0.3)) {
				const delivered = [...sandbox().state.orders.values()].filter((order) => order.status === 'delivered' && order.logsEvents);
				if (delivered.length > 0) {
					const order = random.pick(delivered);
					sandbox().simulate.appendDeliveryEvent(order.id, order.level === 1 ? random.pick(['translator_delivered', 'order_delivered'] as const) : 'order_delivered');
				}
			}
			if (random.chance(0.3)) {
				jobIds.push(await startImport(sandbox(), memory.body.id, random.int(1, 1000), random.chance(0.25) ? FAIL_IMPORT_MARKER : ''));
				jobs.setParameters(jobParameters());
			}
			sandbox().clock.advance(random.int(5, 45));

			if (random.chance(0.3)) {
				faultyPolls++;
				sandbox().faults.add(randomFault(random));
				if (random.chance(0.3)) sandbox().faults.add(randomFault(random));
			}
			await pollOnce(orders, orderStats, (items) => ledger.record(items));
			if (random.chance(0.1)) {
				repeatedPolls++;
				await pollOnce(orders, orderStats, (items) => ledger.record(items));
			}
			await pollOnce(jobs, jobStats, recordJobs);
			sandbox().faults.clear();

			if (step === reactivateAt) {
				// Deactivated (n8n saves the static data), then activated again: a new runner from the saved data.
				orders.setParameters(orderParameters);
				orders = triggerRunner(sandbox(), orderParameters, { savedStaticData: { [NODE_KEY]: orders.savedStaticData } });
			}
			if (step === restartAt) orders.restart();
			maxStateSize = Math.max(maxStateSize, stateSize(orders));
		}

		// Let everything started finish, then (clock still) give the background checks the polls they need to
		// re-read every watched order once: ceil(watched / per poll), from the trigger's own state.
		for (let settle = 0; settle < 12; settle++) {
			sandbox().clock.advance(60);
			await pollOnce(orders, orderStats, (items) => ledger.record(items));
			await pollOnce(jobs, jobStats, recordJobs);
		}
		const drainPolls = Math.ceil(watchedOrderIds(orders).length / RECHECK_PER_POLL);
		// More than one poll: the rotation, not a re-read of every order per poll, finds the last re-deliveries.
		expect(drainPolls).toBeGreaterThan(1);
		for (let drain = 0; drain < drainPolls; drain++) {
			await pollOnce(orders, orderStats, (items) => ledger.record(items));
		}
		await pollOnce(jobs, jobStats, recordJobs);

		const expected = expectedEvents(sandbox(), since);
		ledger.expectExactly(expected);
		const ordersWithEvents = new Set([...ledger.emitted.values()].map((item) => item.orderId));
		expect(ledger.emitted.size).toBeGreaterThanOrEqual(1000);
		expect(ordersWithEvents.size).toBeGreaterThanOrEqual(200);
		const repeatedTypes = [...sandbox().state.orders.values()].filter(
			(order) => new Set(order.deliveryEvents.map((event) => event.type)).size < order.deliveryEvents.length,
		);
		expect(repeatedTypes.length).toBeGreaterThan(20);

		const ended = jobIds.filter((jobId) => {
			const job = sandbox().state.importJobs.get(jobId);
			return job !== undefined && (job.status === 'completed' || job.status === 'failed');
		});
		expect(ended.length).toBe(jobIds.length);
		expect(jobIds.length).toBeGreaterThanOrEqual(24);
		expect([...emittedJobs.keys()].sort()).toEqual([...ended].sort());
		const failedJobs = [...emittedJobs.values()].filter((item) => item.outcome === 'failed');
		expect(failedJobs.length).toBeGreaterThan(0);
		for (const item of emittedJobs.values()) {
			if (item.outcome === 'completed') expect(Date.parse(String(item.completedAt))).toBeGreaterThan(jobSince);
		}

		// The faults did hit: polls failed in part or as a whole, and the events came later.
		expect(faultyPolls).toBeGreaterThan(20);
		expect(repeatedPolls).toBeGreaterThan(3);
		expect(orderStats.degradedPolls).toBeGreaterThan(0);
		expect(jobStats.degradedPolls).toBeGreaterThan(0);

		if (process.env.TRIGGER_SCHEDULE_STATS) {
			console.log({ drainPolls, events: ledger.emitted.size, orders: ordersWithEvents.size, jobs: emittedJobs.size, failedJobs: failedJobs.length, orderStats, jobStats, faultyPolls, repeatedPolls, maxStateSize, watched: Object.keys(orders.staticData.orders as IDataObject).length });
		}
		// Bounded state: a cursor per watched order (about 60 bytes each), no payloads.
		const watched = Object.keys(orders.staticData.orders as IDataObject).length;
		expect(watched).toBeLessThanOrEqual(sandbox().state.orders.size);
		expect(maxStateSize).toBeLessThan(1_000 + 80 * sandbox().state.orders.size);
	},
	600_000,
);
