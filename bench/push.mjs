// Scenario 9, push or poll: the same orders completing, watched by two published workflows in one real `n8n start`
// on the same sandbox account: the Ollang Callback Trigger (push: the sandbox POSTs each completion to the node's
// production URL) and the polling Ollang Trigger (n8n's default poll, every minute). For each order: from its
// completion (the wall time the sandbox sent its callback) to the moment each workflow's first node ran (the trigger
// node's startTime in n8n's run data, read through n8n's REST API); and the API requests each trigger made (the
// sandbox's request log, told apart by API key: each workflow has its own credential), per hour.
//
// Completions are spread over real minutes: the orders are created half a simulated minute apart, the sandbox's
// clock (which stands still otherwise) is brought to just before the first completes, and then moved half a minute
// at a time after a seeded random pause, so each move completes exactly one order at a random point of n8n's poll
// minute. The account is quiet otherwise: the seeded orders' lives are run to their end before anything is watched.
import { formatElapsed, freePort, log } from '../scripts/n8n/process.mjs';
import { activateWorkflow, callProductionWebhook, createWorkflow, deleteWorkflow, readExecutionSummaries, restRequest, signIn, startN8n } from '../scripts/n8n/runtime.mjs';
import { ensureRuntime, requireFromN8n } from '../scripts/n8n/install.mjs';
import { startSandboxProcess } from '../scripts/n8n/sandbox.mjs';
import { pushFigures } from './push-report.mjs';

const LOG_PREFIX = 'bench';
const NAME_PREFIX = 'Bench: push or poll';
/** The Callback Trigger's production URL is /webhook/<webhookId>/ollang-callback (its description's path). */
const WEBHOOK_ID = '0b7a51c2-9d3e-4f60-8a1b-00000000b009';
const WEBHOOK_PATH = `${WEBHOOK_ID}/ollang-callback`;
const PUSH_NODE = 'On Ollang callback';
const POLL_NODE = 'On Ollang poll';
/** The delivery-log events at which an order becomes completed: what the completion callback reports. */
const COMPLETION_EVENTS = ['ai_delivered', 'lsp_approved'];
/**
 * The sandbox's fixed progression (sandbox/domain/orderPlan.cts): a level-0 document order starts 1 simulated minute
 * after creation and is AI-delivered (completed) 10 minutes after that. Each clock move checks that exactly the
 * expected order completed, so a changed plan fails the scenario by name rather than skewing it.
 */
const MINUTES_TO_COMPLETE = 11;
/** Simulated minutes between two orders' creation, and each clock move while measuring. */
const STEP_MINUTES = 0.5;
/** Simulated minutes the seeded account is run forward before anything is watched: every seeded life has ended. */
const QUIET_MINUTES = 3 * 24 * 60;

/**
 * `context`: { userFolder, latencyMs, sandboxCall }. `scenario`: { title, orders, gapSeconds: [min, max], seed,
 * waitAfterLastMs, alignWindowToPoll }. Returns the figures (push-report.mjs formats them).
 */
