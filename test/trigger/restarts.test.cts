// Exactly-once across n8n restarts, in both of n8n's persistence modes as the harness models them (see
// test/harness/poll.cts): the sandbox's clock moves orders and import jobs along while n8n is stopped and started
// again at random steps, including right after activation before anything was ever emitted, and several times in
// a row. A stop loses whatever n8n had not persisted; every event must still come out once: counted, not thrown
// on, so the figures show what a design misses or repeats.
import { FAIL_IMPORT_MARKER } from '../../sandbox/index.cts';
import type { PersistenceMode, PollRunner } from '../harness/poll.cts';
import {
	ScheduleRandom,
	call,
	expectedEvents,
	itemsOf,
	orderEventParameters,
	startImport,
	triggerRunner,
	useSandbox,
	watchedOrderIds,
} from './helpers.cts';

const sandbox = useSandbox({ seed: 77, progression: { mode: 'random', redeliveryProbability: 0.3 } });

const STEPS = 60;

interface Tally {
	expected: number;
	emitted: number;
	missed: number;
	duplicated: number;
}

function tally(expected: Set<string>, emitted: string[]): Tally {
	const seen = new Set<string>();
	let duplicated = 0;
	for (const id of emitted) {
		if (seen.has(id)) duplicated++;
		seen.add(id);
	}
	return {
		expected: expected.size,
		emitted: seen.size,
		missed: [...expected].filter((id) => !seen.has(id)).length,
		duplicated: duplicated + [...seen].filter((id) => !expected.has(id)).length,
	};
}

async function runSchedule(persistence: PersistenceMode, seed: number) {
	const random = new ScheduleRandom(seed);
	const target = sandbox();
	// The service time at which the trigger is activated: events after it are the ones to emit.
	const activatedAt = target.clock.now().getTime();
	const orders: PollRunner = triggerRunner(target, orderEventParameters({ options: { recheckPerPoll: 10 } }), { persistence });
	const memory = await call(target, 'POST', '/integration/memories', { body: { title: `Restarts ${persistence}` } });
	const jobIds: string[] = [];
	const jobs: PollRunner = triggerRunner(target, { event: 'importJobFinished', jobIds: [], includeFailed: true }, { nodeName: 'Jobs Trigger', persistence });
	const emittedEvents: string[] = [];
	const emittedJobs: string[] = [];
	/** `overlapping` > 1: polls of each node at once, as n8n's durable scheduler runs them after a restart. */
	const poll = async (overlapping = 1) => {
		const pollsOf = async (runner: PollRunner) => (overlapping > 1 ? await runner.pollOverlapping(overlapping) : [await runner.poll()]);
		for (const result of await pollsOf(orders)) emittedEvents.push(...itemsOf(result).map((item) => String(item.eventId)));
		for (const result of await pollsOf(jobs)) emittedJobs.push(...itemsOf(result).map((item) => String(item.jobId)));
	};
	let restarts = 0;
	let overlaps = 0;
	const restart = () => {
		restarts++;
		orders.restart();
		jobs.restart();
	};

	// Activation; then, before anything was ever emitted, n8n stops, events happen while it is down, it starts.
	await poll();
	target.clock.advance(1);
	restart();
	target.simulate.createOrders(3, { level: 0 });
	target.clock.advance(30);
	// A second stop right after the start, before any poll: nothing the new process did is saved either.
	restart();
	await poll();

	for (let step = 0; step < STEPS; step++) {
		target.simulate.createOrders(random.int(0, 4), { level: random.chance(0.4) ? 1 : 0 });
		if (random.chance(0.3)) {
			const delivered = [...target.state.orders.values()].filter((order) => order.status === 'delivered' && order.logsEvents);
			if (delivered.length > 0) target.simulate.appendDeliveryEvent(random.pick(delivered).id, 'order_delivered');
		}
		if (random.chance(0.35)) {
			jobIds.push(await startImport(target, memory.body.id, random.int(1, 800), random.chance(0.25) ? FAIL_IMPORT_MARKER : ''));
			jobs.setParameters({ event: 'importJobFinished', jobIds: [...jobIds], includeFailed: true });
		}
		target.clock.advance(random.int(5, 40));
		// n8n is down for a while at random steps: the clock moves on without polls, then it starts again.
		let overlapping = 1;
		if (random.chance(0.2)) {
			restart();
			target.clock.advance(random.int(5, 90));
			if (random.chance(0.3)) restart();
			// A poll task in flight at the stop is leased again beside the next one (durable scheduler).
			if (persistence === 'durable' && random.chance(0.5)) overlapping = 2;
			if (overlapping > 1) overlaps++;
		}
		await poll(overlapping);
	}
	// Everything started finishes; the background checks get the polls they need to re-read every watched order.
	for (let settle = 0; settle < 12; settle++) {
		target.clock.advance(60);
		await poll();
	}
	// Clock still: a re-delivery changes nothing listed, so the rotation must reach every watched order once.
	for (let drain = Math.ceil(watchedOrderIds(orders).length / 10); drain >= 0; drain--) await poll();

	const expected = new Set(expectedEvents(target, Math.floor(activatedAt / 1000) * 1000).keys());
	const ended = new Set(
		jobIds.filter((jobId) => ['completed', 'failed'].includes(String(target.state.importJobs.get(jobId)?.status))),
	);
	return { restarts, overlaps, events: tally(expected, emittedEvents), jobs: tally(ended, emittedJobs), jobCount: jobIds.length };
}

