// "Create and wait, in one workflow" (examples/order-create-and-wait.json) in a real n8n: Order > Create gives the
// API the execution's own resume URL, n8n's Wait node (On Webhook Call, with a time limit) waits, the sandbox's
// completion callbacks resume it, Order > Get confirms every order, and the loop ends once all are finished. The
// example file is run as imported (its credential is the sandbox owner's, as the harness imports it), started as the
// editor's "Execute workflow" starts it; the sandbox's clock is moved so the orders complete. Variations: every
// callback lost (the time limit recovers), one of three lost (the others resume it), two runs at once, and queue
// mode (the resumed execution runs on a worker). Prints the callback -> resume latency.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { callProductionWebhook, readExecutions, restRequest, signIn, startN8n, startN8nWorker, type N8nExecution, type RunningN8n, type RunningWorker } from '../../scripts/n8n/runtime.mjs';
import { freePort } from '../../scripts/n8n/process.mjs';
import { QUEUE_WORKERS, startQueueServices, type RunningQueueServices } from '../../scripts/n8n/queue-mode.mjs';
import { exampleNode, jsonOf, N8nUserFolder, readExample, SandboxClient, testCredentials, waitFor, type WorkflowJson } from './harness.mts';
import { asWebhookWorkflow } from './workflows.mts';

type Json = Record<string, unknown>;

const EXAMPLE_FILE = 'order-create-and-wait.json';
const WAIT_NODE = 'Wait for a callback';
const CREATE_NODE = 'Create orders';
const GET_NODE = 'Get order';
const DONE_NODE = 'Done';
const FINISHED_STATUSES = ['completed', 'delivered'];
/** A document order completes (AI delivered) 11 simulated minutes after it is created (sandbox/README.md). */
const MINUTES_TO_COMPLETE = 11;

interface Delivery {
	orderId: string;
	target: string;
	status: string;
	repeatOf: number | null;
	attempts: Array<{ sentAt: string; statusCode: number | null; error: string | null }>;
}

const example = readExample(EXAMPLE_FILE);
/** The short example on the same pattern: subtitles in three languages, then the VTT files. */
const subtitlesExample = readExample('subtitles-for-a-video.json');
/** A subtitle order waits for closed captions first: 1 + 3 + 5 + 10 simulated minutes (sandbox/README.md). */
const MINUTES_TO_SUBTITLES = 19;
const ordersPerRun = (exampleNode(example, CREATE_NODE).parameters.targetLanguages as { language: unknown[] }).language.length;

/** The example with another id and name, and its Wait's time limit in minutes (the dropped-callback runs use 1). */
function variant(id: string, label: string, limitMinutes?: number): WorkflowJson {
	const workflow = structuredClone(example);
	workflow.id = id;
	workflow.name = `${example.name} (${label})`;
	if (limitMinutes !== undefined) exampleNode(workflow, WAIT_NODE).parameters.resumeAmount = limitMinutes;
	return workflow;
}

/** What one finished run of the example shows. */
interface RunFacts {
	created: string[];
	confirmed: Array<{ orderId: string; status: string }>;
	/** How often the orders were read (rounds of the loop). */
	rounds: number;
	/** How the Wait ended each time: 'callback' (a webhook body) or 'time limit' (its input items). */
	resumedBy: string[];
}

function factsOf(execution: N8nExecution): RunFacts {
	assert.equal(execution.status, 'success', `execution ${execution.id} ended ${execution.status}: ${JSON.stringify(execution.data.resultData.error ?? {})}`);
	const created = jsonOf(execution, CREATE_NODE).map((json) => String(json.orderId));
	const [done] = jsonOf(execution, DONE_NODE);
	const runs = execution.data.resultData.runData;
	const resumedBy = (runs[WAIT_NODE] ?? []).map((run) => {
		const first = run.data?.main[0]?.[0]?.json as Json | undefined;
		return first && 'body' in first && 'headers' in first ? 'callback' : 'time limit';
	});
	return {
		created,
		confirmed: (done.orders as Array<{ orderId: string; status: string }>).map(({ orderId, status }) => ({ orderId, status })),
		rounds: runs[GET_NODE]?.length ?? 0,
		resumedBy,
	};
}

