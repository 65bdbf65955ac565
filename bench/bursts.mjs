// Scenario 11, callbacks in bursts: how many completion callbacks arriving at once one n8n answers within the API's
// 10 s, beside n8n's own Webhook node taking the same bursts, and whether the Ollang Callback Trigger emits every
// completion once under each retry policy of the API. Two published workflows in the same n8n, each its trigger then
// a No Operation node: n8n's Webhook node (POST, answering at once) and the Ollang Callback Trigger (Order Completed,
// its sweep every `sweepMinutes`). Two set-ups on the same machine:
//   main      one `n8n start` (n8n's default: regular mode, SQLite);
//   webhooks  queue mode (PostgreSQL, Redis) with QUEUE_WEBHOOK_PROCESSES `n8n webhook` processes taking the
//             callbacks behind the balancer (scripts/n8n/balancer.mjs), QUEUE_WORKERS workers running the executions.
// Each side has its own sandbox (the same program, arguments and settings), so the trigger's sweep never sees the
// Webhook side's orders. A burst: `size` level-0 document orders made in the same simulated minute with the side's
// URL as Callback URL, then one clock move completes them all, so the sandbox sends `size` callbacks at once (repeats
// off: every delivery is its own completion). Then the clock runs on, a minute at a time, through the sandbox's retry
// policy. The Webhook side first, then (its executions finished) the trigger's. Figures per burst and side: the first
// attempts' answers (2xx, another status, none within 10 s) and the slowest; for the trigger, each completion emitted
// once, twice or missed (not emitted once the sends settled and the first sweep after the completions ended), whether its
// item arrived by push or by the sweep (`arrivedBy`), from n8n's executions read through its REST API, and the time
// from the delivery to the trigger node's start for completions emitted by push.
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
import { BURSTS_TRIGGER_NODE, burstsWorkflows } from './workflows.mjs';

const LOG_PREFIX = 'bench';
const NAME_PREFIX = 'Bench: callbacks in bursts';
/** The API's timeout for a callback (the sandbox's too). */
const ANSWER_BUDGET_MS = 10_000;
/** The sandbox's fixed progression: a level-0 document order completes 11 simulated minutes after it is made. */
const MINUTES_TO_COMPLETE = 11;
/** Simulated minutes the seeded account is run forward before anything is watched: every seeded life has ended. */
const QUIET_MINUTES = 3 * 24 * 60;
/** One order per target language: orders/create makes up to this many at a time. */
const LANGUAGES = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'ja', 'ko', 'pl', 'sv'];
/** Rounds of retries of one burst at most (the longest policy has three). */
const MAX_RETRY_ROUNDS = 5;
/** The sandbox's route of the orders listing: the sweep's first request (the trigger's own reads are of one order). */
const LISTING_ROUTE = '/integration/orders';
/** How long the same executions may stay open before they are taken as left behind by n8n. */
const STALLED_MS = 2 * 60_000;
/** A set-up as n8n starts by default. */
const N8N_DEFAULTS = { label: 'n8n defaults', env: {} };

/**
 * `context`: { userFolder, latencyMs, sandboxCall }. `scenario`: { title, seed, topologies: ['main', 'webhooks'],
 * bursts: [{ size, retries }], sweepMinutes, sweepBoundMs, firstLookMs, sustained: { topologies, rates, seconds },
 * settings: [{ label, env, bursts?, sustained? }] }: each set-up runs once per settings entry, every n8n process of it
 * started with that entry's environment (n8n's own settings), its bursts (default: the scenario's), and the sustained
 * steps unless `sustained: false`. Returns the figures (bursts-report.mjs).
 */
