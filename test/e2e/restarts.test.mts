// Exactly-once across restarts of a real n8n: two published workflows (Ollang Trigger on order delivery events,
// and on finished memory import jobs) in `n8n start`, which is stopped with SIGTERM or SIGKILL at random moments
// (also in the middle of a poll, and once before anything was ever emitted) while the sandbox's clock delivers
// orders and finishes import jobs, and started again. Run in both of n8n's persistence modes: the default one
// (static data saved when a poll emits and after activation) and durable poll cursors (with the durable scheduler
// they need). Every event and job is counted from n8n's own execution records: missed and duplicated must be 0.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { N8N_VERSION, readExecutions, readWorkflowStaticData, signIn, type RunningN8n } from '../../scripts/n8n/runtime.mjs';
import { EVERY_DELIVERY_EVENT, N8nUserFolder, POLL_EVERY_MINUTE, pollTriggerWorkflow, PERSISTENCE_ENV, SandboxClient, tally, testCredentials, type PersistenceMode, triggerItems, waitFor } from './harness.mts';

type Json = Record<string, unknown>;
type Mode = PersistenceMode;
const SEEDS: Record<Mode, number> = { default: 101, durable: 202 };
/** Starts of n8n after the first, each ended by a stop (the last one runs until everything is counted). */
const CYCLES = 5;
/** Added to every sandbox request, so a poll lasts long enough to be killed in the middle. */
const LATENCY_MS = 250;
/**
 * Once a minute, not the other files' three times (POLL_TIMES): with polls 20 s apart, under npm test's heaviest
 * load (its first stage, 2026-11-27), the default mode's n8n emitted 27 of 78 events and 0 of 8 jobs (seed 101), as
 * once before with one-minute polls and four n8n instances at once; it passed alone, and beside four busy loops.
 * Not yet traced (docs/TESTING.md); this file keeps the cadence it has always passed with in npm test
 * (POLL_EVERY_MINUTE).
 */
const ORDERS_NODE = 'On delivery event';
const JOBS_NODE = 'On import job finished';

/** mulberry32: a seeded schedule, printed, so a failing run can be replayed. */
function seededRandom(seed: number) {
	let state = seed >>> 0;
	const next = () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) };
}

