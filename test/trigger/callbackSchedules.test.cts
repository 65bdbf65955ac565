// Generated schedules for the Ollang Callback Trigger in-process (test/trigger/callbackSchedule.cts says what one
// schedule is): the sandbox's real callbacks through n8n-core's WebhookContext and the started execution through
// WorkflowExecute (test/harness/webhook.cts); a restart is the node's module loaded afresh with n8n's store kept, and
// two webhook processes are two module instances sharing that store. Invariant, on the sandbox's records: each real
// completion emitted exactly once, nothing else emitted, the confirming reads within the trigger's bound.
import fc from 'fast-check';
import { dirname } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../../sandbox/index.cts';
import { READS_PER_MINUTE } from '../../nodes/OllangCallbackTrigger/admission';
import { createWebhookReceiver, type WebhookReceiver } from '../harness/webhook.cts';
import { Container } from '../harness/runtime.cts';
import { call } from '../sandbox/helpers.cts';
import { runSchedule, scheduleArbitrary, violations, type ScheduleReceiver, type ScheduleWorld } from './callbackSchedule.cts';

/** `npm test` runs this many schedules; OLLANG_CALLBACK_SCHEDULES=2000 for the long run. */
const RUNS = Number(process.env.OLLANG_CALLBACK_SCHEDULES ?? 80);
/** Fixed, so CI replays the same schedules; OLLANG_CALLBACK_SEED (and OLLANG_CALLBACK_PATH) draw others or replay a failure. */
const SEED = Number(process.env.OLLANG_CALLBACK_SEED ?? 35);

let sandbox: Sandbox;
const open: WebhookReceiver[] = [];

beforeAll(async () => {
	sandbox = await startSandbox({ quiet: true, seed: 35, callbacks: { allowLoopback: true, repeatProbability: 0 } });
	// The sandbox records each completion's callback (its real body) and sends none: the schedule delivers them.
	sandbox.callbacks.settings.dropNext = 1_000_000;
	// The node's warnings would fill the output; this test reads the sandbox's records, not n8n's log.
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [dirname(require.resolve('n8n-core'))] })) as { Logger: new (...args: never[]) => object };
	const logger = Container.get(Logger as never) as Record<string, unknown>;
	for (const level of ['warn', 'info']) logger[level] = () => undefined;
});
afterAll(async () => {
	await Promise.all(open.splice(0).map((receiver) => receiver.close()));
	await sandbox.close();
});

async function receiver(restartOf?: WebhookReceiver): Promise<WebhookReceiver> {
	const created = await createWebhookReceiver({
		parameters: { events: ['orderCompleted', 'qcEvaluationCompleted'] },
		credentials: { baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.owner },
		restartOf,
	});
	open.push(created);
	return created;
}

const asScheduleReceiver = (created: WebhookReceiver): ScheduleReceiver & { harness: WebhookReceiver } => ({
	harness: created,
	url: created.url,
	emitted: async () => created.emissions.flat(),
});

async function accepted(method: string, path: string, body: IDataObject): Promise<void> {
	const answer = await call(sandbox, method, path, { body });
	if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
}

const world: ScheduleWorld = {
	readsPerMinute: READS_PER_MINUTE,
	async receivers(processes) {
		const first = await receiver();
		return processes === 1 ? [asScheduleReceiver(first)] : [asScheduleReceiver(first), asScheduleReceiver(await receiver(first))];
	},
	async restart(running) {
		return asScheduleReceiver(await receiver((running as ReturnType<typeof asScheduleReceiver>).harness));
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
						const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
						await response.text();
						return response.status;
					}),
				)),
			);
		}
		return statuses;
	},
};

describe('Ollang Callback Trigger: generated delivery schedules', () => {
	it(`each real completion emitted once, nothing else, reads within the bound (${RUNS} schedules)`, async () => {
		let runs = 0;
		let failed = 0;
		const result = await fc.check(
			fc.asyncProperty(scheduleArbitrary, async (drawn) => {
				runs++;
				const found = violations(await runSchedule(world, drawn), READS_PER_MINUTE);
				await Promise.all(open.splice(0).map((each) => each.close()));
				if (found.length > 0) failed++;
				if (found.length > 0) throw new Error(found.join('; '));
			}),
			{ numRuns: RUNS, seed: SEED, path: process.env.OLLANG_CALLBACK_PATH },
		);
		console.log(`callback trigger: schedules ${runs.toLocaleString('en')} (shrinking included), violations ${failed}; seed ${result.seed}${result.failed ? `, path ${result.counterexamplePath}` : ''}`);
		if (result.failed) {
			throw new Error(
				`seed ${result.seed}, path ${result.counterexamplePath}: ${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}\n` +
					`shrunk schedule: ${JSON.stringify(result.counterexample?.[0])}`,
			);
		}
	}, 600_000);
});