/** The first node after the Wait started this long (ms) after the first callback for the run's orders was sent. */
function callbackToResumeMs(execution: N8nExecution, deliveries: Delivery[], created: string[]): number | undefined {
	const sent = deliveries
		.filter((delivery) => created.includes(delivery.orderId))
		.flatMap((delivery) => delivery.attempts.filter((attempt) => attempt.statusCode !== null && attempt.statusCode < 300).map((attempt) => Date.parse(attempt.sentAt)));
	const after = execution.data.resultData.runData['Orders of this run']?.[0]?.startTime;
	return sent.length > 0 && after !== undefined ? after - Math.min(...sent) : undefined;
}

describe('create and wait in one workflow (the example, n8n start)', { timeout: 20 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let n8n: N8nUserFolder;
	let server: RunningN8n | undefined;
	let cookie: string;
	const figures: string[] = [];
	const latencies: number[] = [];
	const workflows = {
		together: variant('ollangCrWaitTgth', 'all complete together'),
		oneLost: variant('ollangCrWaitOne1', 'one callback lost'),
		allLost: variant('ollangCrWaitLost', 'every callback lost', 1),
		twoRuns: variant('ollangCrWaitTwo1', 'two runs at once'),
		cancelled: variant('ollangCrWaitCanc', 'an order cancelled'),
		forged: variant('ollangCrWaitFrgd', 'a forged callback'),
	};

	before(async () => {
		sandbox = await SandboxClient.start();
		// No seeded repeats: each test decides what is lost; a repeat is its own test below.
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 0 });
		n8n = N8nUserFolder.create('create-wait');
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		await n8n.importWorkflows([example, subtitlesExample, ...Object.values(workflows)]);
		server = await n8n.start();
		cookie = await signIn(server.url);
	});

	after(async () => {
		console.log(`Create and wait in n8n:\n${figures.map((line) => `  ${line}`).join('\n')}`);
		if (latencies.length > 0) {
			const sorted = [...latencies].sort((a, b) => a - b);
			console.log(`  callback sent -> Wait resumed: median ${(sorted[Math.floor(sorted.length / 2)] / 1000).toFixed(2)} s, worst ${(sorted[sorted.length - 1] / 1000).toFixed(2)} s over ${sorted.length} runs`);
		}
		await server?.stop();
		await sandbox?.stop();
		n8n?.remove();
	});

	/** Starts the workflow as the editor's "Execute workflow" does; resolves with the execution id. */
	const execute = async (workflow: WorkflowJson): Promise<string> => {
		const started = await restRequest<{ executionId: string }>(server!.url, cookie, 'POST', `/rest/workflows/${workflow.id}/run`, { triggerToStartFrom: { name: 'Start' } });
		assert.ok(started.executionId, `no execution started: ${JSON.stringify(started)}`);
		return String(started.executionId);
	};
	const executionsOf = async (workflow: WorkflowJson) => await readExecutions(server!.url, cookie, workflow.id);
	const untilStatus = async (workflow: WorkflowJson, ids: string[], statuses: string[], timeoutMs = 120_000): Promise<N8nExecution[]> =>
		await waitFor(
			`executions ${ids.join(', ')} of "${workflow.name}" to be ${statuses.join(' or ')}`,
			async () => {
				const found = (await executionsOf(workflow)).filter((execution) => ids.includes(execution.id));
				return found.length === ids.length && found.every((execution) => statuses.includes(execution.status)) ? found : undefined;
			},
			{ timeoutMs, intervalMs: 500 },
		);
	const deliveries = async (): Promise<Delivery[]> => (await sandbox.admin<{ deliveries: Delivery[] }>('GET', 'callbacks')).deliveries;
	const orderStatus = async (orderId: string) => (await sandbox.get<{ status: string }>(`/integration/orders/${orderId}`)).status;

	/** Asserts the run made `ordersPerRun` orders and confirmed each of them finished, through the API too. */
	const assertEveryOrderConfirmed = async (facts: RunFacts) => {
		assert.equal(facts.created.length, ordersPerRun, 'orders created');
		assert.deepEqual(facts.confirmed.map((order) => order.orderId), facts.created, 'the orders confirmed are the orders created');
		for (const { orderId, status } of facts.confirmed) {
			assert.ok(FINISHED_STATUSES.includes(status), `order ${orderId} confirmed as ${status}`);
			assert.ok(FINISHED_STATUSES.includes(await orderStatus(orderId)));
		}
	};

	it('every order completes at once: a callback resumes the Wait, every order is confirmed, one execution', async () => {
		const workflow = workflows.together;
		const id = await execute(workflow);
		await untilStatus(workflow, [id], ['waiting']);
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const [execution] = await untilStatus(workflow, [id], ['success', 'error', 'crashed', 'canceled']);

		const facts = factsOf(execution);
		await assertEveryOrderConfirmed(facts);
		assert.deepEqual(facts.resumedBy, ['callback'], 'resumed once, by a callback, not by the time limit');
		assert.equal(facts.rounds, 1);
		assert.equal((await executionsOf(workflow)).length, 1, 'one execution');
		// The example ends with the files: each order's translated document.
		const files = jsonOf(execution, 'Download files');
		assert.deepEqual(files.map((file) => [file.orderId, file.kind]).sort(), facts.created.map((orderId) => [orderId, 'translatedDocument']).sort());
		// Each order's callback was sent once, at the same moment, to this execution's resume URL. n8n took one (200)
		// and refused the others: 500 when it was already resuming (its guarded status update lost the race), 409 once
		// it ran or had finished. No second resumption.
		const sent = (await deliveries()).filter((delivery) => facts.created.includes(delivery.orderId));
		assert.equal(sent.length, ordersPerRun);
		for (const delivery of sent) assert.match(delivery.target, new RegExp(`/webhook-waiting/${execution.id}\\?`));
		const codes = sent.map((delivery) => delivery.attempts[0].statusCode);
		assert.equal(codes.filter((code) => code === 200).length, 1, `n8n's answers to the first attempts: ${codes.join(', ')}`);
		for (const code of codes.filter((candidate) => candidate !== 200)) assert.ok(code === 409 || code === 500, `n8n's answers to the first attempts: ${codes.join(', ')}`);
		const latency = callbackToResumeMs(execution, sent, facts.created);
		if (latency !== undefined) latencies.push(latency);
		figures.push(
			`all complete together: ${facts.created.length} created, ${facts.confirmed.length} confirmed, 1 execution, rounds ${facts.rounds}, ` +
				`first attempts answered ${codes.join('/')}, callback -> resume ${latency} ms`,
		);

		// The sandbox tries the refused ones again a simulated minute later: n8n refuses them again (409, finished),
		// and nothing runs twice.
		await sandbox.advanceClock(1);
		const retried = await waitFor('the retried callbacks', async () => {
			const now = (await deliveries()).filter((delivery) => facts.created.includes(delivery.orderId) && delivery.attempts[0].statusCode !== 200);
			return now.every((delivery) => delivery.attempts.length >= 2 && delivery.attempts[1].statusCode !== null) ? now : undefined;
		});
		assert.deepEqual(retried.map((delivery) => delivery.attempts[1].statusCode), Array(ordersPerRun - 1).fill(409));
		const [after] = await executionsOf(workflow);
		assert.equal((await executionsOf(workflow)).length, 1, 'still one execution');
		assert.equal(factsOf(after).rounds, 1, 'the late callbacks resumed nothing');
		figures.push(`  late callbacks, retried a simulated minute later: answered ${retried.map((delivery) => delivery.attempts[1].statusCode).join('/')}, nothing resumed`);
	});

	it('example "subtitles for a video": waits for the three subtitle orders, then one VTT file per language', async () => {
		const id = await execute(subtitlesExample);
		await untilStatus(subtitlesExample, [id], ['waiting']);
		await sandbox.advanceClock(MINUTES_TO_SUBTITLES);
		const [execution] = await untilStatus(subtitlesExample, [id], ['success', 'error', 'crashed', 'canceled']);
		assert.equal(execution.status, 'success', JSON.stringify(execution.data.resultData.error ?? {}));
		const created = jsonOf(execution, 'Create subtitle orders').map((json) => String(json.orderId));
		const languages = await Promise.all(created.map(async (orderId) => (await sandbox.get<{ targetLanguage: string }>(`/integration/orders/${orderId}`)).targetLanguage));
		const files = jsonOf(execution, 'Download subtitles');
		assert.deepEqual(
			files.map((file) => [file.orderId, file.kind, file.language, file.mimeType, /\.vtt$/.test(String(file.fileName))]).sort(),
			created.map((orderId, index) => [orderId, 'subtitles', languages[index], 'text/vtt', true]).sort(),
		);
		assert.deepEqual([...languages].sort(), ['de', 'es', 'fr']);
		figures.push(`subtitles for a video: ${files.length} VTT files, rounds ${execution.data.resultData.runData['Get order']?.length ?? 0}`);
	});

	it('one callback of three lost: the others resume the Wait and every order is confirmed, the time limit not needed', async () => {
		const workflow = workflows.oneLost;
		const id = await execute(workflow);
		await untilStatus(workflow, [id], ['waiting']);
		await sandbox.admin('PUT', 'callbacks/settings', { dropNext: 1 });
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const [execution] = await untilStatus(workflow, [id], ['success', 'error', 'crashed', 'canceled']);

		const facts = factsOf(execution);
		await assertEveryOrderConfirmed(facts);
		assert.deepEqual(facts.resumedBy, ['callback']);
		const sent = (await deliveries()).filter((delivery) => facts.created.includes(delivery.orderId));
		assert.deepEqual(sent.map((delivery) => delivery.status === 'dropped').filter(Boolean).length, 1, 'one callback lost');
		const latency = callbackToResumeMs(execution, sent, facts.created);
		if (latency !== undefined) latencies.push(latency);
		figures.push(`one callback of ${ordersPerRun} lost: ${facts.confirmed.length} confirmed, resumed by ${facts.resumedBy.join(', ')}, rounds ${facts.rounds}`);
	});

	it('every callback lost: the time limit (1 minute here) resumes the Wait and the orders are confirmed anyway', async () => {
		const workflow = workflows.allLost;
		const id = await execute(workflow);
		const [waiting] = await untilStatus(workflow, [id], ['waiting']);
		await sandbox.admin('PUT', 'callbacks/settings', { dropNext: ordersPerRun });
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const started = Date.now();
		// n8n checks for waits that are due once a minute: the limit plus up to a minute, plus the run.
		const [execution] = await untilStatus(workflow, [id], ['success', 'error', 'crashed', 'canceled'], 240_000);

		const facts = factsOf(execution);
		await assertEveryOrderConfirmed(facts);
		assert.deepEqual(facts.resumedBy, ['time limit']);
		const sent = (await deliveries()).filter((delivery) => facts.created.includes(delivery.orderId));
		assert.deepEqual(sent.map((delivery) => delivery.status), Array(ordersPerRun).fill('dropped'));
		const waitedSeconds = (Date.parse(String(execution.stoppedAt)) - Date.parse(waiting.startedAt)) / 1000;
		figures.push(
			`every callback lost, 1-minute limit: ${facts.confirmed.length} confirmed, resumed by ${facts.resumedBy.join(', ')}, ` +
				`finished ${((Date.now() - started) / 1000).toFixed(0)} s after the orders completed (execution ${waitedSeconds.toFixed(0)} s long)`,
		);
	});

	it('a forged callback before any order completed resumes the Wait, but the orders read as not done: back to waiting, the real callbacks end it', async () => {
		const workflow = workflows.forged;
		const id = await execute(workflow);
		const [waiting] = await untilStatus(workflow, [id], ['waiting']);
		const created = jsonOf(waiting, CREATE_NODE).map((json) => String(json.orderId));
		const resumeUrl = String((waiting.data.resultData.runData[WAIT_NODE][0] as { metadata?: { resumeUrl?: string } }).metadata?.resumeUrl);
		assert.match(resumeUrl, new RegExp(`/webhook-waiting/${id}\\?`));
		// The body a completion callback has, for orders that are still pending: whoever knows the URL can send it.
		const forged = await fetch(resumeUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ orderId: created[0], status: 'completed', completedAt: new Date().toISOString() }),
		});
		assert.equal(forged.status, 200);
		// Read, found pending, and back in the Wait: waiting again after a second round of reads.
		const [again] = await waitFor('the run to wait again', async () => {
			const found = (await executionsOf(workflow)).filter((execution) => execution.id === id);
			return found[0]?.status === 'waiting' && (found[0].data.resultData.runData[GET_NODE]?.length ?? 0) === 1 ? found : undefined;
		});
		assert.equal(again.data.resultData.runData[DONE_NODE], undefined, 'not done on a forged callback');
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const [execution] = await untilStatus(workflow, [id], ['success', 'error', 'crashed', 'canceled']);

		const facts = factsOf(execution);
		await assertEveryOrderConfirmed(facts);
		assert.deepEqual(facts.created, created);
		assert.deepEqual(facts.resumedBy, ['callback', 'callback']);
		assert.equal(facts.rounds, 2, 'the orders were read twice');
		const [done] = jsonOf(execution, DONE_NODE);
		assert.equal(done.rounds, 2, 'Done counts the rounds too');
		figures.push(`a forged callback first: rounds ${facts.rounds} (the first read found the orders pending), resumed by ${facts.resumedBy.join(', ')}, ${facts.confirmed.length} confirmed`);
	});

	it('an order cancelled while the run waits (it never calls back): the others resume the Wait, the run ends with it reported cancelled', async () => {
		const workflow = workflows.cancelled;
		const id = await execute(workflow);
		const [waiting] = await untilStatus(workflow, [id], ['waiting']);
		const created = jsonOf(waiting, CREATE_NODE).map((json) => String(json.orderId));
		const cancel = await sandbox.call('POST', `/integration/orders/cancel/${created[0]}`);
		assert.equal(cancel.status, 204);
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const [execution] = await untilStatus(workflow, [id], ['success', 'error', 'crashed', 'canceled']);

		const facts = factsOf(execution);
		assert.deepEqual(facts.created, created);
		assert.deepEqual(
			facts.confirmed.map((order) => order.status),
			created.map((_, index) => (index === 0 ? 'cancelled' : 'completed')),
		);
		assert.deepEqual(facts.resumedBy, ['callback']);
		const [done] = jsonOf(execution, DONE_NODE);
		assert.equal(done.deliveredCount, ordersPerRun - 1);
		figures.push(`an order cancelled while waiting: resumed by ${facts.resumedBy.join(', ')}, statuses ${facts.confirmed.map((order) => order.status).join('/')}, deliveredCount ${String(done.deliveredCount)}`);
	});

	it("two runs at once: each is resumed by its own orders' callbacks and confirms only its own orders", async () => {
		const workflow = workflows.twoRuns;
		const ids = [await execute(workflow), await execute(workflow)];
		await untilStatus(workflow, ids, ['waiting']);
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const executions = await untilStatus(workflow, ids, ['success', 'error', 'crashed', 'canceled']);

		const [first, second] = executions.map(factsOf);
		for (const facts of [first, second]) {
			await assertEveryOrderConfirmed(facts);
			assert.deepEqual(facts.resumedBy, ['callback']);
		}
		assert.deepEqual(first.created.filter((orderId) => second.created.includes(orderId)), [], 'no order in both runs');
		const sent = await deliveries();
		executions.forEach((execution, index) => {
			const own = [first, second][index].created;
			for (const delivery of sent.filter((candidate) => own.includes(candidate.orderId))) {
				assert.match(delivery.target, new RegExp(`/webhook-waiting/${execution.id}\\?`), 'each order calls back its own execution');
			}
			const latency = callbackToResumeMs(execution, sent, own);
			if (latency !== undefined) latencies.push(latency);
		});
		assert.equal((await executionsOf(workflow)).length, 2);
		figures.push(`two runs at once: ${first.confirmed.length} + ${second.confirmed.length} confirmed, each resumed by its own callbacks`);
	});
});