describe.each<[PersistenceMode, number]>([
	['default', 20261122],
	['durable', 20261123],
])('restarts with %s persistence', (persistence, seed) => {
	it('emits every delivery event and finished import job exactly once', async () => {
		const outcome = await runSchedule(persistence, seed);
		console.log(
			`restarts (${persistence} persistence, seed ${seed}): ${outcome.restarts} restarts, ${outcome.overlaps} with overlapping polls after; delivery events expected ` +
				`${outcome.events.expected}, emitted ${outcome.events.emitted}, missed ${outcome.events.missed}, duplicated ` +
				`${outcome.events.duplicated}; import jobs expected ${outcome.jobs.expected}, emitted ${outcome.jobs.emitted}, ` +
				`missed ${outcome.jobs.missed}, duplicated ${outcome.jobs.duplicated}`,
		);
		expect({ events: outcome.events, jobs: outcome.jobs }).toEqual({
			events: { ...outcome.events, missed: 0, duplicated: 0 },
			jobs: { ...outcome.jobs, missed: 0, duplicated: 0 },
		});
		// The schedule did what it is for: many restarts, events and jobs to count.
		expect(outcome.restarts).toBeGreaterThanOrEqual(8);
		if (persistence === 'durable') expect(outcome.overlaps).toBeGreaterThanOrEqual(2);
		expect(outcome.events.expected).toBeGreaterThan(100);
		expect(outcome.jobs.expected).toBeGreaterThanOrEqual(10);
		expect(outcome.jobs.expected).toBe(outcome.jobCount);
	}, 600_000);
});

// The case the old design missed: with durable cursors the activation poll's state is never committed.
it('durable persistence: the poll after an activation that emitted nothing resumes from the activation\'s baseline', async () => {
	const runner = triggerRunner(sandbox(), orderEventParameters(), { persistence: 'durable' });
	await runner.poll();
	const saved = runner.staticData;
	// The activation poll's node state is not committed in durable mode: nothing stored for the node yet...
	expect(saved.since).toBeUndefined();
	// ...yet the next poll resumes from the activation's baseline rather than from its own time.
	sandbox().clock.advance(10);
	const [orderId] = sandbox().simulate.createOrders(1, { level: 0 }).map((order) => order.id);
	sandbox().clock.advance(30);
	const items = itemsOf(await runner.poll());
	expect(items.some((item) => item.orderId === orderId)).toBe(true);
});

// n8n's durable scheduler can run two polls of one node at once (a task leased again after a restart beside the
// next one), each on its own copy of the cursor; n8n writes whichever commits last. Exactly one of them may emit.
it('durable persistence: overlapping polls of one node on copies of the same cursor emit each event once', async () => {
	const target = sandbox();
	const activatedAt = target.clock.now().getTime();
	const runner = triggerRunner(target, orderEventParameters(), { persistence: 'durable' });
	await runner.poll();
	const emitted: string[] = [];
	let emittingRounds = 0;
	for (let round = 0; round < 6; round++) {
		target.clock.advance(10);
		target.simulate.createOrders(2, { level: 0 });
		target.clock.advance(30);
		const results = await runner.pollOverlapping(round % 2 === 0 ? 2 : 3);
		const emitting = results.filter((result) => result !== null);
		// At most one of the overlapping polls emits; the others stand down.
		expect(emitting.length).toBeLessThanOrEqual(1);
		if (emitting.length === 1) emittingRounds++;
		for (const result of emitting) emitted.push(...itemsOf(result).map((item) => String(item.eventId)));
	}
	target.clock.advance(60);
	// Clock still: a re-delivery changes nothing listed, so the background checks must reach every watched order once.
	for (let drain = Math.ceil(watchedOrderIds(runner).length / 10) + 1; drain >= 0; drain--) {
		emitted.push(...itemsOf(await runner.poll()).map((item) => String(item.eventId)));
	}
	expect(emittingRounds).toBeGreaterThanOrEqual(3);
	expect([...emitted].sort()).toEqual([...expectedEvents(target, Math.floor(activatedAt / 1000) * 1000).keys()].sort());
});
