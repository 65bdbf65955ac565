// Scenario 11, callbacks in bursts: how many completion callbacks arriving at once one n8n answers within the API's
// 10 s, and what the answers that do not come cost under each retry policy of the API. A published Ollang Callback
// Trigger (followed by a No Operation node) in two set-ups on the same machine:
//   main      one `n8n start` (n8n's default: regular mode, SQLite);
//   webhooks  queue mode (PostgreSQL, Redis) with QUEUE_WEBHOOK_PROCESSES `n8n webhook` processes taking the
//             callbacks behind the balancer (scripts/n8n/balancer.mjs), QUEUE_WORKERS workers running the executions.
// A burst: `size` level-0 document orders made in the same simulated minute with the trigger's URL as Callback URL,
// then one clock move completes them all, so the sandbox sends `size` callbacks at once (repeats off: every delivery
// is its own completion, each needing its confirming read). Then the clock runs on, a minute at a time, through the
// sandbox's retry policy. Figures per burst: the first attempts' answers (2xx, 503, another status, none within
// 10 s), each completion emitted once, twice or never (n8n's executions, read through its REST API), and the time from
// the delivery to the trigger node's start for completions emitted from the burst itself (before any retry).
// The sustained rate: deliveries sent by the bench at an even pace (the bodies the sandbox made for completed orders),
// stepping the rate up until one is not answered 2xx within 10 s.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, log } from '../scripts/n8n/process.mjs';
import { MAIN_BEHIND_WEBHOOK_PROCESSES, QUEUE_WEBHOOK_PROCESSES, QUEUE_WORKERS, startQueueServices, startWebhookProcesses } from '../scripts/n8n/queue-mode.mjs';
import { activateWorkflow, createWorkflow, readExecutionSummaries, restRequest, signIn, startN8n, startN8nWorker } from '../scripts/n8n/runtime.mjs';
import { startSandboxProcess } from '../scripts/n8n/sandbox.mjs';
import { ExecutionReader, removeWorkflow } from './push.mjs';

const LOG_PREFIX = 'bench';
const NAME_PREFIX = 'Bench: callbacks in bursts';
const TRIGGER_NODE = 'On Ollang callback';
/** The API's timeout for a callback (the sandbox's too). */
const ANSWER_BUDGET_MS = 10_000;
/** The sandbox's fixed progression: a level-0 document order completes 11 simulated minutes after it is made. */
const MINUTES_TO_COMPLETE = 11;
/** One order per target language: orders/create makes up to this many at a time. */
const LANGUAGES = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'ja', 'ko', 'pl', 'sv'];
/** Rounds of retries of one burst at most (the longest policy has three). */
const MAX_RETRY_ROUNDS = 5;

/**
 * `context`: { userFolder, latencyMs, sandboxCall }. `scenario`: { title, seed, topologies: ['main', 'webhooks'],
 * bursts: [{ size, retries }], sustained: { topologies, rates, seconds }, roundGapMs }. Returns the figures (bursts-report.mjs).
 */
export async function runBurstsScenario(context, scenario) {
	const topologies = [];
	for (const topology of scenario.topologies) topologies.push(await runTopology(context, scenario, topology));
	return { key: 'bursts', title: scenario.title, latencyMs: context.latencyMs, workers: QUEUE_WORKERS, webhookProcesses: QUEUE_WEBHOOK_PROCESSES, topologies };
}

