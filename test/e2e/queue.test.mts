// The package in n8n's queue mode: a private PostgreSQL and Redis (scripts/n8n/services.mjs), `n8n start` as the
// main process and two `n8n worker` processes on one user folder where the packed package is installed as a user
// installs it, one encryption key, binary data in the database (queue mode's default). The resource workflows run
// as production executions (a Webhook in front of their steps), so they go through Redis to a worker: each
// execution is matched to the worker that logged it. The XLSX a worker exported is read back through the main's
// REST API (another process). n8n's Retry of a failed execution runs on a worker, each order evaluated once.
// One Idempotency Key sent by two executions at once, 20 keys, the workers at concurrency 1 while one of them at a
// time is stopped at random (SIGSTOP to its process group for 0.3-3 s, a seeded schedule printed with its seed):
// each key applied exactly once on the sandbox's ledger (none twice, none missing), and the execution that did not
// send returns alreadyApplied with the sender's evalId. Then the Ollang Trigger on the main, with a worker killed
// while executions run and started again: every delivery event exactly once. Then the Ollang Callback Trigger: the
// main receives the sandbox's callbacks, the workers run the executions (each completion once), and a repeat that
// reaches the main after a restart is dropped by the trigger's first step on a worker (n8n's deduplication store, in
// PostgreSQL). And with two `n8n webhook` processes taking the callbacks (as behind a load balancer): a burst of
// 200 callbacks sent at once, 100 to each, every completion emitted exactly once by an execution on a worker (what
// n8n answers 5xx or too late the sandbox tries again, as the API does), and a sample sent again to the other
// process is dropped. And Order > Create and Wait: the execution waits, its orders' callbacks reach the main (then a
// webhook process), it resumes on a worker.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { REPO_ROOT, activateWorkflow, callProductionWebhook, createWorkflow, readExecutionSummaries, readExecutions, restRequest, signIn, startN8nWebhook, startN8nWorker, type N8nExecution, type RunningN8n, type RunningWebhook, type RunningWorker } from '../../scripts/n8n/runtime.mjs';
import { QUEUE_WEBHOOK_PROCESSES, QUEUE_WORKERS, WEBHOOK_PROCESS_SETTINGS, startQueueServices, workerOfExecution, type RunningQueueServices } from '../../scripts/n8n/queue-mode.mjs';
import {
	byId,
	EVERY_DELIVERY_EVENT,
	N8nUserFolder,
	ollang,
	OLLANG_NODE,
	pollTriggerWorkflow,
	readFirstSheet,
	SandboxClient,
	stepsWorkflow,
	testCredentials,
	triggerItems,
	waitFor,
	type WorkflowJson,
} from './harness.mts';
import { asWebhookWorkflow, everyOperationWorkflows, itemsWorkflow } from './workflows.mts';
import { createAndWaitInQueueMode } from './createAndWait.mts';
import { Rng } from '../../sandbox/core/rng.cts';
import { callbackWorkflow, createOrders, emittedItems, finishedExecutions, productionUrl, RECEIVED, runClockUntil, settledWithRepeats, untilRegistered, withStoredData, type CallbackDelivery, type ExecutionSummary } from './callbacks.mts';

type Json = Record<string, unknown>;

const TRIGGER_NODE = 'On delivery event';
/** Run QC Evaluation for the orders in a webhook's body: its failed execution is retried on a worker. */
const QC_RETRY = itemsWorkflow('QueueRetryQc0001', 'Queue: QC on request', { resource: 'order', operation: 'runQcEvaluation', orderId: byId('={{ $json.orderId }}') });
/** Run QC Evaluation with the Idempotency Key from the request: one key sent by two executions at once. */
const QC_KEYED = itemsWorkflow('QueueKeyedQc0001', 'Queue: QC with an Idempotency Key', {
	resource: 'order',
	operation: 'runQcEvaluation',
	orderId: byId('={{ $json.orderId }}'),
	options: { idempotencyKey: '={{ $json.eventId }}' },
});
/** Keys each sent by two executions at once. */
const KEYED_PAIRS = 20;
/** How long a worker is stopped, and how long both run between two stops (ms, drawn evenly). */
const PAUSE_MS: readonly [number, number] = [300, 3000];
const RUNNING_BETWEEN_PAUSES_MS: readonly [number, number] = [200, 1500];
/** The pauses' seed, to replay a printed schedule; a new one each run otherwise. */
const PAUSE_SEED = process.env.OLLANG_QUEUE_PAUSE_SEED === undefined ? undefined : Number(process.env.OLLANG_QUEUE_PAUSE_SEED);

interface PauseSchedule {
	pauses: number;
	perWorker: number[];
	pausedMs: number;
	longestMs: number;
}

/**
 * Stops one worker at a time, drawn at random, for a drawn PAUSE_MS (SIGSTOP to its process group: n8n and its task
 * runner), continues it (SIGCONT), lets both run a drawn RUNNING_BETWEEN_PAUSES_MS, and again, until `stop()`, which
 * continues a stopped worker at once and resolves with what was done. `pids()`: the workers' process ids now.
 */
