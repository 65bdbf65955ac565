// Generated schedules for the Ollang Callback Trigger in-process (test/trigger/callbackSchedule.cts says what one
// schedule is): the sandbox's real callbacks through n8n-core's WebhookContext, the trigger's sweep on n8n-core's
// TriggerContext, and the executions they start through WorkflowExecute (test/harness/webhook.cts); a restart is the
// node's module loaded afresh with n8n's store and the workflow's static data kept (its sweep at activation runs),
// n8n down is the main's server closed (connections refused), and a second process is a webhook process (another
// module instance sharing that store). Invariant, on the sandbox's records: each real completion emitted exactly
// once (by push or by the sweep, after a last sweep), nothing else emitted, every well-formed callback a running
// trigger received answered 200, forged callbacks' reads within the trigger's bound.
import fc from 'fast-check';
import { dirname } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../../sandbox/index.cts';
import { REFUSED_READS_PER_MINUTE } from '../../nodes/OllangCallbackTrigger/readBudget';
import { SWEEP_HANDOVER_WAIT_MS } from '../../nodes/shared/waits';
import { createWebhookReceiver, type WebhookReceiver } from '../harness/webhook.cts';
import { Container } from '../harness/runtime.cts';
import { call } from '../sandbox/helpers.cts';
import { runSchedule, scheduleArbitrary, violations, type ScheduleReceiver, type ScheduleWorld } from './callbackSchedule.cts';

/** `npm test` runs this many schedules; OLLANG_CALLBACK_SCHEDULES=2000 for the long run. */
const RUNS = Number(process.env.OLLANG_CALLBACK_SCHEDULES ?? 120);
/** Fixed, so CI replays the same schedules; OLLANG_CALLBACK_SEED (and OLLANG_CALLBACK_PATH) draw others or replay a failure. */
const SEED = Number(process.env.OLLANG_CALLBACK_SEED ?? 35);
/**
 * The sweep watches orders created within a day; each schedule starts a simulated day after the last, so its sweeps
 * see its own orders only: every sweep re-reads each of them (fewer than the poll's checks per sweep), and what a
 * schedule emits is its own completions. (With more watched orders, a completion that changes no listed field, a
 * rerun's or a QC evaluation's, is found within ceil(watched / 10) sweeps: test/trigger/callback.test.cts.)
 */
const LOOKBACK_DAYS = 1;

let sandbox: Sandbox;
const open: WebhookReceiver[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ quiet: true, seed: 35, callbacks: { allowLoopback: true, repeatProbability: 0 } });
	// The sandbox records each completion's callback (its real body) and sends none: the schedule delivers them.
	sandbox.callbacks.settings.dropNext = 1_000_000;
	// The seeded orders' own life (completions, QC evaluations) out of the sweep's window.
	sandbox.clock.advance(LOOKBACK_DAYS * 24 * 60 + 60);
	// The node's warnings would fill the output; this test reads the sandbox's records, not n8n's log.
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [dirname(require.resolve('n8n-core'))] })) as { Logger: new (...args: never[]) => object };
	const logger = Container.get(Logger as never) as Record<string, unknown>;
	for (const level of ['warn', 'info']) logger[level] = () => undefined;
});
afterAll(async () => {
	await Promise.all(open.splice(0).map((receiver) => receiver.close()));
	await sandbox.close();
});

/** The main (its sweep's loop every hour: the schedule sweeps when it says), or a webhook process beside it. */
async function receiver(restartOf?: WebhookReceiver, role: 'main' | 'webhook' = 'main'): Promise<WebhookReceiver> {
	const created = await createWebhookReceiver({
		parameters: { events: ['orderCompleted', 'qcEvaluationCompleted'], options: { sweepMinutes: 60, sweepLookbackDays: LOOKBACK_DAYS } },
		credentials: { baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.owner },
		restartOf,
		role,
	});
	open.push(created);
	return created;
}

const roles = new WeakMap<WebhookReceiver, 'main' | 'webhook'>();

const asScheduleReceiver = (created: WebhookReceiver, role: 'main' | 'webhook' = 'main'): ScheduleReceiver & { harness: WebhookReceiver } => {
	roles.set(created, role);
	const emitted = async () => {
		// Every execution it started has ended (the sweep's at activation among them, and those n8n ran late).
		await created.settled();
		return created.emissions.flat();
	};
	return { harness: created, url: created.url, emitted };
};
const harnessOf = (running: ScheduleReceiver) => (running as ReturnType<typeof asScheduleReceiver>).harness;

let sweeps = 0;
/** When the main's last drawn sweep ran: n8n's sweeps are a sweep interval apart (minutes), longer than the hand-over wait. */
let lastSweepAt = 0;
let outages = 0;
/** Sweeps whose execution n8n lost, by how (test/harness/webhook.cts EmissionLoss). */
const lostSweeps = { refused: 0, dropped: 0, late: 0 };

async function accepted(method: string, path: string, body: IDataObject): Promise<void> {
	const answer = await call(sandbox, method, path, { body });
	if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
}