async function runTopology(context, scenario, topology) {
	const { userFolder, latencyMs, sandboxCall } = context;
	log(LOG_PREFIX, `${scenario.title}: ${topology === 'main' ? 'one n8n start' : `queue mode, ${QUEUE_WEBHOOK_PROCESSES} webhook processes, ${QUEUE_WORKERS} workers`}, its own sandbox ...`);
	const sandboxProcess = await startSandboxProcess(['--volume', 'small', '--seed', String(scenario.seed), '--latency', '0', '--port', '0', '--callback-repeat', '0']);
	const sandbox = { baseUrl: sandboxProcess.info.baseUrl, keys: sandboxProcess.info.keys };
	const call = (method, route, options) => sandboxCall(sandbox, method, route, options);
	const stops = [sandboxProcess.stop];
	let cleanUp = async () => undefined;
	try {
		await call('PUT', '/__sandbox/simulation', { body: { progression: { mode: 'fixed', redeliveryProbability: 0 } } });
		const { mainUrl, callbackBase, describe, forwarded } = await startN8nFor(topology, userFolder, stops);
		const cookie = await signIn(mainUrl);
		const credential = await restRequest(mainUrl, cookie, 'POST', '/rest/credentials', { name: `${NAME_PREFIX}: owner key`, type: 'ollangApi', data: { apiKey: sandbox.keys.owner, baseUrl: sandbox.baseUrl } });
		const webhookId = randomUUID();
		const workflow = await createWorkflow(mainUrl, cookie, callbackWorkflow({ id: credential.id, name: credential.name }, webhookId));
		cleanUp = async () => {
			await whileDatabaseBusy('deleting the workflow', () => removeWorkflow(mainUrl, cookie, workflow.id)).catch((error) => log(LOG_PREFIX, `  could not delete workflow ${workflow.id}: ${error.message}`));
			await restRequest(mainUrl, cookie, 'DELETE', `/rest/credentials/${credential.id}`).catch(() => undefined);
		};
		await activateWorkflow(mainUrl, cookie, workflow.id);
		const callbackUrl = `${callbackBase}/webhook/${webhookId}/ollang-callback`;
		await untilServedEverywhere(callbackUrl);
		await call('PUT', '/__sandbox/latency', { body: { ms: latencyMs } });
		const run = {
			call,
			key: sandbox.keys.owner,
			mainUrl,
			cookie,
			workflowId: workflow.id,
			callbackUrl,
			reader: new ExecutionReader(mainUrl, cookie, { limit: 20_000 }),
			roundGapMs: scenario.roundGapMs,
			lastRoundAt: 0,
		};

		const bursts = [];
		for (const burst of scenario.bursts) bursts.push(await runBurst(run, burst));
		const sustained = scenario.sustained.topologies.includes(topology) ? await runSustained(run, scenario.sustained) : undefined;
		return { topology, describe, bursts, sustained, forwardedToWebhookProcesses: forwarded ? [...forwarded.webhooks] : undefined };
	} finally {
		await cleanUp();
		for (const stop of stops.reverse()) await stop();
	}
}

/** The n8n processes of a set-up, their stops pushed onto `stops`; the URL the callbacks go to. */
async function startN8nFor(topology, userFolder, stops) {
	if (topology === 'main') {
		const main = await startN8n(userFolder, { port: await freePort() });
		stops.push(main.stop);
		return { mainUrl: main.url, callbackBase: main.url.replace('localhost', '127.0.0.1'), describe: `one \`n8n start\` (pid ${main.child.pid}), SQLite` };
	}
	const services = await startQueueServices({ label: 'bench-bursts' });
	stops.push(services.stop);
	const main = await startN8n(userFolder, { port: await freePort(), env: { ...services.env, ...MAIN_BEHIND_WEBHOOK_PROCESSES } });
	stops.push(main.stop);
	const workers = await Promise.all(Array.from({ length: QUEUE_WORKERS }, () => startN8nWorker(userFolder, { env: services.env })));
	for (const worker of workers) stops.push(worker.stop);
	const tier = await startWebhookProcesses(userFolder, { env: services.env, mainUrl: main.url });
	stops.push(tier.stop);
	return {
		mainUrl: main.url,
		callbackBase: tier.balancer.url,
		forwarded: tier.balancer.forwarded,
		describe: `queue mode: main (pid ${main.child.pid}, production webhooks off), ${QUEUE_WORKERS} workers (pids ${workers.map((worker) => worker.child.pid).join(', ')}), ${QUEUE_WEBHOOK_PROCESSES} \`n8n webhook\` processes (pids ${tier.webhooks.map((webhook) => webhook.child.pid).join(', ')}) behind the balancer, PostgreSQL, Redis`,
	};
}

