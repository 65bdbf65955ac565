// Scenario 8, queue mode: the same webhook-started executions of a workflow with the Ollang node (Order > Get), run
// by one main process (regular mode) and by the main with QUEUE_WORKERS `n8n worker` processes (queue mode), on one
// private PostgreSQL (both modes) and Redis (queue mode), started and stopped by process id through
// scripts/n8n/queue-mode.mjs as the queue-mode e2e suite and `npm start -- --queue` start them.
//
// Each execution is one POST to the production webhook; the Webhook answers when the workflow has finished, with
// the order read. The driver sends them `concurrency` at a time. Wall time: from the first request to the last
// execution finished (the later of the last answer and the latest `stoppedAt` n8n recorded).
import { performance } from 'node:perf_hooks';
import { formatElapsed, freePort, log } from '../scripts/n8n/process.mjs';
import { QUEUE_WORKERS, startQueueServices, workerOfExecution } from '../scripts/n8n/queue-mode.mjs';
import { activateWorkflow, createWorkflow, readExecutionSummaries, restRequest, signIn, startN8n, startN8nWorker } from '../scripts/n8n/runtime.mjs';
import { inParallel } from './parallel.mjs';
import { queueWorkflow } from './workflows.mjs';

const LOG_PREFIX = 'bench';
const WEBHOOK_PATH = 'bench-queue-order-get';
/** Statuses of an execution that has not ended yet. */
const UNFINISHED = new Set(['new', 'running', 'waiting']);

/**
 * `scenario`: { title, executions, concurrency }. `context`: { sandbox, userFolder, orderIds, sandboxCall }.
 * Returns { key: 'queue', title, executions, concurrency, workers, modes: [regular, queue] }.
 */
