// The Ollang Callback Trigger in a real n8n (`n8n start`, the packed package installed as a user installs it): the
// sandbox's completion callbacks POSTed to the trigger's production URL, at least once (every delivery repeated), and
// requests that are not true callbacks. Every well-formed callback is answered {"received":true} at once and starts an
// execution whose first step confirms it with the API; the trigger's sweep (trigger(): the API's completing delivery
// events and QC evaluations) emits what push missed. What the trigger emitted is read from the executions n8n ran
// (its REST API): each completion once, whichever of push and sweep brought it; nothing for forged or unconfirmed
// callbacks (their executions end with no item). Then the example workflow, generated delivery schedules, n8n stopped
// while 20 orders complete (the sweep at activation emits them), a burst of 200 with the API not retrying, and push
// and sweep racing on the same completions.
//
// The sweep reads the account's listing, not one trigger's orders: every published trigger with a sweep emits every
// completion of the account after its baseline. So each case counts the orders it made, checks that no completion
// key is emitted twice by a workflow, and publishes the sweeping workflows only for the cases that need them.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import {
	activateWorkflow,
	DEFAULT_N8N_VERSION,
	N8N_VERSION,
	readExecutions,
	readExecutionSummaries,
	readWorkflowStaticData,
	restRequest,
	signIn,
	type N8nExecution,
	type RunningN8n,
} from '../../scripts/n8n/runtime.mjs';
import {
	callbackWorkflow,
	createOrders,
	deliveries,
	emittedItems,
	finishedExecutions,
	productionUrl,
	RECEIVED,
	runClockUntil,
	settledWithRepeats,
	untilNoneSending,
	untilRegistered,
	untilSweepBaseline,
	type CallbackDelivery,
} from './callbacks.mts';
import fc from 'fast-check';
import { runSchedule, scheduleArbitrary, violations, type ScheduleReceiver, type ScheduleWorld } from '../trigger/callbackSchedule.cts';
import { exampleNode, jsonIfRan, N8nUserFolder, readExample, SandboxClient, tally, testCredentials, WITH_N8N_3_DEFAULTS, waitFor, withoutLinkSignatures, type WorkflowJson } from './harness.mts';

type Json = Record<string, unknown>;
type Item = Json & { executionId: string };

const TOKEN = 'e2e-callback-token-7f3a';
/**
 * Push, and a sweep every 15 s: a completion whose confirming read failed (and its repeat, which shared that read) is
 * emitted by it within the case; after the restart, its sweep at activation. Unpublished after the restart case.
 */
const RECEIVER = callbackWorkflow('CallbackE2eRecv1', 'E2E: callbacks received', { secretToken: TOKEN, options: { sweepMinutes: 0.25 } });
/** Forged traffic goes to its own trigger, its sweep off: its read bound is per trigger, and nothing but push reaches it. */
const FORGED = callbackWorkflow('CallbackE2eForg1', 'E2E: forged callbacks', { options: { sweepMinutes: 0 } });
/** A short sweep for the burst and the race: 0.1 minutes, 6 s. Published for those cases only. */
const SWEEP_MINUTES = 0.1;
const SWEEP_MS = SWEEP_MINUTES * 60_000;
const SWEEPER = callbackWorkflow('CallbackE2eSwep1', 'E2E: burst and race, short sweep', { options: { sweepMinutes: SWEEP_MINUTES } });
/** Reads of orders the API refuses, per trigger and process and minute (nodes/OllangCallbackTrigger/readBudget.ts). */
const REFUSED_READS_PER_MINUTE = 60;
/** Generated schedules run here by seed (test/trigger/callbackSchedule.cts); each gets a workflow of its own. */
const SCHEDULE_SEED = Number(process.env.OLLANG_CALLBACK_E2E_SEED ?? 35);
const SCHEDULE_SAMPLE = 3;
/** A schedule's failed reads are left to the sweep: a short one, so the schedule's end waits seconds, not minutes. */
const SCHEDULED = Array.from({ length: SCHEDULE_SAMPLE }, (_, index) => callbackWorkflow(`CallbackE2eGen${index + 1}`, `E2E: generated schedule ${index + 1}`, { options: { sweepMinutes: SWEEP_MINUTES } }));
const EXAMPLE_FILE = 'order-completed-callback.json';
const EXAMPLE = readExample(EXAMPLE_FILE);
const EXAMPLE_TRIGGER = 'On Ollang callback';
/**
 * Forged callbacks naming unknown orders, 100 at once: more than three times the minute's bound of refused reads.
 * Each starts an execution now (the webhook answers before anything is read): the flood costs n8n an execution per
 * callback, so it is smaller than the 1,000 sent when the webhook read before answering.
 */
const FLOOD = 200;
/** Completions in the burst, the API not retrying a delivery (sandbox callback retries 'none'). */
const BURST = 200;
/** Orders completing while n8n is stopped. */
const WHILE_DOWN = 20;
const LABEL = `callback trigger e2e (n8n ${N8N_VERSION}${WITH_N8N_3_DEFAULTS ? ', 3.0 defaults' : ''})`;
void DEFAULT_N8N_VERSION;

/** A request to the trigger answered whatever its status. */
async function send(url: string, body: string, { contentType = 'application/json', method = 'POST' } = {}): Promise<{ status: number; text: string }> {
	const response = await fetch(url, { method, headers: { 'content-type': contentType }, body: method === 'GET' ? undefined : body });
	return { status: response.status, text: await response.text() };
}

const keyOf = (delivery: CallbackDelivery): string => `order:${delivery.orderId}:${String(delivery.completedAt)}`;
const running = (status: string): boolean => ['new', 'running', 'waiting'].includes(status);

/** Items of these orders' completions, tallied by completion key: each expected key once, no other key of these orders. */
function keyTally(expectedKeys: string[], items: Json[], orderIds: string[]): ReturnType<typeof tally> {
	return tally(expectedKeys, items.filter((item) => orderIds.includes(String(item.orderId))).map((item) => String(item.completionKey)));
}

function describeTally(counted: ReturnType<typeof tally>): string {
	return `expected ${counted.expected}, emitted ${counted.emitted}, missed ${counted.missed.length}, duplicated ${counted.duplicated.length}, unexpected ${counted.unexpected.length}`;
}

/** Every completion key a workflow emitted more than once (push and sweep, repeats, restarts): none may be. */
function twice(items: Json[]): string[] {
	const counts = new Map<string, number>();
	for (const item of items) counts.set(String(item.completionKey), (counts.get(String(item.completionKey)) ?? 0) + 1);
	return [...counts].filter(([, count]) => count > 1).map(([key, count]) => `${key} x${count}`);
}

function arrivals(items: Json[]): { push: number; sweep: number; other: number } {
	const push = items.filter((item) => item.arrivedBy === 'push').length;
	const sweep = items.filter((item) => item.arrivedBy === 'sweep').length;
	return { push, sweep, other: items.length - push - sweep };
}

/**
 * n8n's execution list; undefined while n8n answers 503 "Database is not ready!" (its SQLite ping timed out under a
 * burst's load: n8n refuses every request until a ping succeeds again).
 */
async function listExecutions(baseUrl: string, cookie: string, workflowId: string): Promise<Array<{ id: string; mode: string; status: string }> | undefined> {
	try {
		return await readExecutionSummaries(baseUrl, cookie, workflowId, { limit: 2000 });
	} catch (error) {
		if ((error as Error).message.includes('Database is not ready')) return undefined;
		throw error;
	}
}

/** Items a workflow's executions passed on to the node after the trigger. */
function receivedItems(executions: N8nExecution[]): Json[] {
	return executions.flatMap((execution) => jsonIfRan(execution, RECEIVED));
}