function pauseOneWorkerAtATime(pids: () => number[], rng: Rng): { stop(): Promise<PauseSchedule> } {
	const schedule: PauseSchedule = { pauses: 0, perWorker: pids().map(() => 0), pausedMs: 0, longestMs: 0 };
	let stopping = false;
	let stopped: { pid: number; at: number } | undefined;
	let wake: (() => void) | undefined;
	const nap = async (ms: number) =>
		await new Promise<void>((resolve) => {
			const timer = setTimeout(resolve, ms);
			wake = () => {
				clearTimeout(timer);
				resolve();
			};
		});
	const resume = () => {
		if (stopped === undefined) return;
		process.kill(-stopped.pid, 'SIGCONT');
		const ms = Date.now() - stopped.at;
		schedule.pausedMs += ms;
		schedule.longestMs = Math.max(schedule.longestMs, ms);
		stopped = undefined;
	};
	const loop = (async () => {
		try {
			while (!stopping) {
				await nap(rng.int(...RUNNING_BETWEEN_PAUSES_MS));
				const victim = rng.int(0, schedule.perWorker.length - 1);
				const duration = rng.int(...PAUSE_MS);
				if (stopping) break;
				const pid = pids()[victim];
				process.kill(-pid, 'SIGSTOP');
				stopped = { pid, at: Date.now() };
				schedule.pauses++;
				schedule.perWorker[victim]++;
				await nap(duration);
				resume();
			}
		} finally {
			resume();
		}
	})();
	return {
		stop: async () => {
			stopping = true;
			resume();
			wake?.();
			await loop;
			return schedule;
		},
	};
}
/** Completion callbacks the sandbox sends at once, half to each webhook process. */
const BURST = 200;
/** Of those, sent once more to the process they did not reach (every tenth: each one is an execution more). */
const SENT_AGAIN = 20;
/** The sandbox's fixed progression: a level-0 document order completes 11 simulated minutes after it is made. */
const MINUTES_TO_COMPLETE = 11;
/** Run by hand, as from the editor. */
const MANUAL_WORKFLOW = stepsWorkflow('QueueManual00001', 'Queue: manual run', [ollang('Get credit wallet', 'creditWallet', 'get')]);

/** `resource.operation` of every operation the built Ollang node offers, sorted. */
function offeredOperations(): string[] {
	const require = createRequire(import.meta.url);
	const { Ollang } = require(path.join(REPO_ROOT, 'dist', 'nodes', 'Ollang', 'Ollang.node.js')) as { Ollang: new () => { description: { properties: Json[] } } };
	return new Ollang().description.properties
		.filter((property) => property.name === 'operation')
		.flatMap((selector) => {
			const [resource] = ((selector.displayOptions as { show: { resource: string[] } }).show.resource ?? []) as string[];
			return (selector.options as Array<{ value: string }>).map((option) => `${resource}.${option.value}`);
		})
		.sort();
}