export async function runBurstsScenario(context, scenario) {
	const topologies = [];
	for (const topology of scenario.topologies) {
		for (const settings of scenario.settings ?? [N8N_DEFAULTS]) {
			const run = { ...scenario, bursts: settings.bursts ?? scenario.bursts, sustained: settings.sustained === false ? { topologies: [] } : scenario.sustained };
			topologies.push({ ...(await runTopology(context, run, topology, settings.env)), settings: settings.label, env: settings.env });
		}
	}
	return { key: 'bursts', title: scenario.title, latencyMs: context.latencyMs, sweepMinutes: scenario.sweepMinutes, workers: QUEUE_WORKERS, webhookProcesses: QUEUE_WEBHOOK_PROCESSES, topologies };
}

async function runTopology(context, scenario, topology, settingsEnv = {}) {
	const { userFolder, latencyMs, sandboxCall } = context;
	log(LOG_PREFIX, `${scenario.title}: ${topology === 'main' ? 'one n8n start' : `queue mode, ${QUEUE_WEBHOOK_PROCESSES} webhook processes, ${QUEUE_WORKERS} workers`}, a sandbox per side ...`);
	const stops = [];
	let cleanUp = async () => undefined;
	try {
		// The same sender for both sides: the sandbox's callbacks, one sandbox each, started and set up alike (beside n8n
		// starting).
		const startSide = async (side) => {
			const sandboxProcess = await startSandboxProcess(['--volume', 'small', '--seed', String(scenario.seed), '--latency', '0', '--port', '0', '--callback-repeat', '0']);
			stops.push(sandboxProcess.stop);
			const sandbox = { baseUrl: sandboxProcess.info.baseUrl, keys: sandboxProcess.info.keys };
			const call = (method, route, options) => sandboxCall(sandbox, method, route, options);
			await call('PUT', '/__sandbox/simulation', { body: { progression: { mode: 'fixed', redeliveryProbability: 0 } } });
			// The seeded orders' lives end before the trigger's sweep watches them: its account is quiet but for the bursts.
			if (side === 'trigger') await call('POST', '/__sandbox/clock/advance', { body: { minutes: QUIET_MINUTES } });
			return { side, sandbox, call, key: sandbox.keys.owner };
		};
		// All settled before going on, so that every process started is in `stops` when one of them failed.
		const started = await Promise.allSettled([startSide('webhook'), startSide('trigger'), startN8nFor(topology, userFolder, stops, settingsEnv)]);
		const failed = started.find((outcome) => outcome.status === 'rejected');
		if (failed) throw failed.reason;
		const [webhookSide, triggerSide, n8n] = started.map((outcome) => outcome.value);
		const sides = { webhook: webhookSide, trigger: triggerSide };
		const { mainUrl, callbackBase, describe, forwarded } = n8n;
		const cookie = await signIn(mainUrl);
		const credential = await restRequest(mainUrl, cookie, 'POST', '/rest/credentials', {
			name: `${NAME_PREFIX}: owner key`,
			type: 'ollangApi',
			data: { apiKey: sides.trigger.key, baseUrl: sides.trigger.sandbox.baseUrl },
		});
		const triggerWebhookId = randomUUID();
		const webhookPath = randomUUID();
		const workflows = burstsWorkflows({ credential: { id: credential.id, name: credential.name }, triggerWebhookId, webhookPath, sweepMinutes: scenario.sweepMinutes });
		const created = [];
		cleanUp = async () => {
			for (const workflow of created) {
				await whileDatabaseBusy('deleting a workflow', () => removeWorkflow(mainUrl, cookie, workflow.id)).catch((error) => log(LOG_PREFIX, `  could not delete workflow ${workflow.id}: ${error.message}`));
			}
			await restRequest(mainUrl, cookie, 'DELETE', `/rest/credentials/${credential.id}`).catch(() => undefined);
		};
		for (const side of ['webhook', 'trigger']) {
			const workflow = await createWorkflow(mainUrl, cookie, workflows[side]);
			created.push(workflow);
			sides[side].workflowId = workflow.id;
			await activateWorkflow(mainUrl, cookie, workflow.id);
		}
		sides.trigger.url = `${callbackBase}/webhook/${triggerWebhookId}/ollang-callback`;
		sides.webhook.url = `${callbackBase}/webhook/${webhookPath}`;
		await untilServedEverywhere(sides.trigger.url);
		await untilWebhookServedEverywhere(sides.webhook.url);
		for (const side of Object.values(sides)) await side.call('PUT', '/__sandbox/latency', { body: { ms: latencyMs } });
		const run = {
			mainUrl,
			cookie,
			reader: new ExecutionReader(mainUrl, cookie, { limit: 20_000, storedData: n8n.storedData }),
			sweepMs: scenario.sweepMinutes * 60_000,
			sweepBoundMs: scenario.sweepBoundMs,
			firstLookMs: scenario.firstLookMs,
		};

		const bursts = [];
		for (const burst of scenario.bursts) {
			log(LOG_PREFIX, `  burst of ${burst.size} (retries ${burst.retries}): n8n's Webhook node ...`);
			const webhook = await sendBurst(run, sides.webhook, burst);
			await untilExecutionsSettled(run, sides.webhook.workflowId);
			log(LOG_PREFIX, `  burst of ${burst.size} (retries ${burst.retries}): the Ollang Callback Trigger, then its sweep ...`);
			const trigger = await triggerBurst(run, sides.trigger, burst);
			bursts.push({ size: burst.size, retries: burst.retries, webhook, trigger });
			log(LOG_PREFIX, `    2xx within 10 s: Webhook ${answerCounts(webhook.deliveries).answered2xx}, trigger ${answerCounts(trigger.deliveries).answered2xx}; trigger emitted ${trigger.emittedByDeadline.size} of ${burst.size} by the end of its sweep`);
		}
		const sustained = scenario.sustained.topologies.includes(topology) ? await runSustained(run, sides.trigger, scenario.sustained) : undefined;
		// Twice is counted over the whole run: a completion emitted again by a later sweep or retry shows here (the
		// sustained steps end with the executions settled).
		if (sustained === undefined) await untilExecutionsSettled(run, sides.trigger.workflowId);
		const emissions = await readEmissions(run, sides.trigger.workflowId);
		return {
			topology,
			describe,
			bursts: bursts.map((burst) => ({ size: burst.size, retries: burst.retries, webhook: answerFigures(burst.webhook.deliveries), trigger: triggerFigures(burst.trigger, emissions) })),
			sustained,
			forwardedToWebhookProcesses: forwarded ? [...forwarded.webhooks] : undefined,
			executionsRedacted: { readFromDatabase: run.reader.readFromDatabase.size, unreadable: run.reader.unreadable.size },
		};
	} finally {
		await cleanUp();
		for (const stop of stops.reverse()) await stop();
	}
}