export async function runPushScenario(context, scenario) {
	const { userFolder, latencyMs, sandboxCall } = context;
	const maxOrders = Math.floor((MINUTES_TO_COMPLETE - STEP_MINUTES) / STEP_MINUTES);
	if (scenario.orders > maxOrders) throw new Error(`push scenario: at most ${maxOrders} orders (they must all be created before the first completes)`);
	log(LOG_PREFIX, `${scenario.title}: its own sandbox (small, seed ${scenario.seed}) and n8n start ...`);
	const sandboxProcess = await startSandboxProcess(['--volume', 'small', '--seed', String(scenario.seed), '--latency', '0', '--port', '0']);
	const sandbox = { baseUrl: sandboxProcess.info.baseUrl, keys: sandboxProcess.info.keys };
	const call = (method, route, options) => sandboxCall(sandbox, method, route, options);
	const n8nLines = [];
	let n8n;
	let cookie;
	const made = { workflows: [], credentials: [] };
	try {
		const { fixtures } = await call('GET', '/__sandbox/info');
		await call('PUT', '/__sandbox/simulation', { body: { progression: { mode: 'fixed', redeliveryProbability: 0 } } });
		await call('POST', '/__sandbox/clock/advance', { body: { minutes: QUIET_MINUTES } });

		n8n = await startN8n(userFolder, { port: await freePort(), onLine: (line) => n8nLines.push(line) });
		cookie = await signIn(n8n.url);
		await removeLeftovers(n8n.url, cookie);
		const credential = async (name, apiKey) => {
			const created = await restRequest(n8n.url, cookie, 'POST', '/rest/credentials', { name: `${NAME_PREFIX}: ${name}`, type: 'ollangApi', data: { apiKey, baseUrl: sandbox.baseUrl } });
			made.credentials.push(created.id);
			return { id: created.id, name: created.name };
		};
		// One key per side, so the sandbox's request log tells their requests apart; the driver uses the third.
		const pushWorkflow = await createWorkflow(n8n.url, cookie, callbackWorkflow(await credential('push (owner key)', sandbox.keys.owner)));
		made.workflows.push(pushWorkflow.id);
		const pollWorkflow = await createWorkflow(n8n.url, cookie, pollingWorkflow(await credential('poll (billing key)', sandbox.keys.billing)));
		made.workflows.push(pollWorkflow.id);
		await activateWorkflow(n8n.url, cookie, pushWorkflow.id);
		await activateWorkflow(n8n.url, cookie, pollWorkflow.id);
		// Registered once n8n answers the webhook itself: a body that is not JSON is refused (415) without an API call.
		const probe = await callProductionWebhook(n8n.url, WEBHOOK_PATH, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'probe' });
		if (probe.status !== 415) throw new Error(`the Callback Trigger's webhook answered ${probe.status} to a non-JSON body (415 expected): ${probe.text.slice(0, 300)}`);
		// The polling trigger's activation poll sets its baseline; completions come after it.
		const pollUser = fixtures.users.billing.id;
		await afterPoll(call, pollUser, 'the polling trigger\'s activation poll');
		await call('PUT', '/__sandbox/latency', { body: { ms: latencyMs } });
		// The window starts just after a scheduled poll and ends just after the one that emits the last completion: whole
		// minutes of n8n's schedule, so the poll's requests per hour are not skewed by where the window's ends fall.
		// (The smoke starts after the activation poll instead, up to a minute sooner.)
		await call('DELETE', '/__sandbox/requests');
		if (scenario.alignWindowToPoll) {
			await afterPoll(call, pollUser, 'the polling trigger\'s first scheduled poll');
			await call('DELETE', '/__sandbox/requests');
		}
		const windowStart = Date.now();
		const n8nLinesBefore = n8nLines.length;
		const callbackUrl = `${n8n.url.replace('localhost', '127.0.0.1')}/webhook/${WEBHOOK_PATH}`;
		const orderIds = [];
		for (let index = 0; index < scenario.orders; index++) {
			if (index > 0) await call('POST', '/__sandbox/clock/advance', { body: { minutes: STEP_MINUTES } });
			const [order] = await call('POST', '/integration/orders/create', {
				key: sandbox.keys.member,
				body: { orderType: 'document', level: 0, projectId: fixtures.projects.writable, targetLanguageConfigs: [{ language: 'es' }], callbackUrl },
			});
			orderIds.push(order.orderId);
		}
		// To just before the first completion: the orders are ongoing, none completed.
		await call('POST', '/__sandbox/clock/advance', { body: { minutes: MINUTES_TO_COMPLETE - STEP_MINUTES / 2 - (scenario.orders - 1) * STEP_MINUTES } });
		if ((await call('GET', '/__sandbox/callbacks')).count !== 0) throw new Error('push scenario: an order completed before the measured clock moves');

		const random = seededRandom(scenario.seed);
		const completions = [];
		for (const [index, orderId] of orderIds.entries()) {
			const [low, high] = scenario.gapSeconds;
			await sleep((low + random() * (high - low)) * 1000);
			const movedAt = Date.now();
			await call('POST', '/__sandbox/clock/advance', { body: { minutes: STEP_MINUTES } });
			const originals = (await call('GET', '/__sandbox/callbacks')).deliveries.filter((delivery) => delivery.repeatOf === null);
			if (originals.length !== index + 1 || originals[index].orderId !== orderId) {
				throw new Error(`push scenario: clock move ${index + 1} should complete order ${orderId} alone; the sandbox's deliveries: ${originals.map((delivery) => delivery.orderId).join(', ')}`);
			}
			completions.push({ orderId, movedAt, completedAt: Date.parse(originals[index].attempts[0].sentAt) });
			log(LOG_PREFIX, `  order ${index + 1} of ${orderIds.length} completed (${orderId})`);
		}

		// Until both workflows started for every order, or the wait runs out (then the result says what is missing).
		const executions = new ExecutionReader(n8n.url, cookie);
		let seen;
		const waitUntilMs = Date.now() + scenario.waitAfterLastMs;
		for (;;) {
			seen = { push: await executions.starts(pushWorkflow.id, PUSH_NODE, pushOrderIds), poll: await executions.starts(pollWorkflow.id, POLL_NODE, pollOrderIds) };
			const complete = (starts) => orderIds.every((orderId) => starts.has(orderId));
			if ((complete(seen.push) && complete(seen.poll)) || Date.now() > waitUntilMs) break;
			await sleep(2000);
		}
		const requestLog = await call('GET', '/__sandbox/requests');
		const windowMs = Date.now() - windowStart;
		const deliveries = (await call('GET', '/__sandbox/callbacks')).deliveries;
		const byUser = (userId) => requestLog.requests.filter((record) => record.userId === userId);
		const figures = pushFigures({
			scenario,
			completions,
			seen,
			windowMs,
			requests: { push: byUser(fixtures.users.owner.id), poll: byUser(fixtures.users.billing.id), driver: byUser(fixtures.users.member.id) },
			deliveries,
			n8nLog: n8nLines.slice(n8nLinesBefore).filter((line) => line.includes('Ollang') || /\berror\b/i.test(line)).slice(-10),
		});
		log(LOG_PREFIX, `  push: median ${figures.push.medianS} s, worst ${figures.push.worstS} s, ${figures.push.perHour} requests/hour; poll: median ${figures.poll.medianS} s, worst ${figures.poll.worstS} s, ${figures.poll.perHour} requests/hour (window ${formatElapsed(windowMs)})`);
		return { key: 'push', title: scenario.title, latencyMs, ...figures };
	} finally {
		if (n8n && cookie) {
			for (const id of made.workflows) await removeWorkflow(n8n.url, cookie, id).catch((error) => log(LOG_PREFIX, `  could not delete workflow ${id}: ${error.message}`));
			for (const id of made.credentials) await restRequest(n8n.url, cookie, 'DELETE', `/rest/credentials/${id}`).catch((error) => log(LOG_PREFIX, `  could not delete credential ${id}: ${error.message}`));
		}
		await n8n?.stop();
		await sandboxProcess.stop();
	}
}