async function runMode(mode: Mode) {
	const random = seededRandom(SEEDS[mode]);
	const sandbox = await SandboxClient.start();
	const n8n = N8nUserFolder.create(`restarts-${mode}`);
	let server: RunningN8n | undefined;
	const stops = { SIGTERM: 0, SIGKILL: 0, midPoll: 0, failedStarts: 0 };
	try {
		await sandbox.admin('PUT', 'latency', { ms: LATENCY_MS });
		// Import jobs of different sizes (some failing), started before activation and ending while n8n runs or is down.
		const memory = await sandbox.call<{ id: string }>('POST', '/integration/memories', { body: { title: `Restarts ${mode}` } });
		const jobIds: string[] = [];
		for (let index = 0; index < 8; index++) {
			const units = Array.from({ length: random.int(50, 900) }, (_, unit) => ({
				sourceLanguage: 'en',
				targetLanguage: 'de',
				sourceText: `restart ${mode} job ${index} unit ${unit}${index % 4 === 3 && unit === 0 ? ' __FAIL_IMPORT__' : ''}`,
				targetText: `Einheit ${unit}`,
			}));
			const answer = await sandbox.call<{ jobId: string }>('POST', `/integration/memories/${memory.body.id}/items/import`, { body: { items: units } });
			assert.equal(answer.status, 201, JSON.stringify(answer.body));
			jobIds.push(answer.body.jobId);
		}
		const orders = pollTriggerWorkflow(`RestartOrders${mode === 'default' ? 'Df' : 'Du'}`, `Restarts ${mode}: orders`, ORDERS_NODE, {
			pollTimes: POLL_EVERY_MINUTE,
			// Every watched order is read on every poll: a re-delivery is found by the next poll.
			...EVERY_DELIVERY_EVENT,
		});
		const jobs = pollTriggerWorkflow(`RestartJobs${mode === 'default' ? 'Dfx' : 'Dux'}`, `Restarts ${mode}: import jobs`, JOBS_NODE, {
			pollTimes: POLL_EVERY_MINUTE,
			event: 'importJobFinished',
			jobIds: jobIds.map((jobId) => `${memory.body.id}:${jobId}`).join(','),
			includeFailed: true,
		});
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		await n8n.importWorkflows([orders, jobs]);
		await n8n.publish(orders.id);
		await n8n.publish(jobs.id);

		/** Requests to the order listing so far: a new one means a poll of the order trigger began. */
		const listings = async () => (await sandbox.requests()).filter((request) => request.path === '/integration/orders').length;
		const start = async () => {
			// As a service manager does: n8n that exits while starting is started again. (n8n 2.41 can exit once while
			// recovering an execution cut by SIGKILL; its next start marks that execution crashed and goes on.)
			for (let attempt = 1; ; attempt++) {
				try {
					server = await n8n.start(PERSISTENCE_ENV[mode]);
					return;
				} catch (error) {
					const message = (error as Error).message;
					if (attempt === 3 || !message.startsWith('n8n exited while starting')) throw error;
					stops.failedStarts++;
					console.log(`restarts e2e (n8n ${N8N_VERSION}, ${mode}): n8n exited while starting, started again. ${message.slice(-1500)}`);
				}
			}
		};
		const stop = async (signal: 'SIGTERM' | 'SIGKILL') => {
			const running = server!;
			server = undefined;
			stops[signal]++;
			const exited = new Promise((resolve) => running.child.once('exit', resolve));
			if (running.child.exitCode === null && running.child.signalCode === null) {
				// SIGTERM to n8n itself (as a service manager sends it); SIGKILL to its whole group (a machine lost).
				if (signal === 'SIGTERM') process.kill(running.child.pid!, 'SIGTERM');
				else process.kill(-running.child.pid!, 'SIGKILL');
				await Promise.race([exited, sleep(60_000)]);
			}
			await running.stop();
		};
		/** Orders that the clock will AI-deliver, and re-deliveries of orders already delivered. */
		const makeEvents = async () => {
			await sandbox.admin('POST', 'orders', { count: random.int(1, 3), type: 'subtitle', level: random.int(0, 1) });
			const delivered = (await sandbox.getAllPages<Json>('/integration/orders', { 'filter[status]': 'delivered' })).slice(0, 40);
			if (delivered.length > 0 && random.next() < 0.6) {
				await sandbox.admin('POST', `orders/${String(delivered[random.int(0, delivered.length - 1)].id)}/events`, { type: 'order_delivered' });
			}
			await sandbox.advanceClock(random.int(10, 40));
		};

		// Activation. Nothing happens until n8n has saved the baselines its activation polls recorded: before that,
		// nothing of the activation survives a restart (n8n 1.x runs the activation polls one workflow after the
		// other while it starts, taking seconds; a stop in the middle of that makes the next start a first activation).
		const activatedAt = Math.floor((await sandbox.now()).getTime() / 1000) * 1000;
		await sandbox.clearRequests();
		await start();
		const activationCookie = await signIn(server!.url);
		await waitFor(
			'n8n to save both baselines',
			async () => {
				for (const workflowId of [orders.id, jobs.id]) {
					const staticData = await readWorkflowStaticData(server!.url, activationCookie, workflowId);
					if (!JSON.stringify(staticData.global ?? {}).includes('ollangTriggerBaseline:')) return false;
				}
				return true;
			},
			{ timeoutMs: 180_000, intervalMs: 500 },
		);
		// n8n stops before anything was ever emitted; orders are delivered and jobs end while it is down.
		await stop(random.next() < 0.5 ? 'SIGTERM' : 'SIGKILL');
		await sandbox.advanceClock(1);
		await makeEvents();

		for (let cycle = 0; cycle < CYCLES; cycle++) {
			await start();
			const kind = cycle % 3;
			if (kind === 0) {
				// In the middle of a poll: as soon as a new listing begins, after up to a second.
				const before = await listings();
				await makeEvents();
				await waitFor('a poll to begin', async () => (await listings()) > before, { timeoutMs: 150_000, intervalMs: 100 });
				await sleep(random.int(0, 1000));
				stops.midPoll++;
				await stop('SIGKILL');
			} else {
				// At a random moment of the minute between polls, events coming in meanwhile.
				await makeEvents();
				await sleep(random.int(5_000, 70_000));
				await stop(kind === 1 ? 'SIGTERM' : 'SIGKILL');
			}
			await makeEvents();
		}

		// Last start: n8n runs until every event and job has an execution (or the time is up), then it is counted.
		await start();
		const cookie = await signIn(server!.url);
		const expectedEvents = () => sandbox.deliveryEventIdsAfter(activatedAt);
		const endedJobs = async () => {
			const ended: string[] = [];
			for (const jobId of jobIds) {
				const job = await sandbox.get<{ status: string }>(`/integration/memories/import-jobs/${jobId}`);
				if (job.status === 'completed' || job.status === 'failed') ended.push(jobId);
			}
			return ended.sort();
		};
		/** Where each id was emitted: execution id and start, so a duplicate can be traced to its executions. */
		const carriers = new Map<string, string[]>();
		/** Executions by status per trigger, as last read: an error execution is a poll that failed. */
		const statuses: Record<string, Record<string, number>> = {};
		const emitted = async (workflowId: string, nodeName: string, field: string) => {
			const executions = await readExecutions(server!.url, cookie, workflowId, { limit: 1000 });
			const byStatus: Record<string, number> = {};
			for (const execution of executions) byStatus[String(execution.status)] = (byStatus[String(execution.status)] ?? 0) + 1;
			statuses[nodeName] = byStatus;
			return executions.flatMap((execution) =>
				triggerItems(execution, nodeName).map((item) => {
					const id = String(item[field]);
					const carrier = `execution ${String(execution.id)} (${String(execution.startedAt)}, ${String(execution.status)})`;
					carriers.set(id, [...new Set([...(carriers.get(id) ?? []), carrier])]);
					return id;
				}),
			);
		};
		// Let the jobs still running end, so each is counted once it has.
		await sandbox.advanceClock(180);
		const expected = { events: await expectedEvents(), jobs: await endedJobs() };
		let counted = { events: tally(expected.events, []), jobs: tally(expected.jobs, []) };
		await waitFor(
			'executions for every event and job',
			async () => {
				counted = {
					events: tally(expected.events, await emitted(orders.id, ORDERS_NODE, 'eventId')),
					jobs: tally(expected.jobs, await emitted(jobs.id, JOBS_NODE, 'jobId')),
				};
				return counted.events.missed.length + counted.jobs.missed.length === 0;
			},
			{ timeoutMs: 200_000, intervalMs: 5_000 },
		).catch(() => undefined);
		// A poll more: anything emitted twice would show now.
		const polled = await listings();
		await waitFor('one more poll', async () => (await listings()) > polled, { timeoutMs: 150_000, intervalMs: 1000 });
		await sleep(5_000);
		counted = {
			events: tally(expected.events, await emitted(orders.id, ORDERS_NODE, 'eventId')),
			jobs: tally(expected.jobs, await emitted(jobs.id, JOBS_NODE, 'jobId')),
		};
		const traced = [...counted.events.duplicated, ...counted.events.unexpected, ...counted.jobs.duplicated, ...counted.jobs.unexpected].map((entry) => {
			const id = entry.split(' ')[0];
			return `${entry}: ${(carriers.get(id) ?? []).join('; ')}`;
		});
		// Polls that found a poll of the same trigger (n8n's durable scheduler runs one leased again after a restart
		// beside the next) already emitted from a newer state, and stood down: the log line the trigger writes then.
		const standDowns = n8n.serverLog.filter((line) => line.includes('this poll, started from an older state, stands down')).length;
		// What n8n said about activations, failures and the trigger: printed with a miss, to trace it from CI's output.
		const clues = n8n.serverLog.filter((line) => /error|activat|Ollang Trigger/i.test(line)).slice(-60);
		return { stops, counted, traced, standDowns, statuses, clues };
	} finally {
		if (server) await (server as RunningN8n).stop();
		// For a failing run: n8n's own output of every start, where OLLANG_E2E_LOG_DIR asks for it.
		if (process.env.OLLANG_E2E_LOG_DIR) {
			mkdirSync(process.env.OLLANG_E2E_LOG_DIR, { recursive: true });
			writeFileSync(path.join(process.env.OLLANG_E2E_LOG_DIR, `restarts-${N8N_VERSION}-${mode}.log`), n8n.serverLog.join('\n'));
		}
		await sandbox.stop();
		n8n.remove();
	}
}