/** Until every process behind the URL serves the trigger: a body that is not JSON is refused (415) without an API call. */
async function untilServedEverywhere(url) {
	const until = Date.now() + 90_000;
	let inARow = 0;
	while (inARow < 2 * QUEUE_WEBHOOK_PROCESSES) {
		const probe = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'probe' }).catch(() => undefined);
		inARow = probe?.status === 415 ? inARow + 1 : 0;
		await probe?.arrayBuffer();
		if (Date.now() > until) throw new Error(`bursts: ${url} did not answer 415 to a non-JSON body within 90 s (last ${probe?.status})`);
		if (inARow === 0) await sleep(250);
	}
}

/** `count` level-0 document orders calling `callbackUrl` back, all made in the current simulated minute. */
async function createOrders(call, key, count, callbackUrl) {
	const { fixtures } = await call('GET', '/__sandbox/info');
	const orderIds = [];
	while (orderIds.length < count) {
		const languages = LANGUAGES.slice(0, Math.min(LANGUAGES.length, count - orderIds.length));
		const created = await call('POST', '/integration/orders/create', {
			key,
			body: { orderType: 'document', level: 0, projectId: fixtures.projects.writable, targetLanguageConfigs: languages.map((language) => ({ language })), callbackUrl },
		});
		orderIds.push(...created.map((order) => order.orderId));
	}
	return orderIds;
}

/** The deliveries of these orders, once none is being sent (the listing is read only after the attempts had their 10 s). */
async function settledDeliveries(call, orderIds) {
	const wanted = new Set(orderIds);
	for (;;) {
		const ours = (await call('GET', '/__sandbox/callbacks')).deliveries.filter((delivery) => wanted.has(delivery.orderId));
		if (ours.every((delivery) => delivery.status !== 'sending')) return ours;
		await sleep(1000);
	}
}

/**
 * n8n's REST API, tried again while n8n answers 503 "Database is not ready!": under a burst n8n's own check of its
 * database (SQLite, one main) can fail for a while, and n8n then refuses every request, webhooks included.
 */
async function whileDatabaseBusy(what, request) {
	const until = Date.now() + 5 * 60_000;
	for (;;) {
		try {
			return await request();
		} catch (error) {
			if (!/HTTP 503/.test(error.message) || Date.now() > until) throw error;
			log(LOG_PREFIX, `    ${what}: n8n answered 503 (its database check), trying again`);
			await sleep(2000);
		}
	}
}

/** Until n8n has no execution of the workflow new or running, twice in a row a second apart. */
async function untilExecutionsSettled(run) {
	const until = Date.now() + 10 * 60_000;
	let quiet = 0;
	while (quiet < 2) {
		const summaries = await whileDatabaseBusy('reading executions', () => readExecutionSummaries(run.mainUrl, run.cookie, run.workflowId, { limit: 200 }));
		quiet = summaries.some((summary) => summary.status === 'new' || summary.status === 'running') ? 0 : quiet + 1;
		if (Date.now() > until) throw new Error('bursts: executions still running after 10 minutes');
		await sleep(1000);
	}
}

/**
 * The trigger bounds its confirming reads per minute of wall time (READS_PER_MINUTE in the node's admission.ts), and
 * the API's retries come minutes apart: before each round of sends (a burst, a round of retries, a sustained step)
 * this much wall time has passed since the last, so the sandbox's fast clock does not squeeze retries into the
 * minute whose reads the burst spent. The smoke's bursts stay under the bound and need no gap.
 */
async function untilRoundGap(run) {
	const wait = run.lastRoundAt + run.roundGapMs - Date.now();
	if (wait > 0) await sleep(wait);
}