const world: ScheduleWorld = {
	readsPerMinute: REFUSED_READS_PER_MINUTE,
	async receivers(processes) {
		// A schedule starts a simulated day after the last one's orders.
		sandbox.clock.advance(LOOKBACK_DAYS * 24 * 60);
		const first = await receiver();
		return processes === 1 ? [asScheduleReceiver(first)] : [asScheduleReceiver(first), asScheduleReceiver(await receiver(first, 'webhook'), 'webhook')];
	},
	async restart(running) {
		const harness = harnessOf(running);
		const role = roles.get(harness) ?? 'main';
		await harness.close();
		return asScheduleReceiver(await receiver(harness, role), role);
	},
	async stop(running) {
		outages++;
		await harnessOf(running).close();
	},
	async sweep(main, lose) {
		sweeps++;
		if (lose !== undefined) lostSweeps[lose]++;
		// Two sweeps never come closer than a completion's hand-over wait (a minute against at least a minute between
		// sweeps in n8n): what one handed over and n8n lost is due again at the next.
		const early = lastSweepAt + SWEEP_HANDOVER_WAIT_MS - Date.now();
		if (early > 0) await new Promise((resolve) => setTimeout(resolve, early));
		await harnessOf(main).sweep(lose);
		lastSweepAt = Date.now();
	},
	async createOrders(count) {
		const answer = await call(sandbox, 'POST', '/integration/orders/create', {
			body: {
				orderType: 'document',
				level: 0,
				projectId: sandbox.fixtures.projects.writable,
				targetLanguageConfigs: ['de', 'fr'].slice(0, count).map((language) => ({ language })),
				callbackUrl: 'https://receiver.example/ollang-callback',
			},
		});
		return (answer.body as Array<{ orderId: string }>).map((row) => row.orderId);
	},
	rerun: async (orderId) => await accepted('POST', `/integration/orders/${orderId}/rerun`, {}),
	requestQc: async (orderId) => await accepted('POST', `/integration/orders/${orderId}/qc`, { callbackUrl: 'https://receiver.example/qc' }),
	async advanceUntil(orderIds, count) {
		const ours = () => sandbox.callbacks.list().filter((delivery) => orderIds.includes(delivery.orderId));
		for (let minute = 0; minute < 60 && ours().length < count; minute++) sandbox.clock.advance(1);
		if (ours().length < count) throw new Error(`the sandbox did not make ${count} callbacks within a simulated hour`);
		return ours();
	},
	failReads: async (times) => {
		sandbox.faults.add({ kind: 'status', status: 503, retryAfterSeconds: 0, method: 'GET', path: '/integration/orders/:orderId', times });
	},
	clearFaults: async () => {
		sandbox.faults.clear();
	},
	orderReads: async () => sandbox.requests.count({ method: 'GET', path: '/integration/orders/:orderId' }),
	async post(url, bodies) {
		const statuses: number[] = [];
		for (let index = 0; index < bodies.length; index += 20) {
			statuses.push(
				...(await Promise.all(
					bodies.slice(index, index + 20).map(async (body) => {
						try {
							const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
							await response.text();
							return response.status;
						} catch {
							// n8n down: the connection refused.
							return 0;
						}
					}),
				)),
			);
		}
		await Promise.all(open.map(async (each) => await each.idle()));
		return statuses;
	},
};

describe('Ollang Callback Trigger: generated delivery schedules', () => {
	it(`each real completion emitted once (push or sweep), nothing else, every callback answered 200, forged reads within the bound (${RUNS} schedules)`, async () => {
		let runs = 0;
		let failed = 0;
		const started = performance.now();
		const totals = { expected: 0, byPush: 0, bySweep: 0, givenUp: 0 };
		const result = await fc.check(
			fc.asyncProperty(scheduleArbitrary, async (drawn) => {
				runs++;
				const record = await runSchedule(world, drawn);
				const found = violations(record, REFUSED_READS_PER_MINUTE);
				await Promise.all(open.splice(0).map((each) => each.close()));
				totals.expected += record.expected.length;
				totals.byPush += record.emitted.filter((item) => item.arrivedBy === 'push').length;
				totals.bySweep += record.emitted.filter((item) => item.arrivedBy === 'sweep').length;
				totals.givenUp += record.unanswered;
				if (found.length > 0) failed++;
				if (found.length > 0) throw new Error(found.join('; '));
			}),
			{ numRuns: RUNS, seed: SEED, path: process.env.OLLANG_CALLBACK_PATH },
		);
		console.log(
			`callback trigger: schedules ${runs.toLocaleString('en')} (shrinking included), violations ${failed}; seed ${result.seed}${result.failed ? `, path ${result.counterexamplePath}` : ''}; ` +
				`completions ${totals.expected}: emitted by push ${totals.byPush}, by the sweep ${totals.bySweep} (deliveries the API gave up on ${totals.givenUp}); sweeps ${sweeps} (their execution lost: refused ${lostSweeps.refused}, dropped ${lostSweeps.dropped}, run late ${lostSweeps.late}), outages ${outages}; ${((performance.now() - started) / 1000).toFixed(1)} s`,
		);
		if (result.failed) {
			throw new Error(
				`seed ${result.seed}, path ${result.counterexamplePath}: ${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}\n` +
					`shrunk schedule: ${JSON.stringify(result.counterexample?.[0])}`,
			);
		}
	}, 600_000);
});