describe('the Ollang Trigger across n8n restarts (SIGTERM, SIGKILL, mid-poll)', { timeout: 40 * 60_000, concurrency: true }, () => {
	const outcomes: string[] = [];
	after(() => {
		for (const line of outcomes) console.log(line);
	});

	// Durable poll cursors exist from n8n 2.40 on.
	// OLLANG_E2E_RESTART_MODES=durable (a comma list) runs some of the modes, to repeat one while tracing it.
	const only = process.env.OLLANG_E2E_RESTART_MODES?.split(',');
	const modes = (N8N_VERSION.startsWith('1.') ? ['default'] : ['default', 'durable']).filter(
		(mode) => !only || only.includes(mode),
	) as Mode[];
	for (const mode of modes) {
		it(`${mode} persistence: every delivery event and finished job exactly once`, async () => {
			const { stops, counted, traced, standDowns, statuses, clues } = await runMode(mode);
			const missed = counted.events.missed.length + counted.jobs.missed.length > 0;
			const line =
				`restarts e2e (n8n ${N8N_VERSION}, ${mode} persistence, seed ${SEEDS[mode]}): stops SIGTERM ${stops.SIGTERM}, SIGKILL ${stops.SIGKILL} ` +
				`(mid-poll ${stops.midPoll}), starts repeated after n8n exited while starting ${stops.failedStarts}; delivery events expected ${counted.events.expected}, emitted ${counted.events.emitted}, ` +
				`missed ${counted.events.missed.length}, duplicated ${counted.events.duplicated.length}, unexpected ${counted.events.unexpected.length}; import jobs expected ` +
				`${counted.jobs.expected}, emitted ${counted.jobs.emitted}, missed ${counted.jobs.missed.length}, duplicated ${counted.jobs.duplicated.length}, unexpected ${counted.jobs.unexpected.length}; ` +
				`overlapping polls stood down ${standDowns}; executions by status ${JSON.stringify(statuses)}` +
				(traced.length > 0 ? `\n  repeats: ${traced.join('\n  ')}` : '') +
				(missed ? `\n  n8n's log (activation, errors, the trigger's notes):\n  ${clues.join('\n  ')}` : '');
			outcomes.push(line);
			console.log(line);
			assert.deepEqual({ events: counted.events.missed, jobs: counted.jobs.missed }, { events: [], jobs: [] }, 'missed');
			assert.deepEqual({ events: counted.events.duplicated, jobs: counted.jobs.duplicated }, { events: [], jobs: [] }, 'duplicated');
			assert.deepEqual({ events: counted.events.unexpected, jobs: counted.jobs.unexpected }, { events: [], jobs: [] }, 'unexpected');
			assert.ok(counted.events.expected >= 10, `only ${counted.events.expected} events happened`);
			assert.ok(counted.jobs.expected >= 4, `only ${counted.jobs.expected} jobs ended`);
			assert.ok(stops.SIGTERM >= 1 && stops.SIGKILL >= 2 && stops.midPoll >= 1, JSON.stringify(stops));
		});
	}
});