/** Moves the sandbox's clock `minutes` on as a new round of sends, after the gap; answers the simulated time. */
async function advanceRound(run, minutes) {
	await untilRoundGap(run);
	const { now } = await run.call('POST', '/__sandbox/clock/advance', { body: { minutes } });
	run.lastRoundAt = Date.now();
	return Date.parse(now);
}

async function runBurst(run, { size, retries }) {
	const { call } = run;
	log(LOG_PREFIX, `  burst of ${size} (retries ${retries}) ...`);
	await call('PUT', '/__sandbox/callbacks/settings', { body: { retries, repeatProbability: 0 } });
	const orderIds = await createOrders(call, run.key, size, run.callbackUrl);
	let now = await advanceRound(run, MINUTES_TO_COMPLETE);
	let all;
	for (let round = 0; ; round++) {
		// The attempts have their 10 s; the sandbox is not asked anything meanwhile (it serves the confirming reads).
		await sleep(ANSWER_BUDGET_MS + 500);
		all = await settledDeliveries(call, orderIds);
		const waiting = all.filter((delivery) => delivery.status === 'waiting').map((delivery) => Date.parse(delivery.nextAttemptAt));
		if (waiting.length === 0) break;
		if (round >= MAX_RETRY_ROUNDS) throw new Error(`bursts: deliveries still waiting after ${round} rounds of retries`);
		now = await advanceRound(run, Math.max(0, (Math.min(...waiting) - now) / 60_000));
	}
	await untilExecutionsSettled(run);
	const starts = await whileDatabaseBusy('reading executions', () => run.reader.starts(run.workflowId, TRIGGER_NODE, (items) => items.map((item) => item.orderId)));
	return burstFigures({ size, retries, deliveries: all, starts });
}

/** The figures of one burst from the sandbox's deliveries and the trigger's start times per order. */
function burstFigures({ size, retries, deliveries, starts }) {
	const first = deliveries.map((delivery) => delivery.attempts[0]);
	const is2xx = (attempt) => attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;
	const latenciesMs = [];
	let once = 0;
	let twice = 0;
	let missed = 0;
	let byRetry = 0;
	for (const delivery of deliveries) {
		const times = starts.get(delivery.orderId) ?? [];
		if (times.length === 0) missed++;
		else if (times.length === 1) once++;
		else twice++;
		if (times.length === 0) continue;
		const emittedAt = Math.min(...times);
		const retrySentAt = delivery.attempts[1] ? Date.parse(delivery.attempts[1].sentAt) : Infinity;
		if (emittedAt < retrySentAt) latenciesMs.push(emittedAt - Date.parse(delivery.attempts[0].sentAt));
		else byRetry++;
	}
	const sentAt = first.map((attempt) => Date.parse(attempt.sentAt));
	return {
		size,
		retries,
		deliveries: deliveries.length,
		sendSpreadMs: Math.max(...sentAt) - Math.min(...sentAt),
		answered2xx: first.filter(is2xx).length,
		answered503: first.filter((attempt) => attempt.statusCode === 503).length,
		answeredOther: first.filter((attempt) => attempt.statusCode !== null && !is2xx(attempt) && attempt.statusCode !== 503).length,
		noAnswer: first.filter((attempt) => attempt.statusCode === null).length,
		slowestAnswerMs: Math.max(0, ...first.filter((attempt) => attempt.statusCode !== null).map((attempt) => attempt.durationMs)),
		retryAttempts: deliveries.reduce((sum, delivery) => sum + delivery.attempts.length - 1, 0),
		gaveUp: deliveries.filter((delivery) => delivery.status === 'failed').length,
		emittedOnce: once,
		emittedTwice: twice,
		missed,
		emittedByRetry: byRetry,
		latenciesMs,
	};
}

/**
 * Deliveries at an even pace, `seconds` long per rate, each rate's deliveries fresh completions (bodies the sandbox
 * sent to a sink of the bench's); the rates step up until one is not answered 2xx within 10 s.
 */