/** The n8n processes of a set-up, their stops pushed onto `stops`; the URL the callbacks go to. */
async function startN8nFor(topology, userFolder, stops, settingsEnv) {
	if (topology === 'main') {
		const main = await startN8n(userFolder, { port: await freePort(), env: settingsEnv });
		stops.push(main.stop);
		return { mainUrl: main.url, callbackBase: main.url.replace('localhost', '127.0.0.1'), describe: `one \`n8n start\` (pid ${main.child.pid}), SQLite` };
	}
	const services = await startQueueServices({ label: 'bench-bursts' });
	stops.push(services.stop);
	const env = { ...services.env, ...settingsEnv };
	const main = await startN8n(userFolder, { port: await freePort(), env: { ...env, ...MAIN_BEHIND_WEBHOOK_PROCESSES } });
	stops.push(main.stop);
	const workers = await Promise.all(Array.from({ length: QUEUE_WORKERS }, () => startN8nWorker(userFolder, { env })));
	for (const worker of workers) stops.push(worker.stop);
	const tier = await startWebhookProcesses(userFolder, { env, mainUrl: main.url });
	stops.push(tier.stop);
	return {
		mainUrl: main.url,
		// An execution's data as n8n stored it (flatted), for those n8n redacts in its REST API.
		storedData: (id) => services.postgres.query(`SELECT data FROM execution_data WHERE "executionId" = ${Number(id)}`)[0]?.[0],
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

/** Until every process behind the URL serves the Webhook node: a JSON body answered 2xx (each starts an execution). */
async function untilWebhookServedEverywhere(url) {
	const until = Date.now() + 90_000;
	let inARow = 0;
	while (inARow < 2 * QUEUE_WEBHOOK_PROCESSES) {
		const probe = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"probe":true}' }).catch(() => undefined);
		inARow = probe !== undefined && probe.status >= 200 && probe.status < 300 ? inARow + 1 : 0;
		await probe?.arrayBuffer();
		if (Date.now() > until) throw new Error(`bursts: ${url} did not answer 2xx to a JSON body within 90 s (last ${probe?.status})`);
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

/** The deliveries of these orders, once none is being sent: first looked at `firstLookMs` after the sends, then every 0.5 s. */
async function settledDeliveries(call, orderIds, firstLookMs) {
	const wanted = new Set(orderIds);
	await sleep(firstLookMs);
	for (;;) {
		const ours = (await call('GET', '/__sandbox/callbacks')).deliveries.filter((delivery) => wanted.has(delivery.orderId));
		if (ours.length >= orderIds.length && ours.every((delivery) => delivery.status !== 'sending')) return ours;
		await sleep(500);
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

/** Until n8n has no execution of the workflow new or running, twice in a row half a second apart. */
async function untilExecutionsSettled(run, workflowId) {
	const until = Date.now() + 10 * 60_000;
	let quiet = 0;
	let unfinished = '';
	let unchangedSince = Date.now();
	while (quiet < 2) {
		const summaries = await whileDatabaseBusy('reading executions', () => readExecutionSummaries(run.mainUrl, run.cookie, workflowId, { limit: 200 }));
		const open = summaries.filter((summary) => summary.status === 'new' || summary.status === 'running').map((summary) => summary.id);
		quiet = open.length === 0 ? quiet + 1 : 0;
		if (open.join(',') !== unfinished) {
			unfinished = open.join(',');
			unchangedSince = Date.now();
		}
		// n8n leaves an execution it could not start under a burst as 'new' for good (its database "not ready"):
		// the same ones open for two minutes are taken as left behind, not waited for.
		if (open.length > 0 && Date.now() - unchangedSince > STALLED_MS) {
			log(LOG_PREFIX, `    n8n left ${open.length} executions of workflow ${workflowId} unfinished (${[...new Set(summaries.filter((summary) => open.includes(summary.id)).map((summary) => summary.status))].join(', ')}) for ${STALLED_MS / 1000} s: going on`);
			return;
		}
		if (Date.now() > until) throw new Error('bursts: executions still running after 10 minutes');
		await sleep(500);
	}
}

/**
 * One burst to one side: `size` orders completing at one clock move with the side's URL as Callback URL, then the
 * clock moved on to each round of retries while deliveries wait. Answers the deliveries and when the sends settled.
 */
async function sendBurst(run, side, { size, retries }) {
	const { call } = side;
	await call('PUT', '/__sandbox/callbacks/settings', { body: { retries, repeatProbability: 0 } });
	const orderIds = await createOrders(call, side.key, size, side.url);
	let now = Date.parse((await call('POST', '/__sandbox/clock/advance', { body: { minutes: MINUTES_TO_COMPLETE } })).now);
	// The completions are in the API from here on (the clock move made them), whatever becomes of their callbacks.
	const completedAtMs = Date.now();
	let deliveries;
	for (let round = 0; ; round++) {
		deliveries = await settledDeliveries(call, orderIds, run.firstLookMs);
		const waiting = deliveries.filter((delivery) => delivery.status === 'waiting').map((delivery) => Date.parse(delivery.nextAttemptAt));
		if (waiting.length === 0) break;
		if (round >= MAX_RETRY_ROUNDS) throw new Error(`bursts: deliveries still waiting after ${round} rounds of retries`);
		now = Date.parse((await call('POST', '/__sandbox/clock/advance', { body: { minutes: Math.max(0, (Math.min(...waiting) - now) / 60_000) } })).now);
	}
	return { orderIds, deliveries, completedAtMs, settledAtMs: Date.now() };
}

/**
 * The trigger's side of a burst: the sends, then its sweep. Missed: not emitted once the sends have settled and the
 * first sweep that started after the completions (the clock move) has ended (with the executions then started), or
 * by `sweepBoundMs` after the sends settled when some are still not emitted then.
 */
async function triggerBurst(run, side, burst) {
	// The request log from here on: the sweeps' listing requests show when each sweep started.
	await side.call('DELETE', '/__sandbox/requests');
	const sent = await sendBurst(run, side, burst);
	const bound = sent.settledAtMs + run.sweepBoundMs;
	for (;;) {
		const swept = await sweptSince(run, side, sent.completedAtMs);
		const late = Date.now() > bound;
		if (swept || late) {
			await untilExecutionsSettled(run, side.workflowId);
			const emissions = await readEmissions(run, side.workflowId);
			const emitted = new Map(sent.orderIds.filter((orderId) => emissions.has(orderId)).map((orderId) => [orderId, emissions.get(orderId)]));
			if (emitted.size === sent.orderIds.length || late) {
				return { ...sent, emittedByDeadline: emitted, sweptAfterCompletions: swept, emittedWithinMs: Date.now() - sent.settledAtMs };
			}
		}
		await sleep(500);
	}
}

/**
 * Whether a sweep that started after `sinceMs` has ended: the trigger's listing requests in the sandbox's log, in
 * groups (a sweep's pages come together, sweeps `sweepMs` apart); the group after that sweep's starts only once it
 * has emitted what it found (sweep.ts: pause, sweep, emit).
 */
async function sweptSince(run, side, sinceMs) {
	const listings = (await side.call('GET', '/__sandbox/requests')).requests
		.filter((record) => record.method === 'GET' && record.route === LISTING_ROUTE)
		.map((record) => record.receivedAtMs)
		.sort((a, b) => a - b);
	const starts = [];
	let previous = -Infinity;
	for (const at of listings) {
		if (at - previous > run.sweepMs / 2) starts.push(at);
		previous = at;
	}
	const first = starts.findIndex((at) => at > sinceMs);
	return first >= 0 && first + 1 < starts.length;
}

/** orderId -> each emission of it by the trigger, oldest first: the trigger node's start time and the item's `arrivedBy`. */
async function readEmissions(run, workflowId) {
	const starts = await whileDatabaseBusy('reading executions', () =>
		run.reader.starts(workflowId, BURSTS_TRIGGER_NODE, (items) => items.map((item) => `${item.orderId}\t${item.arrivedBy}`)),
	);
	const emissions = new Map();
	for (const [key, times] of starts) {
		const [orderId, by] = key.split('\t');
		emissions.set(orderId, [...(emissions.get(orderId) ?? []), ...times.map((at) => ({ at, by }))]);
	}
	for (const list of emissions.values()) list.sort((a, b) => a.at - b.at);
	return emissions;
}

const is2xx = (attempt) => attempt.statusCode !== null && attempt.statusCode >= 200 && attempt.statusCode < 300;

/** The first attempts' answers within the API's 10 s. */
function answerCounts(deliveries) {
	const first = deliveries.map((delivery) => delivery.attempts[0]);
	return {
		answered2xx: first.filter(is2xx).length,
		answeredOther: first.filter((attempt) => attempt.statusCode !== null && !is2xx(attempt)).length,
		noAnswer: first.filter((attempt) => attempt.statusCode === null).length,
	};
}

/** A side's answers to a burst, from the sandbox's deliveries. */
function answerFigures(deliveries) {
	const first = deliveries.map((delivery) => delivery.attempts[0]);
	const sentAt = first.map((attempt) => Date.parse(attempt.sentAt));
	const answeredMs = first.filter((attempt) => attempt.statusCode !== null).map((attempt) => attempt.durationMs);
	return {
		deliveries: deliveries.length,
		sendSpreadMs: Math.max(...sentAt) - Math.min(...sentAt),
		...answerCounts(deliveries),
		medianAnswerMs: median(answeredMs),
		slowestAnswerMs: Math.max(0, ...answeredMs),
		retryAttempts: deliveries.reduce((sum, delivery) => sum + delivery.attempts.length - 1, 0),
		gaveUp: deliveries.filter((delivery) => delivery.status === 'failed').length,
	};
}

/**
 * The trigger's figures of one burst: its answers, and per completion: twice (emitted more than once over the whole
 * run, `emissions`), missed (not emitted by the burst's deadline), else once; how the first emission arrived; and,
 * for completions emitted by push before any retry, the time from the first attempt's sending to the trigger node's
 * start.
 */
function triggerFigures(burst, emissions) {
	let once = 0;
	let twice = 0;
	let missed = 0;
	let emittedLater = 0;
	let byPush = 0;
	let bySweep = 0;
	const latenciesMs = [];
	for (const delivery of burst.deliveries) {
		const all = emissions.get(delivery.orderId) ?? [];
		const inTime = burst.emittedByDeadline.get(delivery.orderId) ?? [];
		if (all.length > 1) twice++;
		else if (inTime.length === 0) missed++;
		else once++;
		if (inTime.length === 0) {
			if (all.length > 0) emittedLater++;
			continue;
		}
		const first = inTime[0];
		if (first.by === 'push') byPush++;
		else bySweep++;
		const retrySentAt = delivery.attempts[1] ? Date.parse(delivery.attempts[1].sentAt) : Infinity;
		if (first.by === 'push' && first.at < retrySentAt) latenciesMs.push(first.at - Date.parse(delivery.attempts[0].sentAt));
	}
	return {
		...answerFigures(burst.deliveries),
		emittedOnce: once,
		emittedTwice: twice,
		missed,
		emittedLater,
		byPush,
		bySweep,
		sweptAfterCompletions: burst.sweptAfterCompletions,
		emittedWithinMs: burst.emittedWithinMs,
		latenciesMs,
	};
}

/**
 * Deliveries at an even pace, `seconds` long per rate, each rate's deliveries fresh completions (bodies the sandbox
 * sent to a sink of the bench's; the trigger's sweep finds these completions too); the rates step up until one is not
 * answered 2xx within 10 s.
 */
async function runSustained(run, side, { rates, seconds }) {
	const { call } = side;
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
			const orderIds = await createOrders(call, side.key, count, sinkUrl);
			await call('POST', '/__sandbox/clock/advance', { body: { minutes: MINUTES_TO_COMPLETE } });
			const bodies = (await settledDeliveries(call, orderIds, 0)).map((delivery) => delivery.body);
			const answers = await sendEvenly(side.url, bodies, rate);
			await untilExecutionsSettled(run, side.workflowId);
			const ok = answers.filter((answer) => answer.status >= 200 && answer.status < 300).length;
			const step = {
				rate,
				deliveries: answers.length,
				answered2xx: ok,
				answeredOther: answers.filter((answer) => answer.status !== undefined && !(answer.status >= 200 && answer.status < 300)).length,
				noAnswer: answers.filter((answer) => answer.status === undefined).length,
				medianAnswerMs: median(answers.filter((answer) => answer.status !== undefined).map((answer) => answer.ms)),
				worstAnswerMs: Math.max(0, ...answers.filter((answer) => answer.status !== undefined).map((answer) => answer.ms)),
			};
			steps.push(step);
			log(LOG_PREFIX, `    ${step.answered2xx} of ${step.deliveries} answered 2xx, ${step.answeredOther} another status, ${step.noAnswer} no answer; answer median ${step.medianAnswerMs} ms, worst ${step.worstAnswerMs} ms`);
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