describe('the package in queue mode: main, two workers, PostgreSQL, Redis', { timeout: 30 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let services: RunningQueueServices;
	let n8n: N8nUserFolder;
	let main: RunningN8n | undefined;
	const workers: Array<RunningWorker | undefined> = Array.from({ length: QUEUE_WORKERS }, () => undefined);
	/** `n8n webhook` processes, started by the last test. */
	const webhookProcesses: RunningWebhook[] = [];
	/** Each worker's output, kept across restarts. */
	const workerLogs: string[][] = Array.from({ length: QUEUE_WORKERS }, () => []);
	let cookie: string;

	const startWorker = async (index: number, concurrency?: number, env: Record<string, string> = {}) => {
		workers[index] = await startN8nWorker(n8n.dir, { env: { ...n8n.env, ...env }, onLine: (line) => workerLogs[index].push(line), ...(concurrency ? { concurrency } : {}) });
	};
	/** The worker that logged starting an execution (undefined when none did). */
	const workerOf = (executionId: string): number | undefined => workerOfExecution(workerLogs, executionId);
	/**
	 * A workflow's executions as n8n's database holds them, oldest first. n8n 2.41.1's REST list sorts by start time
	 * but pages below the last row's id, so executions of a burst (started out of id order on two workers) fall between
	 * its pages: after the burst and the repeats it listed 220 of 223 executions, in another run 219 of 220.
	 */
	const storedSummaries = (workflowId: string) => async (): Promise<ExecutionSummary[]> =>
		services.postgres
			.query(
				`SELECT id, mode, status, to_char("startedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), to_char("stoppedAt" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') ` +
					`FROM execution_entity WHERE "workflowId" = '${workflowId}' AND "deletedAt" IS NULL ORDER BY id`,
			)
			.map(([id, mode, status, startedAt, stoppedAt]) => ({ id, mode, status, startedAt, stoppedAt: stoppedAt || null, workflowId }));
	/** An execution's data as n8n stored it (flatted), for those n8n redacts in its REST API (withStoredData). */
	const storedData = (id: string): string | undefined => services.postgres.query(`SELECT data FROM execution_data WHERE "executionId" = ${Number(id)}`)[0]?.[0];

	before(async () => {
		[sandbox, services] = await Promise.all([SandboxClient.start(), startQueueServices({ label: 'queue' })]);
		n8n = N8nUserFolder.create('queue', {
			// The database, Redis and queue mode's settings, as `npm start -- --queue` and docker/docker-compose.yml run it.
			...services.env,
			// Keep every execution's data: the test reads them back.
			EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		});
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
	});

	after(async () => {
		await main?.stop();
		for (const worker of workers) await worker?.stop();
		await Promise.all(webhookProcesses.map((webhook) => webhook.stop()));
		await Promise.all([sandbox?.stop(), services?.stop()]);
		n8n?.remove();
	});

	const resourceRuns: Array<{ workflow: WorkflowJson; execution: N8nExecution }> = [];

	it('runs every resource workflow as a production execution on a worker, binary data across processes', async () => {
		const fixtures = await sandbox.fixtures();
		// The rest of the public API needs orders in given states, made for it (as the resources suite does).
		const freshOrders = async (status: string, count: number) =>
			(await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count, type: 'subtitle', level: 0, status, progress: false })).map((row) => row.orderId);
		const [pendingOrderId] = await freshOrders('pending', 1);
		const [rerunOrderId, qcOrderId, revisionOrderId] = await freshOrders('completed', 3);
		const [translator] = await sandbox.admin<Array<{ id: string }>>('GET', 'translators');
		const publicApi = { pendingOrderId, rerunOrderId, qcOrderId, revisionOrderId, translatorId: translator.id };
		const webhooks = everyOperationWorkflows(fixtures, publicApi).map((workflow) => asWebhookWorkflow(workflow, 'queue'));
		// The manual-run workflow too: one import (each n8n command is a start of n8n).
		await n8n.importWorkflows([...webhooks.map(({ workflow }) => workflow), MANUAL_WORKFLOW, QC_RETRY.workflow, QC_KEYED.workflow]);
		for (const { workflow } of [...webhooks, QC_RETRY, QC_KEYED]) await n8n.publish(workflow.id);
		main = await n8n.start();
		await Promise.all(workers.map((_, index) => startWorker(index)));
		cookie = await signIn(main.url);

		await sandbox.clearRequests();
		for (const { path } of webhooks) {
			const answer = await callProductionWebhook(main.url, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
			assert.equal(answer.status, 200, `webhook ${path}: ${answer.status} ${answer.text}`);
		}
		// The sandbox's clock stands still: once the memory import has arrived, it moves on so the job can finish.
		await waitFor('the memory import request', async () => (await sandbox.requests()).some((request) => request.method === 'POST' && /\/items\/import$/.test(request.path)), {
			timeoutMs: 180_000,
		});
		await sandbox.advanceClock(60);
		for (const { workflow } of webhooks) {
			const [execution] = await waitFor(
				`the execution of "${workflow.name}"`,
				async () => {
					const executions = await readExecutions(main!.url, cookie, workflow.id);
					// Create and Wait waits for its order (its worker's resume URL reaches no one): time passes at Ollang, so
					// the order completes and n8n's next check (each minute here) carries the run on.
					if (executions[0]?.status === 'waiting') await sandbox.advanceClock(15);
					return executions.length === 1 && !['new', 'running', 'waiting'].includes(executions[0].status) ? executions : undefined;
				},
				{ timeoutMs: 240_000, intervalMs: 2000 },
			);
			resourceRuns.push({ workflow, execution });
		}

		const operations: string[] = [];
		const perWorker = workers.map(() => 0);
		for (const { workflow, execution } of resourceRuns) {
			assert.equal(execution.status, 'success', `"${workflow.name}" ended ${execution.status}: ${JSON.stringify(execution.data.resultData.error ?? {})}`);
			assert.equal(execution.mode, 'webhook');
			const worker = workerOf(execution.id);
			assert.notEqual(worker, undefined, `no worker logged execution ${execution.id} of "${workflow.name}"`);
			perWorker[worker!]++;
			for (const node of workflow.nodes.filter((candidate) => candidate.type === OLLANG_NODE)) {
				const runs = execution.data.resultData.runData[node.name];
				assert.ok(runs?.length === 1 && !runs[0].error, `node "${node.name}" of "${workflow.name}" did not run cleanly`);
				const { resource, operation } = node.parameters as { resource: string; operation: string };
				operations.push(`${resource}.${operation}`);
			}
		}
		// No execution ran on the main: it logged none.
		assert.ok(!n8n.serverLog.some((line) => /started execution/i.test(line)), 'the main process ran an execution itself');

		// The XLSX a worker stored in the database, read through the main's REST API.
		const orders = resourceRuns.find(({ workflow }) => workflow.name.startsWith('E2E: orders'))!;
		const exported = orders.execution.data.resultData.runData['Export XLSX'][0].data!.main[0]![0] as unknown as { binary: { sheet: { id: string; fileName: string } } };
		// Queue mode's database store, or the filesystem one of n8n 3.0's defaults (one folder, shared here by every process).
		assert.match(exported.binary.sheet.id, n8n.env.N8N_DEFAULT_BINARY_DATA_MODE === 'filesystem' ? /^filesystem-v2:/ : /^database:/);
		const download = await fetch(`${main!.url}/rest/binary-data?id=${encodeURIComponent(exported.binary.sheet.id)}&action=download`, { headers: { cookie } });
		assert.equal(download.status, 200);
		const fromN8n = await readFirstSheet(Buffer.from(await download.arrayBuffer()));
		const orderId = String((orders.workflow.nodes.find((node) => node.name === 'Export XLSX')!.parameters.orderId as Json).value);
		const direct = await sandbox.call<Buffer>('GET', `/integration/orders/${orderId}/export-xlsx`);
		assert.deepEqual(fromN8n, await readFirstSheet(direct.body));
		assert.ok(fromN8n.rows.length > 0, 'the exported sheet has no rows');

		const distinct = [...new Set(operations)].sort();
		console.log(
			`queue mode: ${operations.length} Ollang node runs (${distinct.length} operations) in ${resourceRuns.length} executions; ` +
				`executions per worker: ${perWorker.join(' / ')}; XLSX ${fromN8n.rows.length} rows read back from the ${n8n.env.N8N_DEFAULT_BINARY_DATA_MODE} binary store`,
		);
		// Every operation the node offers ran on a worker (its description, from the package the processes load).
		assert.deepEqual(distinct, offeredOperations());
	});

	it('runs a manual execution, started as the editor starts it, on a worker (OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS, 3.0\'s only way)', async () => {
		assert.equal(n8n.env.OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS, 'true');
		// Run through the REST API as the editor does: "Execute workflow" from the Manual Trigger. A connection the
		// main dropped before answering is tried again only when no execution of the workflow exists.
		const saved = MANUAL_WORKFLOW;
		const run = async () => await restRequest<{ executionId: string }>(main!.url, cookie, 'POST', `/rest/workflows/${saved.id}/run`, { triggerToStartFrom: { name: 'Start' } });
		const started = await run().catch(async (error: unknown) => {
			await sleep(5000);
			if ((await readExecutions(main!.url, cookie, saved.id)).length > 0) throw error;
			return await run();
		});
		assert.ok(started.executionId, `no execution started: ${JSON.stringify(started)}`);
		const [execution] = await waitFor(
			'the manual execution',
			async () => {
				const executions = await readExecutions(main!.url, cookie, saved.id);
				return executions.length === 1 && !['new', 'running', 'waiting'].includes(executions[0].status) ? executions : undefined;
			},
			{ timeoutMs: 120_000, intervalMs: 1000 },
		);
		assert.equal(execution.id, started.executionId);
		assert.deepEqual([execution.mode, execution.status], ['manual', 'success'], JSON.stringify(execution.data.resultData.error ?? {}));
		const wallet = execution.data.resultData.runData['Get credit wallet'][0].data!.main[0]![0].json;
		assert.deepEqual(wallet, await sandbox.get('/integration/credits'));
		const worker = workerOf(execution.id);
		assert.notEqual(worker, undefined, `no worker logged manual execution ${execution.id}; the main ran it`);
		console.log(`queue mode manual run: execution ${execution.id} (mode ${execution.mode}) ran on worker ${worker! + 1}`);
	});

	it("retries a failed execution on a worker (n8n's Retry): each order evaluated once, the retry finishing the rest", async () => {
		const orderIds = (await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: 4, type: 'subtitle', level: 0, status: 'completed', progress: false })).map((row) => row.orderId);
		// The third evaluation is made, its answer a 500: the execution fails there.
		await sandbox.admin('POST', 'faults', { method: 'POST', path: `/integration/orders/${orderIds[2]}/qc`, kind: 'status', status: 500, when: 'after', times: 1 });
		const finished = async (count: number) =>
			await waitFor(
				`${count} finished executions of the QC workflow`,
				async () => {
					const executions = await readExecutions(main!.url, cookie, QC_RETRY.workflow.id);
					return executions.length === count && executions.every((execution) => !['new', 'running', 'waiting'].includes(execution.status)) ? executions : undefined;
				},
				{ timeoutMs: 180_000, intervalMs: 1000 },
			);
		const answer = await callProductionWebhook(main!.url, QC_RETRY.path, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ items: orderIds.map((orderId) => ({ orderId })) }),
		});
		assert.equal(answer.status, 200, answer.text);
		const [failed] = await finished(1);
		assert.equal(failed.status, 'error');

		const retried = await restRequest<{ id: string }>(main!.url, cookie, 'POST', `/rest/executions/${failed.id}/retry`, { loadWorkflow: true });
		const execution = (await finished(2)).find((candidate) => candidate.id === String(retried.id));

		assert.deepEqual([execution?.mode, execution?.status], ['retry', 'success'], JSON.stringify(execution?.data.resultData.error ?? {}));
		const ledger = await sandbox.admin<Array<{ kind: string; orderId: string }>>('GET', 'ledger');
		const perOrder = orderIds.map((orderId) => ledger.filter((entry) => entry.kind === 'qcEvaluation' && entry.orderId === orderId).length);
		assert.deepEqual(perOrder, [1, 1, 1, 1], 'one evaluation per order');
		const worker = workerOf(execution!.id);
		assert.notEqual(worker, undefined, `no worker logged retried execution ${execution!.id}; the main ran it`);
		console.log(`queue mode retry: execution ${execution!.id} (retry of ${failed.id}) ran on worker ${worker! + 1}; evaluations per order ${perOrder.join(', ')}`);
	});

	it('one Idempotency Key sent by two executions at once on two workers (concurrency 1), one worker stopped at random: applied once, the other execution returns its answer', async () => {
		// Concurrency 1: the two executions of a pair cannot share a worker while both run.
		await Promise.all(workers.map(async (worker) => await worker?.stop()));
		await Promise.all(workers.map(async (_, index) => await startWorker(index, 1)));
		const orderIds = (await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: KEYED_PAIRS, type: 'subtitle', level: 0, status: 'completed', progress: false })).map((row) => row.orderId);
		const send = async (orderId: string, eventId: string) =>
			await callProductionWebhook(main!.url, QC_KEYED.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items: [{ orderId, eventId }] }) });
		/** The pair's two executions once both ended: n8n's list is waited on, and only the newest two are read. */
		const pairExecutions = async (count: number, known: Set<string>) =>
			await waitFor(
				`${count} finished executions of the keyed QC workflow`,
				async () => {
					const summaries = await readExecutionSummaries(main!.url, cookie, QC_KEYED.workflow.id, { limit: 100 });
					if (summaries.length !== count || summaries.some((execution) => ['new', 'running', 'waiting'].includes(execution.status))) return undefined;
					const newest = (await readExecutions(main!.url, cookie, QC_KEYED.workflow.id, { limit: 2 })).filter((execution) => !known.has(execution.id));
					return newest.length === 2 ? newest : undefined;
				},
				{ timeoutMs: 120_000, intervalMs: 500 },
			);
		const pairs: Array<{ orderId: string; executions: N8nExecution[] }> = [];
		const seed = PAUSE_SEED ?? Math.floor(Math.random() * 2 ** 31);
		const pauser = pauseOneWorkerAtATime(() => workers.map((worker) => worker!.child.pid!), new Rng(seed));
		let paused: PauseSchedule;
		try {
			for (const [index, orderId] of orderIds.entries()) {
				// Both sends at the same moment: the two executions are queued together, each taken by a worker that runs.
				const answers = await Promise.all([send(orderId, `evt-pair-${index}`), send(orderId, `evt-pair-${index}`)]);
				assert.deepEqual(answers.map((answer) => answer.status), [200, 200]);
				const known = new Set(pairs.flatMap((pair) => pair.executions.map((execution) => execution.id)));
				pairs.push({ orderId, executions: await pairExecutions(2 * (index + 1), known) });
			}
		} finally {
			// Whatever failed above, no worker is left stopped.
			paused = await pauser.stop();
		}

		const ledger = await sandbox.admin<Array<{ kind: string; orderId: string }>>('GET', 'ledger');
		const applied = orderIds.map((orderId) => ledger.filter((entry) => entry.kind === 'qcEvaluation' && entry.orderId === orderId).length);
		const outcomes = { sent: 0, answeredWithTheSendersEvalId: 0, inFlightError: 0, other: [] as string[] };
		const inFlight: string[] = [];
		let onTwoWorkers = 0;
		let atTheSameTime = 0;
		for (const { orderId, executions } of pairs) {
			const outputs = executions.map((execution) => execution.data.resultData.runData.Ollang?.[0]?.data?.main[0]?.[0]?.json as Json | undefined);
			const errors = executions.map((execution) => String(execution.data.resultData.error?.message ?? ''));
			const sender = outputs.findIndex((json) => json !== undefined && json.alreadyApplied === undefined);
			if (sender !== -1) outcomes.sent++;
			const other = sender === -1 ? -1 : 1 - sender;
			const described = `${orderId} (executions ${executions.map((execution) => `${execution.id} on worker ${(workerOf(execution.id) ?? -1) + 1} ${execution.startedAt}-${execution.stoppedAt ?? ''}`).join(', ')}): ${JSON.stringify(outputs)} ${JSON.stringify(errors)}`;
			if (other !== -1 && outputs[other]?.alreadyApplied === true && outputs[other]?.evalId === outputs[sender]?.evalId) outcomes.answeredWithTheSendersEvalId++;
			else if (other !== -1 && /being sent by another execution/.test(errors[other])) {
				outcomes.inFlightError++;
				inFlight.push(described);
			} else outcomes.other.push(described);
			const [first, second] = executions.map((execution) => workerOf(execution.id));
			if (first !== undefined && second !== undefined && first !== second) onTwoWorkers++;
			const [a, b] = executions.map((execution) => [Date.parse(execution.startedAt), Date.parse(execution.stoppedAt ?? execution.startedAt)]);
			if (a[0] < b[1] && b[0] < a[1]) atTheSameTime++;
		}
		console.log(
			`queue mode, one key from two executions at once, one worker stopped at random (seed ${seed}; OLLANG_QUEUE_PAUSE_SEED replays it): ` +
				`pauses ${paused.pauses} (per worker ${paused.perWorker.join(' / ')}), paused ${paused.pausedMs} ms in total (longest ${paused.longestMs} ms); ` +
				`${KEYED_PAIRS} keys; pairs on two workers ${onTwoWorkers}, running at the same time ${atTheSameTime}; ` +
				`evaluations per key ${JSON.stringify(applied.reduce((counts, count) => ({ ...counts, [count]: (counts[count] ?? 0) + 1 }), {} as Record<number, number>))}; ` +
				`sent ${outcomes.sent}, the other alreadyApplied with the sender's evalId ${outcomes.answeredWithTheSendersEvalId}, in-flight error ${outcomes.inFlightError}, other ${outcomes.other.length}`,
		);
		for (const line of [...inFlight.map((pair) => `in-flight error: ${pair}`), ...outcomes.other.map((pair) => `other: ${pair}`)]) console.log(`  ${line}`);
		assert.ok(paused.pauses > 0, 'no worker was stopped');
		assert.deepEqual(applied, orderIds.map(() => 1), 'each key applied exactly once (the sandbox ledger): none twice, none missing');
		assert.deepEqual({ inFlight, other: outcomes.other }, { inFlight: [], other: [] }, "each pair: one sent, the other returned alreadyApplied with the sender's evalId");
		assert.ok(onTwoWorkers >= KEYED_PAIRS / 2, `only ${onTwoWorkers} of ${KEYED_PAIRS} pairs ran on two workers`);
		// The workers stay at concurrency 1: the next case kills and starts each again with the default.
	});

	it('emits every delivery event exactly once while a worker is killed and started again', async () => {
		const trigger = pollTriggerWorkflow('QueueTrigger0001', 'Queue: delivery events', TRIGGER_NODE, { ...EVERY_DELIVERY_EVENT });
		// Publishing needs the CLI: the main is stopped for it and started again (workers keep running).
		await main!.stop();
		await n8n.importWorkflows([trigger]);
		await n8n.publish(trigger.id);
		const activatedAt = Math.floor((await sandbox.now()).getTime() / 1000) * 1000;
		await sandbox.clearRequests();
		main = await n8n.start();
		cookie = await signIn(main.url);
		const listings = async () => (await sandbox.requests()).filter((request) => request.path === '/integration/orders').length;
		await waitFor('the activation poll', async () => (await listings()) > 0, { timeoutMs: 120_000 });
		await sandbox.advanceClock(1);

		let kills = 0;
		for (let round = 0; round < 3; round++) {
			await sandbox.admin('POST', 'orders', { count: 3, type: 'subtitle', level: 0 });
			await sandbox.advanceClock(30);
			const before = await listings();
			await waitFor('a poll', async () => (await listings()) > before, { timeoutMs: 150_000, intervalMs: 200 });
			// The poll is emitting: kill a worker while the executions it queued run, then start it again.
			const victim = round % QUEUE_WORKERS;
			await sleep(round * 500);
			process.kill(-workers[victim]!.child.pid!, 'SIGKILL');
			kills++;
			await workers[victim]!.stop();
			await startWorker(victim);
		}

		const expected: string[] = [];
		for (const row of await sandbox.getAllPages<Json>('/integration/orders')) {
			const order = await sandbox.get<{ id: string; deliveryEvents: Array<{ occurredAt: string }> }>(`/integration/orders/${String(row.id)}`);
			order.deliveryEvents.forEach((event, index) => {
				if (Date.parse(event.occurredAt) > activatedAt) expected.push(`${order.id}:${index}`);
			});
		}
		const counts = new Map<string, number>();
		let executions: N8nExecution[] = [];
		await waitFor(
			'executions of every event',
			async () => {
				executions = await readExecutions(main!.url, cookie, trigger.id, { limit: 500 });
				counts.clear();
				for (const execution of executions) {
					for (const item of triggerItems(execution, TRIGGER_NODE)) counts.set(String(item.eventId), (counts.get(String(item.eventId)) ?? 0) + 1);
				}
				return expected.every((id) => counts.has(id)) && executions.every((execution) => !['new', 'running'].includes(execution.status));
			},
			{ timeoutMs: 240_000, intervalMs: 3000 },
		).catch(() => undefined);
		const missed = expected.filter((id) => !counts.has(id));
		const duplicated = [...counts].filter(([id, count]) => count > 1 || !expected.includes(id)).map(([id, count]) => `${id} x${count}`);
		const onWorkers = executions.filter((execution) => workerOf(execution.id) !== undefined).length;
		console.log(
			`queue mode trigger: worker kills ${kills}; events expected ${expected.length}, emitted ${counts.size}, missed ${missed.length}, ` +
				`duplicated ${duplicated.length}; ${executions.length} executions, ${onWorkers} logged by a worker, statuses ${JSON.stringify(Object.fromEntries(executions.map((e) => e.status).reduce((m, s) => m.set(s, (m.get(s) ?? 0) + 1), new Map<string, number>())))}`,
		);
		assert.deepEqual({ missed, duplicated }, { missed: [], duplicated: [] });
		assert.ok(expected.length >= 6, `only ${expected.length} events happened`);
		assert.equal(onWorkers, executions.length, 'an execution of the trigger ran outside the workers');
	});

	it("the callback trigger: each completion once, run on a worker; a repeat reaching a restarted main is dropped by n8n's deduplication store (PostgreSQL)", async () => {
		// Saved and published through the REST API as the editor does: no CLI start of n8n, no restart for it.
		const { workflow, webhookId } = callbackWorkflow('QueueCallbacks01', 'Queue: callbacks', {});
		const { id, active: _active, pinData: _pinData, ...toSave } = workflow;
		const saved = await createWorkflow(main!.url, cookie, toSave);
		await activateWorkflow(main!.url, cookie, saved.id);
		await untilRegistered(productionUrl(main!.url, webhookId));
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 1 });
		const orderIds = await createOrders(sandbox, 3, productionUrl(main!.url, webhookId));
		await sandbox.advanceClock(10);
		const all = await runClockUntil(sandbox, settledWithRepeats(orderIds), { minMinutes: 3 });
		const executions = await finishedExecutions(main!.url, cookie, saved.id, orderIds.length);
		const emitted = emittedItems(executions).map((item) => String(item.orderId));
		const onWorkers = executions.filter((execution) => workerOf(execution.id) !== undefined).length;

		// The main is restarted: its memory of emitted completions is gone, n8n's deduplication store (in PostgreSQL) is not.
		const originals = all.filter((delivery) => orderIds.includes(delivery.orderId) && delivery.repeatOf === null);
		await main!.stop();
		main = await n8n.start();
		cookie = await signIn(main.url);
		const url = productionUrl(main.url, webhookId);
		await untilRegistered(url);
		// Every completion once more: their executions recorded them at about the same moment, on two workers.
		for (const delivery of originals) {
			const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(delivery.body) });
			assert.equal(answer.status, 200, await answer.text());
		}
		const afterRestart = (await finishedExecutions(main.url, cookie, saved.id, executions.length + originals.length)).slice(executions.length);
		const reEmitted = emittedItems(afterRestart).map((item) => String(item.orderId));
		console.log(
			`queue mode callbacks: completions expected ${orderIds.length}, emitted ${new Set(emitted).size} (items ${emitted.length}), deliveries ${all.filter((d) => orderIds.includes(d.orderId)).length}; ` +
				`executions ${executions.length}, ${onWorkers} logged by a worker; repeats after the main's restart ${originals.length}: executions ${afterRestart.length} ` +
				`(on workers ${afterRestart.map((execution) => String((workerOf(execution.id) ?? -1) + 1)).join(', ')}), emitted again ${reEmitted.length}`,
		);
		assert.deepEqual([...emitted].sort(), [...orderIds].sort(), 'each completion emitted once');
		assert.equal(onWorkers, executions.length, 'an execution of the callback trigger ran outside the workers');
		assert.equal(originals.length, orderIds.length);
		assert.ok(afterRestart.every((execution) => workerOf(execution.id) !== undefined), 'a repeat\'s execution ran outside the workers');
		assert.deepEqual(reEmitted, [], 'a repeat after the restart emitted an item');
		assert.ok(afterRestart.every((execution) => execution.status === 'success' && !(RECEIVED in execution.data.resultData.runData)), 'the node after the trigger ran for a repeat');
	});
	it(`${QUEUE_WEBHOOK_PROCESSES} n8n webhook processes take the callbacks: a burst of ${BURST} at once split between them, each completion emitted once on a worker; ${SENT_AGAIN} sent again to the other process dropped`, async () => {
		const webhookLogs: string[][] = Array.from({ length: QUEUE_WEBHOOK_PROCESSES }, () => []);
		// As `npm start -- --queue` and docker-compose.yml run them.
		const webhookEnv = { ...n8n.env, ...WEBHOOK_PROCESS_SETTINGS };
		webhookProcesses.push(...(await Promise.all(webhookLogs.map((lines) => startN8nWebhook(n8n.dir, { env: webhookEnv, onLine: (line) => lines.push(line) })))));
		const { workflow, webhookId } = callbackWorkflow('QueueWebhookProc', 'Queue: callbacks to webhook processes', {});
		const { id: _id, active: _active, pinData: _pinData, ...toSave } = workflow;
		const saved = await createWorkflow(main!.url, cookie, toSave);
		await activateWorkflow(main!.url, cookie, saved.id);
		const urls = webhookProcesses.map((webhook) => productionUrl(webhook.url, webhookId));
		for (const url of urls) await untilRegistered(url);
		// Every delivery its own completion (no repeats): half the orders call back the first process, half the second,
		// all made in one simulated minute, so one move of the clock completes them together and the sandbox sends
		// every callback at once.
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 0 });
		const perProcess = BURST / urls.length;
		const byProcess = await Promise.all(urls.map((url) => createOrders(sandbox, perProcess, url)));
		const orderIds = byProcess.flat();
		const started = Date.now();
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const ours = (deliveries: CallbackDelivery[]) => deliveries.filter((delivery) => orderIds.includes(delivery.orderId));
		const all = ours(await runClockUntil(sandbox, (deliveries) => {
			const mine = ours(deliveries);
			return mine.length === orderIds.length && mine.every((delivery) => delivery.status === 'delivered' || delivery.status === 'failed');
		}));
		const answeredMs = Date.now() - started;
		// An attempt n8n did not answer 2xx may still have become an execution: n8n's list is then waited on until quiet.
		const overflowed = all.some((delivery) => delivery.attempts.some((attempt) => attempt.statusCode === null || attempt.statusCode >= 300));
		const read = await withStoredData(await finishedExecutions(main!.url, cookie, saved.id, orderIds.length, { timeoutMs: 300_000, quietMs: overflowed ? 15_000 : 0, summaries: storedSummaries(saved.id) }), storedData);
		const executions = read.executions;
		const emittedMs = Date.now() - started;
		const emitted = emittedItems(executions).map((item) => String(item.orderId));

		// Some completions once more, to the process they did not reach: that process has no memory of them, confirms
		// each with the API and starts an execution, whose first step on a worker finds it in n8n's deduplication store.
		const again = all.filter((_, index) => index % (BURST / SENT_AGAIN) === 0);
		const answers: number[] = [];
		for (const delivery of again) {
			const other = urls[(urls.indexOf(delivery.target) + 1) % urls.length];
			const answer = await fetch(other, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(delivery.body) });
			answers.push(answer.status);
			await answer.arrayBuffer();
		}
		const burstIds = new Set(executions.map((execution) => execution.id));
		const readAgain = await withStoredData(await finishedExecutions(main!.url, cookie, saved.id, again.length, { timeoutMs: 120_000, besides: burstIds, summaries: storedSummaries(saved.id) }), storedData);
		const afterRepeats = readAgain.executions;
		// What n8n's REST list leaves out of the executions its database holds (printed: the list's paging, not the package).
		const listed = new Set((await readExecutionSummaries(main!.url, cookie, saved.id, { limit: 2000 })).map((execution) => execution.id));
		const unlisted = [...executions, ...afterRepeats].filter((execution) => !listed.has(execution.id)).map((execution) => execution.id);
		const reEmitted = emittedItems(afterRepeats).map((item) => String(item.orderId));
		const onWorkers = [...executions, ...afterRepeats].filter((execution) => workerOf(execution.id) !== undefined).length;
		const perTarget = urls.map((url) => all.filter((delivery) => delivery.target === url).length);
		const count = (values: Array<string | number>) => JSON.stringify(Object.fromEntries(values.reduce((counts, value) => counts.set(String(value), (counts.get(String(value)) ?? 0) + 1), new Map<string, number>())));
		const firstAttempts = all.map((delivery) => delivery.attempts[0]);
		const sentAt = firstAttempts.map((attempt) => Date.parse(attempt.sentAt));
		const duplicated = [...new Set(emitted.filter((orderId, index) => emitted.indexOf(orderId) !== index))];
		const missed = orderIds.filter((orderId) => !emitted.includes(orderId));
		console.log(
			`queue mode, ${QUEUE_WEBHOOK_PROCESSES} webhook processes: burst of ${orderIds.length} (${perTarget.join(' / ')} per process) sent in ${new Set(firstAttempts.map((attempt) => attempt.at)).size} clock step(s), within ${Math.max(...sentAt) - Math.min(...sentAt)} ms; ` +
				`first attempts ${count(firstAttempts.map((attempt) => attempt.statusCode ?? attempt.error ?? 'none'))}, slowest ${Math.max(...firstAttempts.map((attempt) => attempt.durationMs ?? 0))} ms; ` +
				`attempts ${all.reduce((sum, delivery) => sum + delivery.attempts.length, 0)} (the later ones ${count(all.flatMap((delivery) => delivery.attempts.slice(1)).map((attempt) => attempt.statusCode ?? attempt.error ?? 'none'))}), deliveries ${count(all.map((delivery) => delivery.status))}; all answered in ${(answeredMs / 1000).toFixed(1)} s, ` +
				`executions ${executions.length} ${count(executions.map((execution) => `${execution.mode} ${execution.status}`))} finished in ${(emittedMs / 1000).toFixed(1)} s (read from n8n's database, redacted in its REST API: ${read.fromDatabase}); ` +
				`emitted ${new Set(emitted).size} (items ${emitted.length}), twice ${duplicated.length}, missed ${missed.length}; ` +
				`sent again to the other process ${again.length} of ${orderIds.length}: answered ${count(answers)}, executions ${afterRepeats.length} (redacted ${readAgain.fromDatabase}), emitted again ${reEmitted.length}; ` +
				`${onWorkers} of ${executions.length + afterRepeats.length} executions on workers; left out of n8n's REST list ${unlisted.length}${unlisted.length > 0 ? ` (${unlisted.join(', ')})` : ''}`,
		);
		assert.deepEqual(perTarget, urls.map(() => perProcess), 'each webhook process received its half of the burst');
		assert.deepEqual({ duplicated, missed }, { duplicated: [], missed: [] }, 'each completion emitted once');
		assert.deepEqual([...emitted].sort(), [...orderIds].sort(), 'each completion emitted once, nothing else');
		assert.equal(again.length, SENT_AGAIN);
		assert.ok(answers.every((status) => status === 200), `the repeats were answered ${JSON.stringify(answers)}`);
		assert.deepEqual(reEmitted, [], 'a completion sent again to the other webhook process emitted an item');
		assert.ok(afterRepeats.every((execution) => execution.status === 'success' && !(RECEIVED in execution.data.resultData.runData)), 'the node after the trigger ran for a repeat');
		assert.equal(onWorkers, executions.length + afterRepeats.length, 'an execution ran outside the workers');
	});

	/**
	 * Order > Create and Wait (the example, started by a webhook) in this n8n: a worker builds the execution's resume
	 * URL from WEBHOOK_URL (without it, from its own port, where nobody listens), so the workers are started again with
	 * it pointing at `webhookUrl`. `run` names the workflow (one per run).
	 */
	async function createAndWait(run: number, startUrl: string, webhookUrl: string) {
		for (const [index, worker] of workers.entries()) {
			await worker?.stop();
			await startWorker(index, undefined, { WEBHOOK_URL: webhookUrl });
		}
		return await createAndWaitInQueueMode(
			{ restUrl: main!.url, cookie, sandbox, startUrl, webhookUrl, filesDir: n8n.filesDir, workerLogs: () => workerLogs, mainLog: () => n8n.serverLog },
			`ollangCrWaitQue${run}`,
			`queue mode ${run}`,
		);
	}

	it('Order > Create and Wait, a production run: started and resumed on workers, the callbacks answered by the main, every order confirmed', async () => {
		const { execution, created, starts, latency } = await createAndWait(1, main!.url, `${main!.url}/`);
		assert.equal(execution.mode, 'webhook');
		console.log(`create and wait in queue mode: execution ${execution.id} (${execution.mode}) started on workers ${starts.join(' / ')} times (start + resume), ${created.length} orders confirmed, last callback -> resume ${latency} ms`);
	});

	it('Order > Create and Wait, the callbacks reaching an n8n webhook process (WEBHOOK_URL pointing at it): it takes the resume, the execution resumes on a worker', async () => {
		// The webhook processes of the test before: the first takes the start and the callbacks (the only one they reach).
		const webhookProcess = webhookProcesses[0];
		assert.ok(webhookProcess !== undefined, 'the webhook processes of the test before are running');
		const { execution, created, codes, starts, latency } = await createAndWait(2, webhookProcess.url, `${webhookProcess.url}/`);
		// The callbacks come at once: one resumes the execution; n8n holds or refuses those that reach it while it
		// resumes (no answer within the API's 10 s, 500 or 409), which the orders' reads no longer need.
		assert.ok(codes.includes(200), `answers: ${codes.join(', ')}`);
		console.log(`create and wait in queue mode, the resume at an n8n webhook process: execution ${execution.id} started on workers ${starts.join(' / ')} times, ${created.length} orders confirmed, callbacks answered ${codes.join('/')}, last callback -> resume ${latency} ms`);
	});
});