async function runSustained(run, { rates, seconds }) {
	const { call } = run;
	const sink = createServer((req, res) => {
		req.resume();
		req.on('end', () => res.writeHead(200).end());
	});
	await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
	const sinkUrl = `http://127.0.0.1:${sink.address().port}/sink`;
	const steps = [];
	try {
		for (const rate of rates) {
			const count = Math.max(1, Math.round(rate * seconds));
			log(LOG_PREFIX, `  sustained: ${rate} deliveries/s for ${seconds} s (${count}) ...`);
			await call('PUT', '/__sandbox/callbacks/settings', { body: { retries: 'none', repeatProbability: 0 } });
			const orderIds = await createOrders(call, run.key, count, sinkUrl);
			await call('POST', '/__sandbox/clock/advance', { body: { minutes: MINUTES_TO_COMPLETE } });
			const bodies = (await settledDeliveries(call, orderIds)).map((delivery) => delivery.body);
			await untilRoundGap(run);
			run.lastRoundAt = Date.now();
			const answers = await sendEvenly(run.callbackUrl, bodies, rate);
			run.lastRoundAt = Date.now();
			await untilExecutionsSettled(run);
			const ok = answers.filter((answer) => answer.status >= 200 && answer.status < 300).length;
			const step = {
				rate,
				deliveries: answers.length,
				answered2xx: ok,
				answered503: answers.filter((answer) => answer.status === 503).length,
				noAnswer: answers.filter((answer) => answer.status === undefined).length,
				medianAnswerMs: median(answers.filter((answer) => answer.status !== undefined).map((answer) => answer.ms)),
				worstAnswerMs: Math.max(0, ...answers.filter((answer) => answer.status !== undefined).map((answer) => answer.ms)),
			};
			steps.push(step);
			log(LOG_PREFIX, `    ${step.answered2xx} of ${step.deliveries} answered 2xx, ${step.answered503} 503, ${step.noAnswer} no answer; answer median ${step.medianAnswerMs} ms, worst ${step.worstAnswerMs} ms`);
			if (ok < answers.length) break;
		}
	} finally {
		sink.closeAllConnections();
		await new Promise((resolve) => sink.close(resolve));
	}
	const held = steps.filter((step) => step.answered2xx === step.deliveries);
	return { seconds, steps, sustainedRate: held.length > 0 ? Math.max(...held.map((step) => step.rate)) : 0, firstFailing: steps.find((step) => step.answered2xx < step.deliveries)?.rate };
}

/** POSTs each body at `rate` per second from one start, each answered within the API's 10 s or counted as no answer. */
async function sendEvenly(url, bodies, rate) {
	const started = performance.now();
	const pending = [];
	for (const [index, body] of bodies.entries()) {
		const due = started + (index * 1000) / rate;
		const wait = due - performance.now();
		if (wait > 0) await sleep(wait);
		const sent = performance.now();
		pending.push(
			fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(ANSWER_BUDGET_MS) })
				.then(async (response) => {
					await response.arrayBuffer();
					return { status: response.status, ms: Math.round(performance.now() - sent) };
				})
				.catch(() => ({ status: undefined, ms: undefined })),
		);
	}
	return await Promise.all(pending);
}

export function median(values) {
	const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function callbackWorkflow(credential, webhookId) {
	const received = { id: 'bench-bursts-received', name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} };
	return {
		name: `${NAME_PREFIX}: Ollang Callback Trigger`,
		nodes: [
			{
				id: 'bench-bursts-trigger',
				name: TRIGGER_NODE,
				type: 'n8n-nodes-ollang.ollangCallbackTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId,
				parameters: { events: ['orderCompleted'] },
				credentials: { ollangApi: credential },
			},
			received,
		],
		connections: { [TRIGGER_NODE]: { main: [[{ node: received.name, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}