export async function runQueueScenario(context, scenario) {
	const { sandbox, userFolder, sandboxCall } = context;
	log(LOG_PREFIX, `${scenario.title}: starting PostgreSQL and Redis ...`);
	const services = await startQueueServices({ label: 'bench' });
	const processes = [];
	const stopAll = async () => {
		for (const running of processes.splice(0).reverse()) await running.stop();
	};
	try {
		// Regular mode: executions run in the main process. Same database as queue mode, so only the mode differs.
		const regularEnv = { ...services.env, EXECUTIONS_MODE: 'regular', OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'false' };
		const regularMain = await startN8n(userFolder, { port: await freePort(), env: regularEnv });
		processes.push(regularMain);
		const cookie = await signIn(regularMain.url);
		const credential = await restRequest(regularMain.url, cookie, 'POST', '/rest/credentials', {
			name: 'Bench: Ollang sandbox (owner key)',
			type: 'ollangApi',
			data: { apiKey: sandbox.keys.owner, baseUrl: sandbox.baseUrl },
		});
		const workflow = await createWorkflow(regularMain.url, cookie, queueWorkflow({ credential: { id: credential.id, name: credential.name }, webhookPath: WEBHOOK_PATH }));
		await activateWorkflow(regularMain.url, cookie, workflow.id);
		// n8n registers the webhook shortly after answering the activation: until its row is in the database, a call gets 404.
		await waitForWebhook(services.postgres);
		const regular = await runExecutions({ ...context, main: regularMain, cookie, workflowId: workflow.id, afterId: 0, workerLogs: undefined }, scenario, 'regular');
		await stopAll();

		// Queue mode: the same workflow (active in the database) on a new main, its executions on the workers.
		const workerLogs = Array.from({ length: QUEUE_WORKERS }, () => []);
		const mainLog = [];
		const [queueMain, ...workers] = await Promise.all([
			startN8n(userFolder, { port: await freePort(), env: services.env, onLine: (line) => mainLog.push(line) }),
			...workerLogs.map((lines) => startN8nWorker(userFolder, { env: services.env, onLine: (line) => lines.push(line) })),
		]);
		processes.push(queueMain, ...workers);
		log(LOG_PREFIX, `  queue mode: main pid ${queueMain.child.pid}, workers ${workers.map((worker) => worker.child.pid).join(', ')}, PostgreSQL pid ${services.postgres.pid}, Redis pid ${services.redis.pid}`);
		const queueCookie = await signIn(queueMain.url);
		const queue = await runExecutions(
			{ ...context, main: queueMain, cookie: queueCookie, workflowId: workflow.id, afterId: regular.lastExecutionId, workerLogs },
			scenario,
			'queue',
		);
		queue.mainRanExecutions = mainLog.filter((line) => /started execution/i.test(line)).length;
		return { key: 'queue', title: scenario.title, executions: scenario.executions, concurrency: scenario.concurrency, workers: QUEUE_WORKERS, modes: [regular, queue] };
	} finally {
		await stopAll();
		await services.stop();
		await sandboxCall(sandbox, 'DELETE', '/__sandbox/requests');
	}

	/** Sends the executions, waits until n8n recorded every one as ended, and reads the figures. */
	async function runExecutions(run, { executions, concurrency }, mode) {
		const { main, cookie, workflowId, afterId, workerLogs, orderIds } = run;
		await sandboxCall(sandbox, 'DELETE', '/__sandbox/requests');
		const answers = [];
		const startedAt = Date.now();
		const started = performance.now();
		let lastAnswerAt = started;
		await inParallel(executions, concurrency, async (index) => {
			const orderId = orderIds[index % orderIds.length];
			try {
				const response = await fetch(`${main.url}/webhook/${WEBHOOK_PATH}`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ orderId }),
				});
				const body = await response.text();
				const order = response.ok ? JSON.parse(body) : undefined;
				answers.push({ ok: response.ok && order?.id === orderId, problem: response.ok ? `answered order ${order?.id}` : `HTTP ${response.status} ${body.slice(0, 200)}` });
			} catch (error) {
				answers.push({ ok: false, problem: error.message });
			}
			lastAnswerAt = Math.max(lastAnswerAt, performance.now());
		});
		// Every execution n8n recorded for this mode, once none is still running (or after 5 minutes).
		let recorded = [];
		const waitUntil = Date.now() + 5 * 60_000;
		for (;;) {
			recorded = (await readExecutionSummaries(main.url, cookie, workflowId, { limit: executions + 50 })).filter((execution) => Number(execution.id) > afterId);
			if ((recorded.length >= executions && recorded.every((execution) => !UNFINISHED.has(execution.status))) || Date.now() > waitUntil) break;
			await new Promise((resolve) => setTimeout(resolve, 1000));
		}
		const lastStoppedAt = Math.max(...recorded.map((execution) => Date.parse(execution.stoppedAt ?? '')).filter(Number.isFinite));
		const wallMs = Math.max(lastAnswerAt - started, Number.isFinite(lastStoppedAt) ? lastStoppedAt - startedAt : 0);
		const requests = (await sandboxCall(sandbox, 'GET', '/__sandbox/requests')).requests;
		const byStatus = {};
		for (const execution of recorded) byStatus[execution.status] = (byStatus[execution.status] ?? 0) + 1;
		const failedAnswers = answers.filter((answer) => !answer.ok);
		const perWorker = workerLogs?.map(() => 0);
		let onNoWorker = 0;
		if (workerLogs) {
			for (const execution of recorded) {
				const worker = workerOfExecution(workerLogs, execution.id);
				if (worker === undefined) onNoWorker++;
				else perWorker[worker]++;
			}
		}
		const figures = {
			mode,
			executions,
			concurrency,
			wallMs,
			perSecond: (recorded.length / wallMs) * 1000,
			recorded: recorded.length,
			finished: recorded.filter((execution) => !UNFINISHED.has(execution.status)).length,
			succeeded: byStatus.success ?? 0,
			byStatus,
			failedAnswers: failedAnswers.length,
			firstProblem: failedAnswers[0]?.problem ?? Object.keys(byStatus).find((status) => status !== 'success'),
			// An execution that failed, did not finish, was never recorded, or answered wrongly.
			failures: Math.max(executions - (byStatus.success ?? 0), failedAnswers.length),
			requests: requests.length,
			failedRequests: requests.filter((record) => record.status === null || record.status >= 400).length,
			perWorker,
			onNoWorker: workerLogs ? onNoWorker : undefined,
			lastExecutionId: Math.max(afterId, ...recorded.map((execution) => Number(execution.id))),
		};
		log(
			LOG_PREFIX,
			`  ${mode}: ${figures.recorded} executions recorded (${JSON.stringify(byStatus)}) in ${formatElapsed(wallMs)} (${Math.round(wallMs)} ms), ${figures.perSecond.toFixed(2)}/s, ` +
				`failures ${figures.failures}, ${figures.requests} API requests${perWorker ? `, per worker ${perWorker.join(' / ')}, by no worker ${onNoWorker}` : ''}`,
		);
		return figures;
	}
}

async function waitForWebhook(postgres) {
	const until = Date.now() + 60_000;
	while (postgres.query(`SELECT count(*) FROM webhook_entity WHERE "webhookPath" = '${WEBHOOK_PATH}' AND method = 'POST'`)[0]?.[0] !== '1') {
		if (Date.now() > until) throw new Error(`the webhook ${WEBHOOK_PATH} was not registered within 60 s of the workflow's activation`);
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}