/** The orders a Callback Trigger execution emitted (its items' orderId; none when n8n's store dropped a repeat). */
function pushOrderIds(items) {
	return items.map((item) => item.orderId);
}

/** The orders whose completion event a poll execution emitted. */
function pollOrderIds(items) {
	return items.filter((item) => COMPLETION_EVENTS.includes(item.type)).map((item) => item.orderId);
}

/**
 * Reads a workflow's finished executions through n8n's REST API, each one's run data once (also bench/bursts.mjs).
 * n8n 2.40 redacts the items of an execution whose start could not check its credentials (its database timing out
 * under a burst: "redacting run for everyone"), for every user; `storedData(id)` reads such an execution's data from
 * n8n's database instead (the set-ups on PostgreSQL), and the executions read so are counted (`readFromDatabase`);
 * without it they are `unreadable`.
 */
export class ExecutionReader {
	/** `limit`: the most recent executions read (n8n's list is newest first). */
	constructor(url, cookie, { limit = 250, storedData, parse } = {}) {
		this.url = url;
		this.cookie = cookie;
		this.limit = limit;
		this.storedData = storedData;
		/** n8n's own flatted parse by default (how it stores and sends run data). */
		this.parse = parse;
		this.details = new Map();
		this.readFromDatabase = new Set();
		this.unreadable = new Set();
	}

	/** An execution's run data, from the REST API or (redacted there) from n8n's database. */
	async runData(id) {
		const parse = (this.parse ??= requireFromN8n(await ensureRuntime(), 'flatted').parse);
		const detail = await restRequest(this.url, this.cookie, 'GET', `/rest/executions/${id}`);
		const data = parse(detail.data);
		if (data.redactionInfo?.isRedacted !== true) return data;
		const stored = this.storedData === undefined ? undefined : await this.storedData(id);
		if (stored === undefined) {
			this.unreadable.add(id);
			return data;
		}
		this.readFromDatabase.add(id);
		return parse(stored);
	}

