// QC Evaluation Finished: the real Ollang Trigger through n8n-core's PollContext against the sandbox over HTTP.
// A QC evaluation is requested with the API (POST /integration/orders/{id}/qc, as Order > Run QC Evaluation does);
// the sandbox finishes it a few simulated minutes later. Each finished evaluation must come out once, with its
// results; history (requested before activation) never; across restarts in both persistence modes, exactly once.
import type { IDataObject } from 'n8n-workflow';
import type { Sandbox } from '../../sandbox/index.cts';
import type { PersistenceMode, PollRunner } from '../harness/poll.cts';
import { ScheduleRandom, call, itemsOf, orderEventParameters, triggerRunner, useSandbox, watchedOrderIds } from './helpers.cts';

const sandbox = useSandbox({ seed: 91 });

const qcParameters = (overrides: IDataObject = {}) =>
	orderEventParameters({ event: 'qcEvaluationFinished', eventTypes: [], options: { recheckPerPoll: 10 }, ...overrides });

/** A fresh completed order (eligible for QC) that the clock leaves where it is. */
function completedOrder(target: Sandbox): string {
	return target.simulate.createOrders(1, { type: 'subtitle', level: 0, status: 'completed', progress: false })[0].id;
}

async function requestQc(target: Sandbox, orderId: string): Promise<string> {
	const answer = await call(target, 'POST', `/integration/orders/${orderId}/qc`, { body: {} });
	expect(answer.status).toBe(200);
	return String(answer.body.evalId);
}

/** Polls until the background checks have re-read every watched order once (the clock still). */
async function drain(runner: PollRunner): Promise<IDataObject[]> {
	const items: IDataObject[] = [];
	for (let round = Math.ceil(watchedOrderIds(runner).length / 10) + 1; round >= 0; round--) items.push(...itemsOf(await runner.poll()));
	return items;
}

it('emits a finished evaluation once, with its results, and a later evaluation of the same order again', async () => {
	const target = sandbox();
	const orderId = completedOrder(target);
	// This order only: other orders of the sandbox run QC evaluations of their own.
	const runner = triggerRunner(target, qcParameters({ watch: 'orderIds', orderIds: orderId }));
	expect(await runner.poll()).toBeNull();
	// Requested after the baseline (in the same second it would be history).
	target.clock.advance(1);

	const first = await requestQc(target, orderId);
	target.clock.advance(1);
	// Still loading: nothing yet, and the order is read on every poll until it finishes.
	expect(itemsOf(await runner.poll())).toEqual([]);
	target.clock.advance(10);
	const items = itemsOf(await runner.poll());
	expect(items).toHaveLength(1);
	const evaluation = target.state.orders.get(orderId)!.latestEvaluation!;
	expect(items[0]).toMatchObject({
		eventId: `${orderId}:qc:${first}`,
		type: 'qc_evaluation_finished',
		evaluationId: first,
		orderId,
		requestedAt: evaluation.createdAt,
		textSummary: evaluation.textSummary,
		scores: evaluation.scores,
		segmentEvals: evaluation.segmentEvals,
	});
	expect((items[0].order as IDataObject).id).toBe(orderId);
	expect(await drain(runner)).toEqual([]);

	const second = await requestQc(target, orderId);
	target.clock.advance(10);
	const later = await drain(runner);
	expect(later.map((item) => item.evaluationId)).toEqual([second]);
});

it('treats evaluations requested before activation as history, unless existing ones are asked for', async () => {
	const target = sandbox();
	const finishedBefore = completedOrder(target);
	const runningAtActivation = completedOrder(target);
	const finishedEval = await requestQc(target, finishedBefore);
	target.clock.advance(10);
	await requestQc(target, runningAtActivation);
	target.clock.advance(1);

	const runner = triggerRunner(target, qcParameters());
	expect(await runner.poll()).toBeNull();
	target.clock.advance(10);
	expect(await drain(runner)).toEqual([]);

	const withExisting = triggerRunner(target, qcParameters({ options: { recheckPerPoll: 10, emitExisting: true } }), { nodeName: 'With Existing' });
	const emitted = [...itemsOf(await withExisting.poll()), ...(await drain(withExisting))];
	expect(emitted.map((item) => item.eventId)).toContain(`${finishedBefore}:qc:${finishedEval}`);
	expect(new Set(emitted.map((item) => item.eventId)).size).toBe(emitted.length);
});

describe.each<[PersistenceMode, number]>([
	['default', 3101],
	['durable', 3102],
])('QC evaluations across restarts with %s persistence', (persistence, seed) => {
	it('emits every evaluation finished after activation exactly once', async () => {
		const random = new ScheduleRandom(seed);
		const target = sandbox();
		const activatedAt = target.clock.now().getTime();
		const runner = triggerRunner(target, qcParameters(), { persistence, nodeName: `QC ${persistence}` });
		const emittedItems: IDataObject[] = [];
		const requested: string[] = [];
		const poll = async () => emittedItems.push(...itemsOf(await runner.poll()));
		await poll();
		target.clock.advance(1);
		let restarts = 0;
		for (let step = 0; step < 40; step++) {
			// Each order gets one evaluation here (the API shows only an order's latest one).
			for (let index = random.int(0, 2); index > 0; index--) {
				const orderId = completedOrder(target);
				requested.push(`${orderId}:qc:${await requestQc(target, orderId)}`);
			}
			target.clock.advance(random.int(1, 8));
			if (random.chance(0.25)) {
				restarts++;
				runner.restart();
				target.clock.advance(random.int(1, 10));
			}
			await poll();
		}
		target.clock.advance(30);
		emittedItems.push(...(await drain(runner)));
		const emitted = emittedItems.map((item) => String(item.eventId));
		// Expected: every order's latest evaluation that finished and was requested after activation; the sandbox's own
		// orders run evaluations too (automatic QC), besides the ones requested here.
		const expected = [...target.state.orders.values()]
			.filter((order) => order.latestEvaluation && !order.latestEvaluation.isLoading && Date.parse(order.latestEvaluation.createdAt) > activatedAt)
			.map((order) => `${order.id}:qc:${order.latestEvaluation!.id}`);
		console.log(
			`QC evaluations (${persistence} persistence, seed ${seed}): ${restarts} restarts; evaluations expected ${expected.length} ` +
				`(${requested.length} requested by the test), emitted ${new Set(emitted).size}, duplicated ${emitted.length - new Set(emitted).size}, ` +
				`missed ${expected.filter((id) => !emitted.includes(id)).length}`,
		);
		expect(restarts).toBeGreaterThanOrEqual(5);
		expect(requested.length).toBeGreaterThanOrEqual(20);
		expect(new Set(emitted).size).toBe(emitted.length);
		expect(expected.filter((id) => !emitted.includes(id))).toEqual([]);
		for (const id of requested) expect(emitted).toContain(id);
		// Nothing from before activation (an evaluation an order later replaced may have been emitted, once).
		for (const item of emittedItems) expect(Date.parse(String(item.requestedAt))).toBeGreaterThan(activatedAt);
	}, 120_000);
});