describe('create and wait in queue mode: the resumed execution runs on a worker', { timeout: 20 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let services: RunningQueueServices;
	let n8n: N8nUserFolder;
	let main: RunningN8n | undefined;
	const workers: RunningWorker[] = [];
	const workerLogs: string[][] = Array.from({ length: QUEUE_WORKERS }, () => []);
	const production = asWebhookWorkflow(variant('ollangCrWaitQueu', 'queue mode'), 'queue');

	before(async () => {
		[sandbox, services] = await Promise.all([SandboxClient.start(), startQueueServices({ label: 'create-wait' })]);
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 0 });
		n8n = N8nUserFolder.create('create-wait-queue', { ...services.env, EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all' });
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		await n8n.importWorkflows([production.workflow]);
		await n8n.publish(production.workflow.id);
	});

	after(async () => {
		await main?.stop();
		for (const worker of workers) await worker.stop();
		await Promise.all([sandbox?.stop(), services?.stop()]);
		n8n?.remove();
	});

	it('a production run: started and resumed on workers, every order confirmed, the main ran nothing', async () => {
		// A worker builds $execution.resumeUrl from WEBHOOK_URL: without it, from its own port, where nobody listens.
		const port = await freePort();
		const webhookUrl = `http://localhost:${port}/`;
		const env = { ...n8n.env, WEBHOOK_URL: webhookUrl };
		main = await startN8n(n8n.dir, { port, env, onLine: (line) => n8n.serverLog.push(line) });
		for (let index = 0; index < QUEUE_WORKERS; index++) {
			workers.push(await startN8nWorker(n8n.dir, { env, onLine: (line) => workerLogs[index].push(line) }));
		}
		const cookie = await signIn(main.url);

		const answer = await callProductionWebhook(main.url, production.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
		assert.equal(answer.status, 200, answer.text);
		const settled = async (statuses: string[]) =>
			await waitFor(
				`the execution to be ${statuses.join(' or ')}`,
				async () => {
					const [execution] = await readExecutions(main!.url, cookie, production.workflow.id);
					return execution && statuses.includes(execution.status) ? execution : undefined;
				},
				{ timeoutMs: 180_000, intervalMs: 500 },
			);
		const waiting = await settled(['waiting']);
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const execution = await settled(['success', 'error', 'crashed', 'canceled']);

		assert.equal(execution.id, waiting.id);
		assert.equal(execution.mode, 'webhook');
		const facts = factsOf(execution);
		assert.equal(facts.created.length, ordersPerRun);
		assert.deepEqual(facts.confirmed.map((order) => order.orderId), facts.created);
		assert.ok(facts.confirmed.every((order) => FINISHED_STATUSES.includes(order.status)));
		assert.deepEqual(facts.resumedBy, ['callback']);
		const sent = (await sandbox.admin<{ deliveries: Delivery[] }>('GET', 'callbacks')).deliveries.filter((delivery) => facts.created.includes(delivery.orderId));
		for (const delivery of sent) assert.ok(delivery.target.startsWith(`${webhookUrl}webhook-waiting/${execution.id}?`), delivery.target);
		// A worker logs each job it starts: the first part and the resumed part of the execution are two jobs.
		const pattern = new RegExp(`Worker started execution ${execution.id} `);
		const starts = workerLogs.map((lines) => lines.filter((line) => pattern.test(line)).length);
		assert.ok(starts.reduce((sum, count) => sum + count, 0) >= 2, `worker starts of execution ${execution.id}: ${starts.join(' / ')}`);
		assert.ok(!n8n.serverLog.some((line) => /started execution/i.test(line)), 'the main process ran an execution itself');
		const latency = callbackToResumeMs(execution, sent, facts.created);
		console.log(
			`create and wait in queue mode: execution ${execution.id} (${execution.mode}) started on workers ${starts.join(' / ')} times (start + resume), ` +
				`${facts.confirmed.length} orders confirmed, callback -> resume ${latency} ms`,
		);
	});
});