	/** orderId -> the start times (ms) of the trigger node in every execution that emitted it. */
	async starts(workflowId, nodeName, orderIdsOf) {
		const starts = new Map();
		for (const summary of await readExecutionSummaries(this.url, this.cookie, workflowId, { limit: this.limit })) {
			if (summary.status === 'new' || summary.status === 'running') continue;
			if (!this.details.has(summary.id)) {
				const run = (await this.runData(summary.id)).resultData.runData[nodeName]?.[0];
				this.details.set(summary.id, { startTime: run?.startTime ?? Date.parse(summary.startedAt), items: (run?.data?.main?.[0] ?? []).map((item) => item.json) });
			}
			const { startTime, items } = this.details.get(summary.id);
			for (const orderId of orderIdsOf(items)) starts.set(orderId, [...(starts.get(orderId) ?? []), startTime]);
		}
		return starts;
	}
}

function callbackWorkflow(credential) {
	return twoNodeWorkflow(`${NAME_PREFIX}: Ollang Callback Trigger`, {
		name: PUSH_NODE,
		type: 'n8n-nodes-ollang.ollangCallbackTrigger',
		typeVersion: 1,
		webhookId: WEBHOOK_ID,
		parameters: { events: ['orderCompleted'] },
		credentials: { ollangApi: credential },
	});
}

function pollingWorkflow(credential) {
	return twoNodeWorkflow(`${NAME_PREFIX}: Ollang Trigger (every minute)`, {
		name: POLL_NODE,
		type: 'n8n-nodes-ollang.ollangTrigger',
		typeVersion: 1,
		// n8n's default Poll Times; the completion events of the delivery log, on the recent orders (the defaults).
		parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, event: 'orderDeliveryEvent', eventTypes: COMPLETION_EVENTS },
		credentials: { ollangApi: credential },
	});
}

/** The trigger, then a node doing nothing: the workflow's first node is the trigger. */
function twoNodeWorkflow(name, trigger) {
	const received = { id: 'bench-push-received', name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} };
	return {
		name,
		nodes: [{ id: 'bench-push-trigger', position: [0, 0], ...trigger }, received],
		connections: { [trigger.name]: { main: [[{ node: received.name, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** Workflows (published or archived) and credentials of an earlier run that ended before cleaning up. */
async function removeLeftovers(url, cookie) {
	for (const isArchived of [false, true]) {
		const filter = encodeURIComponent(JSON.stringify({ query: NAME_PREFIX, isArchived }));
		for (const workflow of await restRequest(url, cookie, 'GET', `/rest/workflows?filter=${filter}`)) {
			if (workflow.name.startsWith(NAME_PREFIX)) await removeWorkflow(url, cookie, workflow.id);
		}
	}
	for (const credential of await restRequest(url, cookie, 'GET', '/rest/credentials')) {
		if (credential.name.startsWith(NAME_PREFIX)) await restRequest(url, cookie, 'DELETE', `/rest/credentials/${credential.id}`);
	}
}

/** Waits until the polling trigger's key has made a request and none of its requests is still open for 2 s. */
async function afterPoll(call, pollUser, what) {
	let quietSince;
	await waitUntil(what, 90_000, async () => {
		const mine = (await call('GET', '/__sandbox/requests')).requests.filter((record) => record.userId === pollUser);
		const done = mine.length > 0 && mine.every((record) => record.status !== null);
		quietSince = done ? (quietSince ?? Date.now()) : undefined;
		return done && Date.now() - quietSince >= 2000;
	});
}

/** Archives and deletes a workflow; n8n unpublishes an archived one in the background and refuses (409) to delete it until then. */
export async function removeWorkflow(url, cookie, id) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await deleteWorkflow(url, cookie, id);
		} catch (error) {
			if (!/HTTP 409/.test(error.message) || attempt >= 30) throw error;
			await sleep(1000);
		}
	}
}

async function waitUntil(what, timeoutMs, probe) {
	const until = Date.now() + timeoutMs;
	while (!(await probe())) {
		if (Date.now() > until) throw new Error(`push scenario: timed out after ${formatElapsed(timeoutMs)} waiting for ${what}`);
		await sleep(250);
	}
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

/** mulberry32: the same pauses for the same seed. */
function seededRandom(seed) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let value = state;
		value = Math.imul(value ^ (value >>> 15), value | 1);
		value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
		return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
	};
}