describe('the Ollang Callback Trigger in a real n8n (n8n start)', { timeout: 20 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let n8n: N8nUserFolder;
	let server: RunningN8n | undefined;
	let port: number;
	let cookie: string;
	let receiverUrl: string;
	/** Orders whose completion the receiver workflow must emit, each once (across every test of this file). */
	const expectedOrders: string[] = [];
	/** The completions the first test emitted, to repeat after the restart. */
	let emittedDeliveries: CallbackDelivery[] = [];

	/**
	 * Publishes a workflow as the editor's Publish button does, and waits for n8n to serve its webhook and, when the
	 * trigger sweeps, for its first sweep (its baseline set).
	 */
	async function publish(workflow: { workflow: WorkflowJson; webhookId: string }, token?: string): Promise<string> {
		await activateWorkflow(server!.url, cookie, workflow.workflow.id);
		const url = productionUrl(server!.url, workflow.webhookId, token);
		await untilRegistered(url);
		await untilSweepBaseline(server!.url, cookie, workflow.workflow);
		return url;
	}

	async function unpublish(workflowId: string): Promise<void> {
		await restRequest(server!.url, cookie, 'POST', `/rest/workflows/${encodeURIComponent(workflowId)}/deactivate`);
	}

	/**
	 * The workflow's executions and what its trigger emitted, once none is running and `done` holds for the items
	 * (n8n's execution list polled; each execution's data read when the list grew).
	 */
	async function untilItems(workflowId: string, done: (items: Item[]) => boolean, what: string, { timeoutMs = 120_000 } = {}): Promise<{ executions: N8nExecution[]; items: Item[] }> {
		let known = -1;
		let previous = -1;
		let executions: N8nExecution[] = [];
		return await waitFor(
			what,
			async () => {
				const summaries = await listExecutions(server!.url, cookie, workflowId);
				if (summaries === undefined) return undefined;
				const listed = summaries.length;
				const grew = listed !== previous;
				previous = listed;
				// The data is read once the list stands still (a burst's hundreds are not read again each second).
				if (grew || summaries.some((summary) => running(summary.status))) return undefined;
				if (summaries.length !== known) {
					try {
						executions = await readExecutions(server!.url, cookie, workflowId, { limit: 2000 });
					} catch (error) {
						if ((error as Error).message.includes('Database is not ready')) return undefined;
						throw error;
					}
					known = executions.some((execution) => running(execution.status)) ? -1 : executions.length;
					if (known === -1) return undefined;
				}
				const items = emittedItems(executions);
				return done(items) ? { executions, items } : undefined;
			},
			{ timeoutMs, intervalMs: 1000 },
		);
	}

	/** The executions once none runs and their number stayed the same for three seconds. */
	async function untilQuiet(workflowId: string, { timeoutMs = 180_000 } = {}): Promise<{ executions: N8nExecution[]; items: Item[] }> {
		let last = -1;
		let quietSince = Date.now();
		await waitFor(
			`the executions of ${workflowId} to end`,
			async () => {
				const summaries = await listExecutions(server!.url, cookie, workflowId);
				if (summaries === undefined || summaries.length !== last || summaries.some((summary) => running(summary.status))) {
					last = summaries?.length ?? -1;
					quietSince = Date.now();
					return undefined;
				}
				return Date.now() - quietSince >= 3000;
			},
			{ timeoutMs, intervalMs: 500 },
		);
		const executions = await waitFor('the executions\' data', async () => {
			try {
				return await finishedExecutions(server!.url, cookie, workflowId, last);
			} catch (error) {
				if ((error as Error).message.includes('Database is not ready')) return undefined;
				throw error;
			}
		}, { timeoutMs: 120_000, intervalMs: 1000 });
		return { executions, items: emittedItems(executions) };
	}

	/**
	 * Why each of these completion keys is missing, for a failure message: each of its order's deliveries (status, and
	 * each attempt's answer and time in ms), the API requests naming the order since `sinceMs` (an execution's
	 * confirming read, the sweep's detail reads; ms after `sinceMs`), and n8n's log lines naming it since `logFrom`
	 * (a push execution's read that failed, a claim found taken, an execution n8n did not start).
	 */
	async function whyMissing(keys: string[], sinceMs: number, logFrom: number): Promise<string> {
		if (keys.length === 0) return 'none missing';
		const all = await deliveries(sandbox);
		const requests = ((await sandbox.requests()) as Array<{ method: string; path: string; status: number | null; receivedAtMs: number; fault?: string }>).filter((request) => request.receivedAtMs >= sinceMs);
		const log = n8n.serverLog.slice(logFrom);
		const listings = requests.filter((request) => request.method === 'GET' && request.path === '/integration/orders');
		const lines = keys.map((key) => {
			const delivered = all.filter((delivery) => (key.startsWith('qc:') ? `qc:${delivery.evalId}` : keyOf(delivery)) === key);
			const orderId = delivered[0]?.orderId ?? key.split(':')[1];
			const attempts = delivered.map((delivery) => `#${delivery.id} ${delivery.status}${delivery.repeatOf === null ? '' : ` (repeat of #${delivery.repeatOf})`} [${delivery.attempts.map((attempt) => `${attempt.statusCode ?? attempt.error} in ${attempt.durationMs ?? '?'} ms`).join(', ')}]`);
			const reads = requests
				.filter((request) => request.path.includes(orderId))
				.map((request) => `${request.method} ${request.path.replace(`/integration/orders/${orderId}`, '…')} ${request.status ?? 'dropped'}${request.fault ? ` (fault ${request.fault})` : ''} at +${((request.receivedAtMs - sinceMs) / 1000).toFixed(1)} s`);
			const said = log.filter((line) => line.includes(orderId)).map((line) => line.slice(0, 300));
			return `${key}: deliveries ${attempts.join('; ') || 'none'}; requests naming the order ${reads.length} [${reads.join('; ')}]; ` +
				`n8n's log lines naming it ${said.length}${said.length === 0 ? ' (no execution of this process read it and failed, or was dropped)' : `:\n      ${said.join('\n      ')}`}`;
		});
		const trouble = log.filter((line) => /Database is not ready|did not start the execution|sweep for \w+ failed|ERROR|Error:/i.test(line));
		return `${keys.length} missing; sweeps' listings since: ${listings.length} (last at +${listings.length === 0 ? '-' : ((listings[listings.length - 1].receivedAtMs - sinceMs) / 1000).toFixed(1)} s)\n  ${lines.join('\n  ')}\n` +
			`n8n's log lines of trouble since: ${trouble.length}${trouble.length === 0 ? '' : `, the first 15:\n  ${trouble.slice(0, 15).map((line) => line.slice(0, 300)).join('\n  ')}`}`;
	}

	before(async () => {
		sandbox = await SandboxClient.start();
		n8n = N8nUserFolder.create('callbacks');
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		await n8n.importWorkflows([RECEIVER.workflow, FORGED.workflow, SWEEPER.workflow, EXAMPLE, ...SCHEDULED.map((each) => each.workflow)]);
		server = await n8n.start();
		port = Number(new URL(server.url).port);
		cookie = await signIn(server.url);
		// Published as the editor's Publish button does (a CLI publish would start n8n once more per workflow). The
		// short-sweep workflows are published by the cases that use them.
		receiverUrl = await publish(RECEIVER, TOKEN);
		await publish(FORGED);
		await activateWorkflow(server.url, cookie, EXAMPLE.id);
		await untilRegistered(productionUrl(server.url, String(exampleNode(EXAMPLE, EXAMPLE_TRIGGER).webhookId)));
		// Every delivery is sent twice from here on: the second copy of the same body, up to 2 simulated minutes later.
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 1 });
	});

	after(async () => {
		await server?.stop();
		// For a failing run: n8n's own output, where OLLANG_E2E_LOG_DIR asks for it.
		if (process.env.OLLANG_E2E_LOG_DIR) {
			mkdirSync(process.env.OLLANG_E2E_LOG_DIR, { recursive: true });
			writeFileSync(path.join(process.env.OLLANG_E2E_LOG_DIR, `callbacks-${N8N_VERSION}.log`), n8n.serverLog.join('\n'));
		}
		await sandbox?.stop();
		n8n?.remove();
	});

	it('emits each of 8 completions once: every delivery repeated and answered 200, two confirming reads failing (logged, emitted by a later arrival)', async () => {
		const orderIds = await createOrders(sandbox, 8, receiverUrl);
		expectedOrders.push(...orderIds);
		const failing = orderIds.slice(0, 2);
		// The confirming read of two orders fails more often than the transport retries it: the execution logs it and
		// emits nothing for it; the repeat (or the sweep) brings it again.
		for (const orderId of failing) {
			await sandbox.admin('POST', 'faults', { method: 'GET', path: `/integration/orders/${orderId}`, kind: 'status', status: 500, times: 4 });
		}
		await sandbox.advanceClock(10);
		const all = await runClockUntil(sandbox, settledWithRepeats(orderIds), { minMinutes: 3 });

		const ours = all.filter((delivery) => orderIds.includes(delivery.orderId));
		const { executions, items: everything } = await untilItems(RECEIVER.workflow.id, (found) => orderIds.every((orderId) => found.some((item) => item.orderId === orderId)), 'the 8 completions emitted');
		const items = everything.filter((item) => orderIds.includes(String(item.orderId)));
		const counted = tally(orderIds, items.map((item) => String(item.orderId)));
		const attempts = ours.flatMap((delivery) => delivery.attempts);
		const statuses = [...new Set(attempts.map((attempt) => attempt.statusCode ?? attempt.error))];
		console.log(
			`${LABEL}: completions ${describeTally(counted)}; by ${JSON.stringify(arrivals(items))}; deliveries ${ours.length} (repeats ${ours.filter((d) => d.repeatOf !== null).length}), ` +
				`attempts ${attempts.length}, answers ${JSON.stringify(statuses)}; executions of the workflow ${executions.length}`,
		);
		assert.deepEqual(
			{ missed: counted.missed, duplicated: counted.duplicated, unexpected: counted.unexpected, emitted: counted.emitted },
			{ missed: [], duplicated: [], unexpected: [], emitted: 8 },
		);
		assert.deepEqual(twice(everything), [], 'a completion emitted twice');
		// Each delivery answered 200 (no 503: nothing is confirmed before the answer), and each repeated.
		assert.ok(ours.every((delivery) => delivery.status === 'delivered'), JSON.stringify(ours.map((delivery) => [delivery.orderId, delivery.status])));
		assert.deepEqual(attempts.filter((attempt) => attempt.statusCode !== null && attempt.statusCode !== 200), [], 'an attempt answered other than 200');
		assert.equal(ours.filter((delivery) => delivery.repeatOf !== null).length, 8, 'every delivery repeated');
		// The failing reads were logged for the sweep, and the orders emitted by a later arrival.
		for (const orderId of failing) {
			await waitFor(`the log line of ${orderId}'s failed read`, async () => n8n.serverLog.some((line) => line.includes(`order:${orderId}@`) && line.includes('could not be confirmed with the Ollang API')), { timeoutMs: 10_000 });
		}
		// What was emitted is the API's answer, keyed by the completion the callback reported.
		for (const item of items) {
			const delivery = ours.find((candidate) => candidate.orderId === item.orderId && candidate.repeatOf === null)!;
			const order = item.order as Json;
			assert.equal(order.id, item.orderId);
			assert.ok(['completed', 'delivered'].includes(String(order.status)), `order ${String(item.orderId)} emitted as ${String(order.status)}`);
			assert.equal(item.completionKey, keyOf(delivery));
			assert.ok(['push', 'sweep'].includes(String(item.arrivedBy)), `arrivedBy ${String(item.arrivedBy)}`);
		}
		// The node after the trigger got every item, once.
		assert.equal(receivedItems(executions).filter((item) => orderIds.includes(String(item.orderId))).length, 8);
		emittedDeliveries = ours.filter((delivery) => delivery.repeatOf === null);
	});

	it('a confirming read slower than the API waits: the callback answered 200 all the same, emitted once, nothing retried', async () => {
		const [late] = await createOrders(sandbox, 1, receiverUrl);
		expectedOrders.push(late);
		// The first read of the order takes 12 s, more than the 10 s the API waits for an answer, and more than the
		// node's 5 s read timeout (the transport reads again). The answer does not wait for it.
		await sandbox.admin('POST', 'faults', { method: 'GET', path: `/integration/orders/${late}`, kind: 'delay', delayMs: 12_000, times: 1 });
		await sandbox.advanceClock(10);
		const all = await runClockUntil(sandbox, settledWithRepeats([late]), { minMinutes: 3 });
		const ours = all.filter((delivery) => delivery.orderId === late);
		const { items } = await untilItems(RECEIVER.workflow.id, (found) => found.some((item) => item.orderId === late), `order ${late} emitted`);
		await sleep(2000);
		const { items: again } = await untilQuiet(RECEIVER.workflow.id);
		const delayed = (await sandbox.requests()).filter((request) => request.path === `/integration/orders/${late}` && (request as { fault?: string }).fault === 'delay');
		console.log(`${LABEL}: a read slower than the API waits: attempts (original, repeat) ${JSON.stringify(ours.map((d) => d.attempts.map((a) => a.statusCode ?? a.error)))}; delayed reads ${delayed.length}; emitted ${JSON.stringify(again.filter((item) => item.orderId === late).map((item) => item.arrivedBy))}`);
		assert.equal(delayed.length, 1, 'the delayed read was not made');
		assert.deepEqual(ours.map((delivery) => delivery.attempts.map((attempt) => attempt.statusCode)), [[200], [200]]);
		assert.equal(items.filter((item) => item.orderId === late).length, 1);
		assert.equal(again.filter((item) => item.orderId === late).length, 1, 'a repeat emitted it again');
	});

	it('emits nothing for forged or unconfirmed callbacks (unknown order, not completed, wrong evalId, wrong token, not JSON, 1 MB) and keeps working', async () => {
		const [pending] = (await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: 1, type: 'document', level: 0, status: 'pending', progress: false })).map((row) => row.orderId);
		const [completed] = (await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: 1, type: 'document', level: 0, status: 'completed', progress: false })).map((row) => row.orderId);
		const qc = await sandbox.call<{ evalId: string }>('POST', `/integration/orders/${completed}/qc`, { body: {} });
		assert.equal(qc.status, 200, JSON.stringify(qc.body));
		await sandbox.advanceClock(5);
		await untilNoneSending(sandbox);
		const unknown = '0123456789abcdef01234567';
		const executionsBefore = (await readExecutionSummaries(server!.url, cookie, RECEIVER.workflow.id, { limit: 2000 })).length;
		const completedAt = new Date().toISOString();
		const completion = (orderId: string, extra: Json = {}) => JSON.stringify({ orderId, status: 'completed', completedAt, ...extra });
		const wrongToken = receiverUrl.replace(TOKEN, `${TOKEN}-not`);
		const noToken = receiverUrl.split('?')[0];
		const answers: Array<[string, number]> = [];
		const ask = async (what: string, request: Promise<{ status: number; text: string }>) => {
			answers.push([what, (await request).status]);
		};
		await ask('unknown order', send(receiverUrl, completion(unknown)));
		await ask('order not completed', send(receiverUrl, completion(pending)));
		await ask('wrong evalId', send(receiverUrl, JSON.stringify({ orderId: completed, evalId: 'eval_forged', status: 'completed', textSummary: '', scores: [], segmentEvals: [] })));
		await ask('wrong token', send(wrongToken, completion(completed)));
		await ask('no token', send(noToken, completion(completed)));
		await ask('not JSON', send(receiverUrl, `orderId=${completed}&status=completed`, { contentType: 'application/x-www-form-urlencoded' }));
		await ask('1 MB body', send(receiverUrl, completion(completed, { padding: 'x'.repeat(1024 * 1024) })));
		await ask('GET', send(receiverUrl, '', { method: 'GET' }));
		const malformed = await send(receiverUrl, `{"orderId": "${completed}", `);
		console.log(`${LABEL}: forged and unconfirmed callbacks answered ${answers.map(([what, status]) => `${what} ${status}`).join(', ')}, malformed JSON ${malformed.status}`);
		// Well-formed callbacks are answered at once (their executions confirm them); the rest refused.
		assert.deepEqual(answers, [
			['unknown order', 200],
			['order not completed', 200],
			['wrong evalId', 200],
			['wrong token', 401],
			['no token', 401],
			['not JSON', 415],
			['1 MB body', 413],
			['GET', 404],
		]);
		// n8n's body parser answers it before the node runs: 422 in n8n 2.40.
		assert.ok([400, 422].includes(malformed.status), `malformed JSON answered ${malformed.status}`);
		// n8n's log says why for each callback an execution read, and for each refusal.
		const logged = (pattern: RegExp) => n8n.serverLog.some((line) => pattern.test(line));
		for (const pattern of [
			new RegExp(`callback not confirmed by the Ollang API \\(order:${unknown}@[^)]*\\): the API answered 404 for order ${unknown}`),
			new RegExp(`callback not confirmed by the Ollang API \\(order:${pending}@[^)]*\\): order ${pending} is \\w+, not completed`),
			new RegExp(`callback not confirmed by the Ollang API \\(qc:eval_forged\\): evaluation eval_forged is not the latest of order ${completed}`),
			/refused a request \(401\): the secret token is missing or wrong/,
			/refused a request \(415\)/,
			/refused a request \(413\): a body of \d+ bytes/,
		]) {
			await waitFor(`n8n's log to have a line matching ${pattern}`, async () => logged(pattern), { timeoutMs: 30_000 });
		}
		assert.ok(!n8n.serverLog.some((line) => line.includes(TOKEN)), 'the secret token is in n8n\'s log');
		// The three well-formed ones started executions (at most: one may have shared); none emitted an item, so the
		// node after the trigger never ran for them.
		const { executions: forgedRuns } = await untilQuiet(RECEIVER.workflow.id);
		const started = forgedRuns.slice(executionsBefore);
		// (The receiver's sweep may emit the completed order's true completion meanwhile: the account's, not a forgery.)
		const forged = (item: Json) => [unknown, pending].includes(String(item.orderId)) || item.completionKey === 'qc:eval_forged';
		const forgedItems = emittedItems(started).filter(forged);
		console.log(`${LABEL}: forged and unconfirmed: executions started ${started.length}, items emitted ${forgedItems.length}, items after the trigger ${receivedItems(started).length}`);
		assert.deepEqual(forgedItems, [], 'a forged or unconfirmed callback emitted an item');
		assert.ok(started.length >= 1, 'no execution started: the case proves nothing about what executions emit');
		assert.deepEqual(receivedItems(started).filter(forged), []);
		// Named again, the unknown order and the forged evaluation start no execution: this process remembers the answer.
		const count = (await readExecutionSummaries(server!.url, cookie, RECEIVER.workflow.id, { limit: 2000 })).length;
		assert.equal((await send(receiverUrl, completion(unknown, { completedAt: new Date(Date.now() + 5000).toISOString() }))).status, 200);
		await waitFor('the unknown order answered without an execution', async () => n8n.serverLog.some((line) => line.includes(`order:${unknown}@`) && line.includes('answered without an execution')), { timeoutMs: 10_000 });
		await sleep(1500);
		assert.equal((await readExecutionSummaries(server!.url, cookie, RECEIVER.workflow.id, { limit: 2000 })).length, count, 'the unknown order named again started an execution');

		// Still working: the completed order's callback with the right token and a forged field is confirmed, and the
		// API's answer is emitted, not the body; the true QC callback of the order too. Each once, by push or by the
		// receiver's sweep (which reads the same completions in the API's listing), whichever came first.
		const order = await sandbox.get<Json>(`/integration/orders/${completed}`);
		assert.equal((await send(receiverUrl, completion(completed, { name: 'forged name' }))).status, 200);
		assert.equal((await send(receiverUrl, JSON.stringify({ orderId: completed, evalId: qc.body.evalId, status: 'completed' }))).status, 200);
		await untilItems(RECEIVER.workflow.id, (found) => found.filter((item) => item.orderId === completed).length >= 2, 'the true callbacks emitted');
		await sleep(1500);
		const { items: all } = await untilQuiet(RECEIVER.workflow.id);
		const items = all.filter((item) => item.orderId === completed).sort((a, b) => String(a.event).localeCompare(String(b.event)));
		console.log(`${LABEL}: the true callbacks after the forged ones: ${JSON.stringify(items.map((item) => [item.completionKey, item.arrivedBy]))}`);
		assert.deepEqual(
			items.map((item) => [item.event, item.orderId, (item.order as Json).name]),
			[
				['orderCompleted', completed, order.name],
				['qcEvaluationCompleted', completed, order.name],
			],
		);
		assert.deepEqual(items[1].evaluation, order.latestEvaluation);
		assert.equal(items[1].completionKey, `qc:${qc.body.evalId}`);
		expectedOrders.push(completed);
	});

	it('the example: a QC evaluation callback confirmed and emitted once (human review below a score of 85), an order completion listed with its documents', async () => {
		const exampleUrl = productionUrl(server!.url, String(exampleNode(EXAMPLE, EXAMPLE_TRIGGER).webhookId));
		try {
			const qcOrders = (await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: 3, type: 'document', level: 0, status: 'completed', progress: false })).map((row) => row.orderId);
			const evalIds: string[] = [];
			for (const orderId of qcOrders) {
				const started = await sandbox.call<{ evalId: string }>('POST', `/integration/orders/${orderId}/qc`, { body: { callbackUrl: exampleUrl } });
				assert.equal(started.status, 200, JSON.stringify(started.body));
				evalIds.push(started.body.evalId);
			}
			const [completedOrder] = await createOrders(sandbox, 1, exampleUrl);
			const ourOrders = [...qcOrders, completedOrder];
			await sandbox.advanceClock(10);
			const all = await runClockUntil(sandbox, (list) => {
				const ours = list.filter((delivery) => ourOrders.includes(delivery.orderId));
				return ours.length === 8 && ours.every((delivery) => delivery.status === 'delivered' || delivery.status === 'failed');
			}, { minMinutes: 3 });
			const ours = all.filter((delivery) => ourOrders.includes(delivery.orderId));
			assert.ok(ours.every((delivery) => delivery.status === 'delivered'), JSON.stringify(ours.map((d) => [d.kind, d.status, d.attempts.map((a) => a.statusCode)])));

			const isOurs = (item: Json) => ourOrders.includes(String(item.orderId));
			await untilItems(EXAMPLE.id, (found) => found.filter(isOurs).length >= 4, 'the example\'s 4 completions', { timeoutMs: 90_000 });
			const { executions: every } = await untilQuiet(EXAMPLE.id);
			// The executions that emitted these orders' completions (the example's sweep emits the account's, too).
			const executions = every.filter((execution) => emittedItems([execution], EXAMPLE_TRIGGER).some(isOurs));
			const items = emittedItems(executions, EXAMPLE_TRIGGER).filter(isOurs);
			assert.equal(items.length, 4, `one item per completion and evaluation: ${JSON.stringify(items.map((item) => item.completionKey))}`);
			assert.deepEqual(twice(emittedItems(every, EXAMPLE_TRIGGER)), []);
			assert.deepEqual(items.filter((item) => item.event === 'qcEvaluationCompleted').map((item) => item.evalId).sort(), [...evalIds].sort(), 'each evaluation emitted once');
			assert.deepEqual(items.filter((item) => item.event === 'orderCompleted').map((item) => item.orderId), [completedOrder]);
			assert.ok(executions.every((execution) => execution.status === 'success'), JSON.stringify(executions.map((e) => [e.status, e.data.resultData.error?.message])));

			const branches: string[] = [];
			for (const item of items) {
				const execution = executions.find((candidate) => candidate.id === item.executionId)!;
				if (item.event === 'orderCompleted') {
					const order = await sandbox.get<{ name: string; orderDocs: Array<{ type: string; name: string; url: string }> }>(`/integration/orders/${completedOrder}`);
					const listed = jsonIfRan(execution, 'Completed order').filter((row) => row.orderId === completedOrder);
					assert.deepEqual(withoutLinkSignatures(listed), withoutLinkSignatures([{
						orderId: completedOrder, name: order.name, targetLanguage: 'de', status: (item.order as Json).status, documents: order.orderDocs.map(({ type, name, url }) => ({ type, name, url })),
					}]));
					assert.ok(jsonIfRan(execution, 'Download files').length > 0, 'the completed order\'s files were not downloaded');
					continue;
				}
				const evaluation = item.evaluation as { scores: Array<{ value: number }>; textSummary: string };
				const lowest = Math.min(...evaluation.scores.map((score) => score.value));
				const reviewed = jsonIfRan(execution, 'Review requested').filter((row) => row.orderId === item.orderId);
				const ok = jsonIfRan(execution, 'Quality OK').filter((row) => row.orderId === item.orderId);
				assert.deepEqual(jsonIfRan(execution, 'Not eligible'), [], 'a completed level-0 order is eligible');
				if (lowest < 85) {
					assert.deepEqual([reviewed, ok], [[{ orderId: item.orderId, lowestScore: lowest, summary: evaluation.textSummary }], []]);
					const order = await sandbox.get<{ level: number }>(`/integration/orders/${String(item.orderId)}`);
					assert.equal(order.level, 1, `order ${String(item.orderId)} got its human review`);
				} else {
					assert.deepEqual([reviewed, ok], [[], [{ orderId: item.orderId, lowestScore: lowest, summary: evaluation.textSummary }]]);
				}
				branches.push(`${String(item.evalId)} lowest ${lowest}: ${lowest < 85 ? 'human review' : 'quality OK'}`);
			}
			console.log(`${LABEL}: example executions ${executions.length}, by ${JSON.stringify(arrivals(items))}; QC ${branches.join('; ')}`);
		} finally {
			// Its sweep would emit every later completion of the account, through Human Review and Download Files.
			await unpublish(EXAMPLE.id);
		}
	});
	/** The next completion's callback recorded by the sandbox (its real body) and not sent; its body. */
	async function completeQuietly(orderId: string, nth: number): Promise<Json> {
		const all = await runClockUntil(sandbox, (list) => list.filter((delivery) => delivery.orderId === orderId).length > nth, { maxMinutes: 30 });
		return all.filter((delivery) => delivery.orderId === orderId)[nth].body as Json;
	}

	/** 20 claims of one completion: other instants, and the same instant written otherwise. */
	function forgedVariants(body: Json): Json[] {
		const at = Date.parse(String(body.completedAt));
		const instants = [1, 1000, 60_000, -1000, -86_400_000, 3_600_000, 7 * 86_400_000, 2, 999, -60_000].map((shift) => new Date(at + shift).toISOString());
		const writings = [
			new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
			new Date(at).toISOString().replace('Z', '+00:00'),
			new Date(at + 2 * 3_600_000).toISOString().replace('Z', '+02:00'),
			new Date(at - 5 * 3_600_000).toISOString().replace('Z', '-05:00'),
			new Date(at).toUTCString(),
			new Date(at).toISOString().replace('T', ' '),
			new Date(at).toISOString().replace('Z', '-00:00'),
			new Date(at + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
			new Date(at - 1000).toISOString().replace('Z', '+00:00'),
			new Date(at).toString(),
		];
		return [...instants, ...writings].map((completedAt) => ({ ...body, completedAt }));
	}

	it('one real completion and 20 forged variants (other completedAt values and writings) emit 1 item; the rerun completing emits 1 more; answered {"received":true}', async () => {
		const url = productionUrl(server!.url, FORGED.webhookId);
		const started = Date.now();
		await sandbox.admin('PUT', 'callbacks/settings', { dropNext: 1 });
		const [orderId] = await createOrders(sandbox, 1, url);
		await sandbox.advanceClock(10);
		const real = await completeQuietly(orderId, 0);
		const variants = forgedVariants(real);
		const answers = await Promise.all([...variants.slice(0, 10), real, ...variants.slice(10)].map(async (body) => await send(url, JSON.stringify(body))));
		const firstKey = `order:${orderId}:${String(real.completedAt)}`;
		await untilItems(FORGED.workflow.id, (items) => items.some((item) => item.completionKey === firstKey), 'the real completion emitted');
		await sleep(2000);
		const { executions: afterFirst, items: firstItems } = await untilQuiet(FORGED.workflow.id);

		const rerun = await sandbox.call('POST', `/integration/orders/${orderId}/rerun`, { body: {} });
		assert.equal(rerun.status, 200, JSON.stringify(rerun.body));
		await sandbox.admin('PUT', 'callbacks/settings', { dropNext: 1 });
		await sandbox.advanceClock(10);
		const second = await completeQuietly(orderId, 1);
		const again = await Promise.all([second, real, ...forgedVariants(second), second].map(async (body) => await send(url, JSON.stringify(body))));
		const secondKey = `order:${orderId}:${String(second.completedAt)}`;
		await untilItems(FORGED.workflow.id, (items) => items.some((item) => item.completionKey === secondKey), 'the rerun\'s completion emitted');
		await sleep(2000);
		const { executions: all, items } = await untilQuiet(FORGED.workflow.id);
		const keys = items.map((item) => String(item.completionKey)).sort();
		console.log(
			`${LABEL}: 1 completion + 20 forged variants at once: executions ${afterFirst.length}, items ${firstItems.length} (answers ${JSON.stringify([...new Set(answers.map((a) => `${a.status} ${a.text}`))])}); ` +
				`its rerun + 22 callbacks: executions ${all.length}, keys ${JSON.stringify(keys)}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
		);
		assert.deepEqual(answers, Array.from({ length: 21 }, () => ({ status: 200, text: '{"received":true}' })));
		assert.ok(again.every((each) => each.status === 200 && each.text === '{"received":true}'), JSON.stringify(again));
		// Executions may start for the variants (the webhook answers before reading); only the API's completion is emitted.
		assert.deepEqual(firstItems.map((item) => item.completionKey), [firstKey], 'a forged variant emitted an item');
		assert.equal(receivedItems(afterFirst).length, 1);
		assert.deepEqual(keys, [firstKey, secondKey].sort(), 'the rerun or a variant of it emitted more than one item');
		assert.equal(receivedItems(all).length, 2, 'the node after the trigger ran for a variant');
		assert.ok(items.every((item) => item.arrivedBy === 'push'), 'the sweep is off on this trigger');
	});

	it(`${FLOOD.toLocaleString('en')} callbacks naming unknown orders emit nothing, with at most ${REFUSED_READS_PER_MINUTE} refused reads a minute; an unknown order named again starts no execution`, async () => {
		const url = productionUrl(server!.url, FORGED.webhookId);
		const executionsBefore = (await readExecutionSummaries(server!.url, cookie, FORGED.workflow.id, { limit: 2000 })).length;
		const unknownReads = (requests: Array<{ method: string; path: string; status: number | null }>) =>
			requests.filter((request) => request.method === 'GET' && /^\/integration\/orders\/fc[0-9a-f]{22}$/.test(request.path));
		const readsBefore = unknownReads(await sandbox.requests()).length;
		const logFrom = n8n.serverLog.length;
		const started = Date.now();
		const answers: Array<{ status: number; text: string }> = [];
		for (let index = 0; index < FLOOD; index += 50) {
			const batch = Array.from({ length: Math.min(50, FLOOD - index) }, (_, offset) => `fc${(index + offset).toString(16).padStart(22, '0')}`);
			answers.push(...(await Promise.all(batch.map(async (orderId) => await send(url, JSON.stringify({ orderId, status: 'completed', completedAt: new Date().toISOString() }))))));
		}
		const statuses = answers.map((answer) => answer.status);
		// n8n's own 503 before any node runs (its SQLite ping timed out under the flood): not the node's answer.
		const refusedByN8n = answers.filter((answer) => answer.status === 503 && answer.text.includes('Database is not ready')).length;
		const answeredIn = (Date.now() - started) / 1000;
		const { executions: every } = await untilQuiet(FORGED.workflow.id);
		const seconds = (Date.now() - started) / 1000;
		const reads = unknownReads(await sandbox.requests()).slice(readsBefore);
		const executions = every.slice(executionsBefore);
		const notRead = n8n.serverLog.slice(logFrom).filter((line) => line.includes(`not read: ${REFUSED_READS_PER_MINUTE} reads the API refused in the last minute`)).length;
		console.log(
			`${LABEL}: ${FLOOD.toLocaleString('en')} callbacks naming unknown orders answered in ${answeredIn.toFixed(1)} s (${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((status) => [status, statuses.filter((each) => each === status).length])))}); ` +
				`n8n's own 503 (database not ready) ${refusedByN8n}; executions ${executions.length} ended in ${seconds.toFixed(1)} s; reads ${reads.length} (bound ${REFUSED_READS_PER_MINUTE} a minute), left unread ${notRead}; items ${emittedItems(executions).length}, after the trigger ${receivedItems(executions).length}`,
		);
		assert.deepEqual(answers.filter((answer) => answer.status !== 200 && !(answer.status === 503 && answer.text.includes('Database is not ready'))), [], 'a well-formed callback answered other than 200 (or n8n\'s own "Database is not ready")');
		assert.deepEqual(emittedItems(executions), [], 'an unknown order emitted an item');
		assert.deepEqual(receivedItems(executions), [], 'the node after the trigger ran');
		assert.ok(reads.length <= REFUSED_READS_PER_MINUTE * Math.ceil(seconds / 60), `${reads.length} reads in ${seconds.toFixed(1)} s`);
		assert.ok(reads.every((read) => read.status === 404), JSON.stringify(reads.filter((read) => read.status !== 404)));
		assert.ok(notRead > 0, 'every callback of the flood was read: the bound never applied');

		// The orders read and refused, named again: answered without an execution (this process remembers the refusal).
		const named = [...new Set(reads.map((read) => read.path.split('/').pop()!))].slice(0, 20);
		const count = (await readExecutionSummaries(server!.url, cookie, FORGED.workflow.id, { limit: 2000 })).length;
		const again = await Promise.all(named.map(async (orderId) => (await send(url, JSON.stringify({ orderId, status: 'completed', completedAt: new Date().toISOString() }))).status));
		assert.deepEqual(again, named.map(() => 200));
		for (const orderId of named) {
			await waitFor(`order ${orderId} answered without an execution`, async () => n8n.serverLog.some((line) => line.includes(`order:${orderId}@`) && line.includes('answered without an execution')), { timeoutMs: 10_000 });
		}
		await sleep(2000);
		const after = (await readExecutionSummaries(server!.url, cookie, FORGED.workflow.id, { limit: 2000 })).length;
		console.log(`${LABEL}: ${named.length} unknown orders named again: executions started ${after - count}`);
		assert.ok(named.length > 0, 'no order was read');
		assert.equal(after, count, 'an unknown order named again started an execution');
	});

	it(`generated delivery schedules by seed (${SCHEDULE_SAMPLE} of seed ${SCHEDULE_SEED}; restarts and the second process stand for this one n8n): each real completion emitted once, nothing else`, async () => {
		const started = Date.now();
		const unused = [...SCHEDULED];
		const published: string[] = [];
		/** The orders of the schedule running: another order's completion is one the sweep found in the account. */
		let scheduleOrders: string[] = [];
		const receiverOf = (workflow: (typeof SCHEDULED)[number]): ScheduleReceiver => ({
			url: productionUrl(server!.url, workflow.webhookId),
			emitted: async () => {
				// A read that failed, or a callback confirmed as its order's later completion, is left to the sweep: the sweep
				// under way when the last callback came may have begun before it, so two sweeps after it, then every
				// execution ended (the sweep's own included).
				await sleep(2 * SWEEP_MS + 4000);
				const { items } = await untilQuiet(workflow.workflow.id);
				return items.filter((item) => item.arrivedBy !== 'sweep' || scheduleOrders.includes(String(item.orderId)));
			},
		});
		const ours = async (orderIds: string[]) => (await deliveries(sandbox)).filter((delivery) => orderIds.includes(delivery.orderId));
		const world: ScheduleWorld = {
			readsPerMinute: REFUSED_READS_PER_MINUTE,
			async receivers(processes) {
				const workflow = unused.shift()!;
				// Published now: its sweep's baseline is this moment, and it sweeps only while its schedule runs.
				await publish(workflow);
				published.push(workflow.workflow.id);
				const next = receiverOf(workflow);
				return processes === 1 ? [next] : [next, next];
			},
			restart: async (receiving) => receiving,
			createOrders: async (count) => {
				const made = await createOrders(sandbox, count, 'https://receiver.example/ollang-callback');
				scheduleOrders = made;
				return made;
			},
			async rerun(orderId) {
				assert.equal((await sandbox.call('POST', `/integration/orders/${orderId}/rerun`, { body: {} })).status, 200);
			},
			async requestQc(orderId) {
				assert.equal((await sandbox.call('POST', `/integration/orders/${orderId}/qc`, { body: { callbackUrl: 'https://receiver.example/qc' } })).status, 200);
			},
			async advanceUntil(orderIds, count) {
				for (let minute = 0; minute < 60 && (await ours(orderIds)).length < count; minute++) await sandbox.advanceClock(1);
				const made = await ours(orderIds);
				assert.ok(made.length >= count, `${count} callbacks expected, ${made.length} made`);
				return made;
			},
			failReads: async (times) => {
				await sandbox.admin('POST', 'faults', { method: 'GET', path: '/integration/orders/:orderId', kind: 'status', status: 503, retryAfterSeconds: 0, times });
			},
			clearFaults: async () => {
				await sandbox.admin('DELETE', 'faults');
			},
			orderReads: async () => (await sandbox.requests()).filter((request) => request.method === 'GET' && /^\/integration\/orders\/[^/]+$/.test(request.path)).length,
			async post(url, bodies) {
				const statuses: number[] = [];
				for (let index = 0; index < bodies.length; index += 20) {
					statuses.push(...(await Promise.all(bodies.slice(index, index + 20).map(async (body) => (await send(url, JSON.stringify(body))).status))));
				}
				return statuses;
			},
		};
		// The sandbox records the callbacks and sends none: the schedules deliver them.
		await sandbox.admin('PUT', 'callbacks/settings', { dropNext: 1000 });
		const found: string[] = [];
		try {
			const sample = fc.sample(scheduleArbitrary.map((drawn) => ({ ...drawn, flood: false })), { seed: SCHEDULE_SEED, numRuns: SCHEDULE_SAMPLE });
			for (const [index, drawn] of sample.entries()) {
				const scheduleFrom = Date.now();
				const logFrom = n8n.serverLog.length;
				const record = await runSchedule(world, drawn);
				const broken = violations(record, REFUSED_READS_PER_MINUTE);
				const emittedKeys = record.emitted.map((item) => String(item.completionKey));
				const lost = record.expected.filter((key) => !emittedKeys.includes(key));
				if (lost.length > 0) {
					// Diagnosis: the sweep's cursors of those orders, and whether two more sweeps find them after all.
					const workflowId = published[published.length - 1];
					const stored = JSON.stringify(await readWorkflowStaticData(server!.url, cookie, workflowId));
					const cursors = lost.map((key) => stored.match(new RegExp(`"${key.split(':')[1]}":[^\\]]*\\]`, 'g'))?.join(' ') ?? 'no cursor');
					await sleep(2 * SWEEP_MS + 4000);
					const { items: later } = await untilQuiet(workflowId);
					const foundLater = lost.filter((key) => later.some((item) => item.completionKey === key));
					broken.push(`not emitted: ${await whyMissing(lost, scheduleFrom, logFrom)}; the sweep's cursors ${cursors.join('; ')}; found by the sweep ${2 * SWEEP_MS / 1000} s later: ${JSON.stringify(foundLater)}`);
				}
				console.log(
					`${LABEL}: schedule ${index + 1} of seed ${SCHEDULE_SEED}: ${drawn.orders} orders, reruns ${JSON.stringify(drawn.reruns)}, qc ${drawn.qc}, steps ${drawn.phases.map((phase) => phase.length).join('+')}: ` +
						`expected ${record.expected.length}, emitted ${record.emitted.length} (by ${JSON.stringify(arrivals(record.emitted))}), reads ${record.reads}; violations ${broken.length}`,
				);
				found.push(...broken.map((problem) => `schedule ${index + 1} (${JSON.stringify(drawn)}): ${problem}`));
				await unpublish(published[published.length - 1]);
			}
		} finally {
			await sandbox.admin('PUT', 'callbacks/settings', { dropNext: 0 });
			await sandbox.admin('DELETE', 'faults');
		}
		console.log(`${LABEL}: generated schedules ${SCHEDULE_SAMPLE}, violations ${found.length}; ${((Date.now() - started) / 1000).toFixed(1)} s`);
		assert.deepEqual(found, []);
	});

	it(`across a restart: ${WHILE_DOWN} orders completing while n8n is stopped (the API not retrying) are emitted once by the sweep at activation; repeats of earlier completions emit nothing after the trigger`, async () => {
		assert.equal(emittedDeliveries.length, 8, 'the first test emitted the completions to repeat');
		const started = Date.now();
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 0, retries: 'none' });
		try {
			const whileDown = [...(await createOrders(sandbox, 10, receiverUrl)), ...(await createOrders(sandbox, WHILE_DOWN - 10, receiverUrl))];
			expectedOrders.push(...whileDown);
			// SIGTERM to n8n itself, as a service manager stops it.
			const stopping = server!;
			server = undefined;
			const exited = new Promise((resolve) => stopping.child.once('exit', resolve));
			process.kill(stopping.child.pid!, 'SIGTERM');
			await Promise.race([exited, sleep(60_000)]);
			await stopping.stop();
			// The orders complete while n8n is down: each delivery finds no one (connection refused), and is not tried again.
			await sandbox.advanceClock(10);
			const down = await runClockUntil(sandbox, (all) => all.filter((delivery) => whileDown.includes(delivery.orderId) && delivery.status === 'failed').length === WHILE_DOWN, { maxMinutes: 10 });
			const refused = down.filter((delivery) => whileDown.includes(delivery.orderId));
			assert.equal(refused.length, WHILE_DOWN);
			assert.ok(refused.every((delivery) => delivery.attempts.length === 1 && delivery.attempts[0].statusCode === null), JSON.stringify(refused.map((d) => d.attempts)));
			const downKeys = refused.map(keyOf);

			server = await n8n.start({}, { port });
			cookie = await signIn(server.url);
			await untilRegistered(receiverUrl);
			const restartedIn = (Date.now() - started) / 1000;
			// The sweep at activation emits what completed meanwhile.
			const { executions: swept, items: sweptItems } = await untilItems(RECEIVER.workflow.id, (items) => downKeys.every((key) => items.some((item) => item.completionKey === key)), `the ${WHILE_DOWN} completions emitted after the restart`);
			const downItems = sweptItems.filter((item) => whileDown.includes(String(item.orderId)));
			const sweptIn = (Date.now() - started) / 1000;
			console.log(`${LABEL}: ${WHILE_DOWN} completed while n8n was down: n8n up again after ${restartedIn.toFixed(1)} s, emitted ${downItems.length} by ${JSON.stringify(arrivals(downItems))} after ${sweptIn.toFixed(1)} s, in executions ${JSON.stringify([...new Set(downItems.map((item) => `${item.executionId} ${swept.find((e) => e.id === item.executionId)?.mode}`))])}`);
			assert.deepEqual(keyTally(downKeys, downItems, whileDown).duplicated, []);
			assert.equal(downItems.length, WHILE_DOWN);
			assert.ok(downItems.every((item) => item.arrivedBy === 'sweep'), JSON.stringify(downItems.map((item) => item.arrivedBy)));
			assert.ok(downItems.every((item) => (item.order as Json).id === item.orderId && ['completed', 'delivered'].includes(String((item.order as Json).status))), 'a swept item is not the API\'s order');

			// The process's memory is empty after the restart: each repeat, and each of the API's callbacks the sweep
			// already emitted, is answered, starts an execution, and is dropped by n8n's deduplication store.
			const logFrom = n8n.serverLog.length;
			const repeats = [...emittedDeliveries, ...refused];
			for (const delivery of repeats) {
				const repeated = await send(receiverUrl, JSON.stringify(delivery.body));
				assert.equal(repeated.status, 200, repeated.text);
			}
			for (const delivery of repeats) {
				await waitFor(`the log line of the dropped repeat of ${keyOf(delivery)}`, async () => n8n.serverLog.slice(logFrom).some((line) => line.includes(`repeated completion dropped (${keyOf(delivery)}): it started a workflow before`)), { timeoutMs: 30_000 });
			}
			await sleep(2000);
			const { executions, items } = await untilQuiet(RECEIVER.workflow.id);
			const counted = tally(expectedOrders, items.filter((item) => item.event === 'orderCompleted' && expectedOrders.includes(String(item.orderId))).map((item) => String(item.orderId)));
			const pushedElsewhere = items.filter((item) => item.arrivedBy === 'push' && !expectedOrders.includes(String(item.orderId)));
			console.log(
				`${LABEL}: after the restart, ${repeats.length} repeats (${emittedDeliveries.length} emitted by push before, ${refused.length} by the sweep) dropped; ` +
					`all completions of the receiver ${describeTally(counted)}; by ${JSON.stringify(arrivals(items))} (the sweep emits the account's); executions ${executions.length}`,
			);
			assert.deepEqual({ missed: counted.missed, duplicated: counted.duplicated }, { missed: [], duplicated: [] });
			assert.equal(counted.emitted, expectedOrders.length);
			assert.deepEqual(twice(items), [], 'a completion emitted twice');
			assert.deepEqual(pushedElsewhere, [], 'a push emitted an order no callback to this trigger named');
		} finally {
			await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 1, retries: 'three' });
			// Its sweep would emit the later cases' completions too.
			if (server !== undefined) await unpublish(RECEIVER.workflow.id);
		}
	});

	// A burst of completions once failed the API's 10 s when the trigger confirmed before answering. Now every callback
	// is answered at once and confirmed in its execution; whatever the API could not deliver (no answer in time, and
	// no retry), the sweep brings.
	it(`a burst of ${BURST} completions, the API not retrying: each emitted exactly once, by push or by the sweep`, async () => {
		const url = await publish(SWEEPER);
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 0, retries: 'none' });
		try {
			const orderIds: string[] = [];
			while (orderIds.length < BURST) orderIds.push(...(await createOrders(sandbox, Math.min(10, BURST - orderIds.length), url)));
			const started = Date.now();
			const logFrom = n8n.serverLog.length;
			await sandbox.advanceClock(11);
			const ours = (await untilNoneSending(sandbox)).filter((delivery) => orderIds.includes(delivery.orderId));
			const expectedKeys = ours.map(keyOf);
			/** The missing keys and why, with n8n's executions of the workflow by mode and status. */
			const explain = async (items: Item[]): Promise<string> => {
				const missing = expectedKeys.filter((key) => !items.some((item) => item.completionKey === key));
				const summaries = (await listExecutions(server!.url, cookie, SWEEPER.workflow.id)) ?? [];
				const kinds = new Map<string, number>();
				for (const summary of summaries) kinds.set(`${summary.mode} ${summary.status}`, (kinds.get(`${summary.mode} ${summary.status}`) ?? 0) + 1);
				return `executions ${JSON.stringify(Object.fromEntries(kinds))}; ${await whyMissing(missing, started, logFrom)}`;
			};
			try {
				await untilItems(SWEEPER.workflow.id, (items) => expectedKeys.every((key) => items.some((item) => item.completionKey === key)), `the ${BURST} completions emitted`, { timeoutMs: 480_000 });
			} catch (error) {
				const { items } = await untilQuiet(SWEEPER.workflow.id, { timeoutMs: 60_000 }).catch(() => ({ items: [] as Item[] }));
				throw new Error(`${(error as Error).message}; ${await explain(items)}`);
			}
			const allIn = (Date.now() - started) / 1000;
			// Another sweep after the last: it finds nothing to emit again.
			await sleep(SWEEP_MS + 5000);
			const { executions, items } = await untilQuiet(SWEEPER.workflow.id);
			const burstItems = items.filter((item) => orderIds.includes(String(item.orderId)));
			const counted = keyTally(expectedKeys, burstItems, orderIds);
			const byOutcome = new Map<string, number>();
			for (const delivery of ours) {
				const attempt = delivery.attempts[0];
				const outcome = attempt.statusCode === null ? 'no answer' : attempt.statusCode === 503 ? '503 (n8n: database not ready)' : String(attempt.statusCode);
				byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
			}
			const by = arrivals(burstItems);
			console.log(
				`${LABEL}: burst of ${BURST}, the API not retrying: first attempts ${JSON.stringify(Object.fromEntries(byOutcome))}, slowest answer ${Math.max(...ours.map((d) => d.attempts[0].durationMs ?? 0))} ms; ` +
					`emitted ${describeTally(counted)}, by push ${by.push}, by the sweep ${by.sweep}; all emitted ${allIn.toFixed(1)} s after the completions; executions ${executions.length}`,
			);
			assert.equal(ours.length, BURST);
			assert.ok(ours.every((delivery) => delivery.attempts.length === 1), 'the API tried a delivery again');
			assert.deepEqual({ missed: counted.missed, duplicated: counted.duplicated, unexpected: counted.unexpected }, { missed: [], duplicated: [], unexpected: [] }, counted.missed.length === 0 ? undefined : await explain(burstItems));
			assert.equal(burstItems.length, BURST);
			assert.equal(by.push + by.sweep, BURST, 'an item says neither push nor sweep');
			assert.deepEqual(twice(items), []);
			assert.equal(receivedItems(executions).filter((item) => orderIds.includes(String(item.orderId))).length, BURST);
		} finally {
			await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 1, retries: 'three' });
		}
	});

	it('push and the sweep racing on the same completions: callbacks sent as the sweep reads the API, each completion emitted once', async () => {
		const url = productionUrl(server!.url, SWEEPER.webhookId);
		const rounds = 3;
		/** ms after the sweep's listing request that each order's callback is sent: before, during and after its reads. */
		const offsets = [0, 100, 250, 500, 1000];
		const raceOrders: string[] = [];
		const raceKeys: string[] = [];
		const sentAfterListing: number[][] = [];
		const logFrom = n8n.serverLog.length;
		// After the burst, n8n may still refuse requests while its database ping catches up.
		await waitFor('n8n to answer again after the burst', async () => (await listExecutions(server!.url, cookie, SWEEPER.workflow.id)) !== undefined, { timeoutMs: 120_000, intervalMs: 1000 });
		let refusedByN8n = 0;
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 0, retries: 'none' });
		try {
			for (let round = 0; round < rounds; round++) {
				const orderIds = await createOrders(sandbox, offsets.length, url);
				raceOrders.push(...orderIds);
				// The API's callbacks are recorded and not sent: this test sends them at the sweep's moment.
				await sandbox.admin('PUT', 'callbacks/settings', { dropNext: offsets.length });
				await sandbox.clearRequests();
				const completedAt = Date.now();
				await sandbox.advanceClock(11);
				const recorded = (await deliveries(sandbox)).filter((delivery) => orderIds.includes(delivery.orderId));
				assert.equal(recorded.length, offsets.length, 'not every order completed');
				assert.ok(recorded.every((delivery) => delivery.status === 'dropped'), 'the sandbox sent a callback itself');
				raceKeys.push(...recorded.map(keyOf));
				// The first sweep after the completions: its listing of the account's orders.
				const listedAt = await waitFor(
					'the sweep to list the orders',
					async () => (await sandbox.requests()).find((request) => request.method === 'GET' && request.path === '/integration/orders' && (request as { receivedAtMs?: number }).receivedAtMs! > completedAt) as { receivedAtMs: number } | undefined,
					// A sweep waits for the execution of what the one before found (a minute at most): after the burst, longer.
					{ timeoutMs: SWEEP_MS + 150_000, intervalMs: 20 },
				);
				const answers = await Promise.all(
					recorded.map(async (delivery, index) => {
						const wait = listedAt.receivedAtMs + offsets[index] - Date.now();
						if (wait > 0) await sleep(wait);
						const sentAt = Date.now() - listedAt.receivedAtMs;
						return { sentAt, answer: await send(url, JSON.stringify(delivery.body)) };
					}),
				);
				sentAfterListing.push(answers.map((each) => each.sentAt));
				// The node answers each at once; n8n itself may answer 503 while its database ping fails under load (then
				// that completion is the sweep's alone).
				refusedByN8n += answers.filter((each) => each.answer.status === 503 && each.answer.text.includes('Database is not ready')).length;
				assert.deepEqual(answers.filter((each) => !(each.answer.status === 200 && each.answer.text === '{"received":true}') && !(each.answer.status === 503 && each.answer.text.includes('Database is not ready'))), []);
			}
			await untilItems(SWEEPER.workflow.id, (items) => raceKeys.every((key) => items.some((item) => item.completionKey === key)), 'the raced completions emitted');
			// Another sweep after the last: it finds nothing to emit again.
			await sleep(SWEEP_MS + 5000);
			const { items } = await untilQuiet(SWEEPER.workflow.id);
			const raceItems = items.filter((item) => raceOrders.includes(String(item.orderId)));
			const counted = keyTally(raceKeys, raceItems, raceOrders);
			const log = n8n.serverLog.slice(logFrom);
			const lost = (phrase: string) => raceKeys.filter((key) => log.some((line) => line.includes(key) && line.includes(phrase))).length;
			console.log(
				`${LABEL}: push and sweep racing, ${rounds} rounds of ${offsets.length}: callbacks sent ${JSON.stringify(sentAfterListing)} ms after the sweep's listing; ` +
					`answered 503 by n8n (database not ready) ${refusedByN8n}; emitted ${describeTally(counted)}, by ${JSON.stringify(arrivals(raceItems))}; claims lost at the same moment ${lost('was recorded at the same moment by another execution')}, found already claimed ${lost('repeated completion dropped')}`,
			);
			assert.deepEqual({ missed: counted.missed, duplicated: counted.duplicated, unexpected: counted.unexpected }, { missed: [], duplicated: [], unexpected: [] });
			assert.equal(raceItems.length, rounds * offsets.length);
			assert.deepEqual(twice(items), []);
		} finally {
			await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 1, retries: 'three', dropNext: 0 });
		}
	});
});
