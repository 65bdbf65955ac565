// Order > Create and Wait in a real n8n (examples/order-create-and-wait.json, run as imported, started as the
// editor's "Execute workflow" starts it): the orders are created with the execution's own resume URL as Callback
// URL, the execution waits in n8n's waiting state, the sandbox's completion callbacks reach the node's waiting
// webhook, which reads every order from the API and resumes the execution only once all are done; without them,
// n8n runs the node again at each check. The sandbox's clock is moved so the orders complete (and, delayed one by one,
// minutes apart). Variations: forged callbacks, n8n restarted while waiting, n8n's Retry of a run whose create answer
// was lost, every callback lost (the example as shipped and the node alone with its defaults), two runs at once, the
// subtitles example (queue mode, the resumed execution on a worker: queue.test.mts). Prints the callback -> resume
// latency and how long after the last completion each lost-callback run carried on.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';

import { N8N_VERSION, readExecutions, restRequest, signIn, type N8nExecution, type RunningN8n } from '../../scripts/n8n/runtime.mjs';
import { exampleNode, jsonOf, N8nUserFolder, readBinary, readExample, SandboxClient, testCredentials, waitFor, type WorkflowJson } from './harness.mts';
import { callbackToResumeMs, createdBy, ENDED, example, finalOrders, FINISHED_STATUSES, MINUTES_TO_COMPLETE, SAVE_NODE, variant, WAIT_NODE, writeFilesTo, type Delivery } from './createAndWait.mts';

type Json = Record<string, unknown>;

/** The short example on the same node: subtitles in three languages, then one VTT file per language. */
const subtitlesExample = readExample('subtitles-for-a-video.json');
/** A file arrives in a form, Upload File, Create and Wait, the files saved (examples/translate-a-file.json). */
const translateExample = readExample('translate-a-file.json');
const TRANSLATE_WAIT_NODE = 'Translate and wait';
const SUBTITLES_NODE = 'Create subtitle orders and wait';
/** A subtitle order waits for closed captions first: 1 + 3 + 5 + 10 simulated minutes (sandbox/README.md). */
const MINUTES_TO_SUBTITLES = 19;
const ordersPerRun = (exampleNode(example, WAIT_NODE).parameters.targetLanguages as { language: unknown[] }).language.length;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** n8n 2.x signs a resume URL (a token n8n checks); 1.x's is the execution's path alone. */
const SIGNED_RESUME_URLS = !N8N_VERSION.startsWith('1.');
const resumeUrlOf = (executionId: string) => new RegExp(`/webhook-waiting/${executionId}${SIGNED_RESUME_URLS ? '\\?signature=[0-9a-f]{64}$' : '$'}`);

/** Create and Wait as a user drops it in from the panel: the example's orders, every other setting its default, no next node. */
function aloneWithDefaults(): WorkflowJson {
	const workflow = variant('ollangCrWaitAlon', 'the node alone, its defaults');
	const after = new Set([SAVE_NODE, 'Keep finished orders']);
	workflow.nodes = workflow.nodes.filter((node) => !after.has(node.name));
	for (const name of [WAIT_NODE, ...after]) delete workflow.connections[name];
	const { projectId, orderType, level, targetLanguages } = exampleNode(workflow, WAIT_NODE).parameters;
	exampleNode(workflow, WAIT_NODE).parameters = { resource: 'order', operation: 'createAndWait', projectId, orderType, level, targetLanguages };
	return workflow;
}

/** Requests sent to one resume URL at once. */
const FLOOD = 20;

describe('Order > Create and Wait (the example, n8n start)', { timeout: 25 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let n8n: N8nUserFolder;
	let server: RunningN8n | undefined;
	let cookie: string;
	const figures: string[] = [];
	const latencies: number[] = [];
	const workflows = {
		apart: variant('ollangCrWaitApar', 'minutes apart'),
		forged: variant('ollangCrWaitFrgd', 'forged callbacks'),
		restart: variant('ollangCrWaitRsta', 'n8n restarted'),
		allLost: variant('ollangCrWaitLost', 'every callback lost'),
		alone: aloneWithDefaults(),
		retry: variant('ollangCrWaitRtry', "n8n's Retry", { checkEveryMinutes: 1 }),
		twoRuns: variant('ollangCrWaitTwo1', 'two runs at once'),
		oneLost: variant('ollangCrWaitOne1', 'one callback lost'),
		cancelled: variant('ollangCrWaitCanc', 'an order cancelled'),
	};

	before(async () => {
		sandbox = await SandboxClient.start();
		// No seeded repeats: each test decides what is lost.
		await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 0 });
		n8n = N8nUserFolder.create('create-wait');
		await n8n.install();
		await n8n.importCredentials(testCredentials(sandbox));
		for (const workflow of [example, subtitlesExample, translateExample, ...Object.values(workflows)]) writeFilesTo(workflow, n8n.filesDir);
		await n8n.importWorkflows([example, subtitlesExample, translateExample, ...Object.values(workflows)]);
		// Its form answers only once the workflow is published.
		await n8n.publish(translateExample.id);
		server = await n8n.start();
		cookie = await signIn(server.url);
	});

	after(async () => {
		console.log(`Create and Wait in n8n:\n${figures.map((line) => `  ${line}`).join('\n')}`);
		if (latencies.length > 0) {
			const sorted = [...latencies].sort((a, b) => a - b);
			console.log(`  last callback sent -> execution resumed: median ${(sorted[Math.floor(sorted.length / 2)] / 1000).toFixed(2)} s, worst ${(sorted[sorted.length - 1] / 1000).toFixed(2)} s over ${sorted.length} runs`);
		}
		await server?.stop();
		await sandbox?.stop();
		n8n?.remove();
	});

	/** Starts the workflow as the editor's "Execute workflow" does; resolves with the execution id. */
	const execute = async (workflow: WorkflowJson): Promise<string> => {
		// n8n 1.x's editor sends the workflow itself along; 2.x's the trigger only.
		const body = N8N_VERSION.startsWith('1.')
			? { workflowData: await restRequest<WorkflowJson>(server!.url, cookie, 'GET', `/rest/workflows/${workflow.id}`), triggerToStartFrom: { name: 'Start' } }
			: { triggerToStartFrom: { name: 'Start' } };
		const started = await restRequest<{ executionId: string }>(server!.url, cookie, 'POST', `/rest/workflows/${workflow.id}/run`, body);
		assert.ok(started.executionId, `no execution started: ${JSON.stringify(started)}`);
		return String(started.executionId);
	};
	const executionsOf = async (workflow: WorkflowJson) => await readExecutions(server!.url, cookie, workflow.id);
	const untilStatus = async (workflow: WorkflowJson, ids: string[], statuses: string[], timeoutMs = 120_000): Promise<N8nExecution[]> =>
		await waitFor(
			`executions ${ids.join(', ')} of "${workflow.name}" to be ${statuses.join(' or ')}`,
			async () => {
				// n8n may be down a while (the restart test): asked again.
				if (server === undefined) return undefined;
				const found = (await executionsOf(workflow).catch(() => [] as N8nExecution[])).filter((execution) => ids.includes(execution.id));
				return found.length === ids.length && found.every((execution) => statuses.includes(execution.status)) ? found : undefined;
			},
			{ timeoutMs, intervalMs: 500 },
		);
	const deliveries = async (orderIds: string[]): Promise<Delivery[]> =>
		(await sandbox.admin<{ deliveries: Delivery[] }>('GET', 'callbacks')).deliveries.filter((delivery) => orderIds.includes(delivery.orderId));
	/** Waits until the order's callback got an answer (or a refusal) from n8n, and returns its delivery. */
	const answered = async (orderId: string, attempts = 1): Promise<Delivery> =>
		await waitFor(`the callback of order ${orderId} to be answered`, async () => {
			const [delivery] = await deliveries([orderId]);
			return delivery && delivery.attempts.length >= attempts && delivery.attempts[attempts - 1].sentAt && delivery.status !== 'sending' ? delivery : undefined;
		});
	const creates = async () => (await sandbox.requests()).filter((request) => request.method === 'POST' && request.path === '/integration/orders/create').length;
	const ordersRead = async (orderIds: string[]) =>
		(await sandbox.requests()).filter((request) => request.method === 'GET' && orderIds.some((orderId) => request.path === `/integration/orders/${orderId}`)).length;

	/** Asserts the run output every order it created, done and confirmed by the API (and by the sandbox now). */
	const assertEveryOrderConfirmed = async (orders: Json[], created: string[]) => {
		assert.deepEqual(orders.map((order) => order.id), created, 'the orders output are the orders created');
		for (const order of orders) {
			assert.ok(FINISHED_STATUSES.includes(String(order.status)), `order ${String(order.id)} output as ${String(order.status)}`);
			assert.equal(order.done, true);
			assert.deepEqual(order.summary, { allDone: true, done: created.length, total: created.length, notDone: [], cancelled: [] });
			assert.ok(FINISHED_STATUSES.includes((await sandbox.get<{ status: string }>(`/integration/orders/${String(order.id)}`)).status));
		}
	};

	/**
	 * Every callback lost, for the example as shipped and the node alone with its defaults: started first, their
	 * callbacks dropped by the sandbox, their orders completed; they wait n8n's checks (5 minutes) while the other
	 * tests run, and the last test reads how they ended.
	 */
	let allLost: Promise<{ ended: N8nExecution[]; created: string[][]; seconds: number }> | undefined;
	it('every callback lost (started here, checked by the last test): the example as shipped and the node alone with its defaults wait for their orders', async () => {
		const runs = [workflows.allLost, workflows.alone];
		const ids = [await execute(runs[0]), await execute(runs[1])];
		const waiting = [(await untilStatus(runs[0], [ids[0]], ['waiting']))[0], (await untilStatus(runs[1], [ids[1]], ['waiting']))[0]];
		const created = waiting.map(createdBy);
		assert.deepEqual(created.map((orders) => orders.length), [ordersPerRun, ordersPerRun]);
		await sandbox.admin('PUT', 'callbacks/settings', { dropOrders: created.flat() });
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const completedAt = Date.now();
		// The bound the panel states (5 minutes), n8n's once-a-minute look for due waits, and the run.
		allLost = Promise.all(runs.map(async (workflow, index) => (await untilStatus(workflow, [ids[index]], ENDED, 9 * 60_000))[0])).then((ended) => ({
			ended,
			created,
			seconds: (Date.now() - completedAt) / 1000,
		}));
		// Read at the end; a failure meanwhile is reported there.
		allLost.catch(() => undefined);
	});

	it('three languages completing minutes apart: each callback before the last is answered and keeps it waiting; one resumption after the last, the files as the storage host serves them', async () => {
		const workflow = workflows.apart;
		const id = await execute(workflow);
		const [waiting] = await untilStatus(workflow, [id], ['waiting']);
		const created = createdBy(waiting);
		assert.equal(created.length, ordersPerRun);
		await sandbox.admin('POST', `orders/${created[1]}/delay`, { minutes: 3 });
		await sandbox.admin('POST', `orders/${created[2]}/delay`, { minutes: 6 });

		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		assert.equal((await answered(created[0])).attempts[0].statusCode, 200);
		assert.equal((await untilStatus(workflow, [id], ['waiting']))[0].data.resultData.runData[SAVE_NODE], undefined, 'resumed by the first of three');
		await sandbox.advanceClock(3);
		assert.equal((await answered(created[1])).attempts[0].statusCode, 200);
		assert.equal((await untilStatus(workflow, [id], ['waiting']))[0].data.resultData.runData[SAVE_NODE], undefined, 'resumed by the second of three');
		await sandbox.advanceClock(3);
		const [execution] = await untilStatus(workflow, [id], ENDED);

		const orders = finalOrders(execution);
		await assertEveryOrderConfirmed(orders, created);
		assert.equal(execution.data.resultData.runData[WAIT_NODE].length, 1, 'the node ran once (resumed once)');
		assert.equal(execution.data.resultData.runData[SAVE_NODE].length, 1, 'one resumption');
		const sent = await deliveries(created);
		assert.deepEqual(sent.map((delivery) => delivery.attempts.map((attempt) => attempt.statusCode)), [[200], [200], [200]], 'every callback answered 200 at once, none refused');
		for (const delivery of sent) assert.match(delivery.target, resumeUrlOf(execution.id));
		// Each order's translated document in `data`, byte for byte what the storage host serves for it.
		const items = execution.data.resultData.runData[WAIT_NODE][0].data?.main[0] ?? [];
		for (const item of items) {
			const order = await sandbox.get<{ orderDocs: Array<{ name: string; url: string; type: string }> }>(`/integration/orders/${String(item.json.id)}`);
			const files = item.json.files as Json[];
			assert.equal(files.length, 1);
			assert.equal(files[0].kind, 'translatedDocument');
			const doc = order.orderDocs.find((entry) => entry.name === files[0].fileName);
			assert.ok(doc, `order ${String(item.json.id)} lists no document ${String(files[0].fileName)}`);
			const served = Buffer.from(await (await fetch(doc.url)).arrayBuffer());
			assert.equal(sha256(readBinary(n8n, item, 'data')), sha256(served), `the file of order ${String(item.json.id)}`);
		}
		const latency = callbackToResumeMs(execution, sent, created);
		if (latency !== undefined) latencies.push(latency);
		figures.push(`minutes apart (0, 3, 6 min): ${orders.length} confirmed, callbacks answered ${sent.map((delivery) => delivery.attempts[0].statusCode).join('/')}, 1 resumption, ${items.length} files hashed equal, last callback -> resume ${latency} ms`);
	});

	it('forged and replayed callbacks to the resume URL resume nothing: each is answered and only makes the node read the orders; a flood at once shares the reads', async () => {
		const workflow = workflows.forged;
		const id = await execute(workflow);
		const [waiting] = await untilStatus(workflow, [id], ['waiting']);
		const created = createdBy(waiting);
		await sandbox.admin('POST', `orders/${created[1]}/delay`, { minutes: 30 });
		await sandbox.admin('POST', `orders/${created[2]}/delay`, { minutes: 30 });
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		// The first order's real callback: answered, the others still under way.
		const real = await answered(created[0]);
		assert.equal(real.attempts[0].statusCode, 200);
		const resumeUrl = real.target;
		const readsBefore = await ordersRead(created);
		// Its body sent again (a replay), and completion bodies for the orders still under way (forged): whoever holds
		// the URL can send them.
		const replayed = (real as Delivery & { body: Json }).body;
		const bodies = [replayed, { ...replayed, orderId: created[1] }, { ...replayed, orderId: created[2] }, { orderId: 'aaaaaaaaaaaaaaaaaaaaaaaa', status: 'completed' }];
		for (const body of bodies) {
			const answer = await fetch(resumeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
			assert.equal(answer.status, 200);
			assert.deepEqual(await answer.json(), { received: true });
		}
		if (SIGNED_RESUME_URLS) {
			const withoutToken = await fetch(resumeUrl.replace(/\?.*$/, ''), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(replayed) });
			assert.equal(withoutToken.status, 401, "n8n refuses a request without the resume URL's token");
		}

		const readsOfOneByOne = (await ordersRead(created)) - readsBefore;
		assert.equal(readsOfOneByOne, bodies.length * ordersPerRun, 'each request read every order of the run');
		// A flood at once: the requests share reads (at most one a second per execution), whatever their number.
		const floodStarted = Date.now();
		const flood = await Promise.all(
			Array.from({ length: FLOOD }, async () => {
				const answer = await fetch(resumeUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(replayed) });
				return { status: answer.status, body: (await answer.json()) as { received?: boolean } };
			}),
		);
		assert.deepEqual(flood.filter((answer) => answer.status !== 200 || answer.body.received !== true), []);
		const floodSeconds = (Date.now() - floodStarted) / 1000;
		const readsOfFlood = (await ordersRead(created)) - readsBefore - readsOfOneByOne;
		// n8n hands the requests to the node as it gets to them (seconds apart on a busy machine): one read a second at
		// most while they arrive, against one per request without the sharing.
		const rounds = readsOfFlood / ordersPerRun;
		assert.ok(rounds >= 1 && rounds <= Math.ceil(floodSeconds) + 1 && rounds < FLOOD, `${FLOOD} requests at once, answered within ${floodSeconds.toFixed(1)} s, read the orders ${rounds} times`);
		const [still] = await untilStatus(workflow, [id], ['waiting']);
		assert.equal(still.data.resultData.runData[SAVE_NODE], undefined, 'nothing resumed');
		assert.ok(!(await sandbox.requests()).some((request) => request.path === '/integration/orders/aaaaaaaaaaaaaaaaaaaaaaaa'), 'an order named in a body is never read');
		await sandbox.advanceClock(30);
		const [execution] = await untilStatus(workflow, [id], ENDED);
		await assertEveryOrderConfirmed(finalOrders(execution), created);
		figures.push(
			`replayed and forged callbacks: ${bodies.length} one by one answered 200, ${readsOfOneByOne} order reads; ${FLOOD} at once answered 200 within ${floodSeconds.toFixed(1)} s, ${readsOfFlood} order reads; nothing resumed;${SIGNED_RESUME_URLS ? " without the token: 401;" : ""} the real callbacks then resumed it`,
		);
	});

	it('n8n restarted while the execution waits: the callbacks refused while it is down come again, and it resumes after', async () => {
		const workflow = workflows.restart;
		const id = await execute(workflow);
		const [waiting] = await untilStatus(workflow, [id], ['waiting']);
		const created = createdBy(waiting);
		const port = Number(new URL(server!.url).port);
		await server!.stop();
		server = undefined;
		// The orders complete while n8n is down: each callback fails to connect, and the sandbox tries again a
		// simulated minute later.
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		for (const orderId of created) {
			const delivery = await answered(orderId);
			assert.equal(delivery.attempts[0].statusCode, null, `the callback of ${orderId} reached a stopped n8n`);
		}
		server = await n8n.start({}, { port });
		cookie = await signIn(server.url);
		await sandbox.advanceClock(1);
		const [execution] = await untilStatus(workflow, [id], ENDED);

		await assertEveryOrderConfirmed(finalOrders(execution), created);
		const retried = (await deliveries(created)).map((delivery) => delivery.attempts.map((attempt) => attempt.statusCode ?? 'none').join('>'));
		figures.push(`n8n restarted while waiting: resumed after the restart, ${created.length} confirmed; callback attempts ${retried.join(', ')}`);
	});

	it('one callback of three lost, all completing at once: the others make the node read every order, one resumption', async () => {
		const workflow = workflows.oneLost;
		const id = await execute(workflow);
		const [waiting] = await untilStatus(workflow, [id], ['waiting']);
		const created = createdBy(waiting);
		await sandbox.admin('PUT', 'callbacks/settings', { dropNext: 1 });
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const [execution] = await untilStatus(workflow, [id], ENDED);

		await assertEveryOrderConfirmed(finalOrders(execution), created);
		assert.equal(execution.data.resultData.runData[SAVE_NODE].length, 1, 'one resumption');
		const lost = (await deliveries(created)).filter((delivery) => delivery.status === 'dropped');
		assert.equal(lost.length, 1, 'one callback lost');
		// Each of the other two answered (the second may still be waiting for its read when the run ends).
		const sent = [...lost, ...(await Promise.all(created.filter((orderId) => orderId !== lost[0].orderId).map(async (orderId) => await answered(orderId))))];
		const latency = callbackToResumeMs(execution, sent, created);
		if (latency !== undefined) latencies.push(latency);
		// The two sent at once: one resumed the run; the other is answered 200 by the node (it reached it while n8n
		// still showed the run waiting) or 409 by n8n (after): never refused with a 500.
		const codes = sent.filter((delivery) => delivery.status !== 'dropped').map((delivery) => delivery.attempts[0].statusCode);
		assert.ok(codes.every((code) => code === 200 || code === 409) && codes.includes(200), `answers: ${codes.join(', ')}`);
		figures.push(`one callback of ${ordersPerRun} lost, all at once: ${created.length} confirmed, 1 resumption, the others answered ${codes.join('/')}`);
	});

	it('an order cancelled while the run waits (it never calls back): the others end the wait, the output says it was cancelled', async () => {
		const workflow = workflows.cancelled;
		const id = await execute(workflow);
		const [waiting] = await untilStatus(workflow, [id], ['waiting']);
		const created = createdBy(waiting);
		const cancel = await sandbox.call('POST', `/integration/orders/cancel/${created[0]}`);
		assert.equal(cancel.status, 204);
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const [execution] = await untilStatus(workflow, [id], ENDED);

		const orders = finalOrders(execution);
		assert.deepEqual(orders.map((order) => order.id), created);
		assert.deepEqual(orders.map((order) => order.status), created.map((_, index) => (index === 0 ? 'cancelled' : 'completed')));
		assert.deepEqual(orders.map((order) => (order.files as unknown[] | undefined)?.length ?? 0), [0, 1, 1], 'files for the completed orders only');
		figures.push(`an order cancelled while waiting: statuses ${orders.map((order) => String(order.status)).join('/')}, one resumption`);
	});

	it("two runs at once: each is resumed by its own orders' callbacks and outputs only its own orders", async () => {
		const workflow = workflows.twoRuns;
		const ids = [await execute(workflow), await execute(workflow)];
		const waiting = await untilStatus(workflow, ids, ['waiting']);
		const created = waiting.map(createdBy);
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const executions = await untilStatus(workflow, ids, ENDED);

		for (const execution of executions) {
			const own = created[waiting.findIndex((candidate) => candidate.id === execution.id)];
			await assertEveryOrderConfirmed(finalOrders(execution), own);
			for (const delivery of await deliveries(own)) assert.match(delivery.target, resumeUrlOf(execution.id), 'each order calls back its own execution');
		}
		assert.deepEqual(created[0].filter((orderId) => created[1].includes(orderId)), [], 'no order in both runs');
		figures.push(`two runs at once: ${created[0].length} + ${created[1].length} confirmed, each resumed by its own callbacks`);
	});

	it('example "subtitles for a video": waits for the three subtitle orders, then one VTT file per language', async () => {
		const id = await execute(subtitlesExample);
		const [waiting] = await untilStatus(subtitlesExample, [id], ['waiting']);
		const created = jsonOf(waiting, SUBTITLES_NODE).map((json) => String(json.orderId));
		await sandbox.advanceClock(MINUTES_TO_SUBTITLES);
		const [execution] = await untilStatus(subtitlesExample, [id], ENDED);
		assert.equal(execution.status, 'success', JSON.stringify(execution.data.resultData.error ?? {}));
		const runs = execution.data.resultData.runData[SUBTITLES_NODE];
		const orders = (runs[runs.length - 1].data?.main[0] ?? []).map((item) => item.json as Json);
		assert.deepEqual(orders.map((order) => order.id), created);
		assert.deepEqual(orders.map((order) => order.targetLanguage).sort(), ['de', 'es', 'fr']);
		for (const order of orders) {
			const files = order.files as Json[];
			assert.deepEqual(files.map((file) => [file.kind, file.mimeType, /\.vtt$/.test(String(file.fileName)), file.binaryProperty]), [['subtitles', 'text/vtt', true, 'data']]);
		}
		figures.push(`subtitles for a video: ${orders.length} orders, one VTT file each`);
	});
	it("n8n's Retry of a run whose create answer was lost: no order twice, and it carries on when they complete although their callbacks go to the failed run", async () => {
		const workflow = workflows.retry;
		const createsBefore = await creates();
		await sandbox.admin('POST', 'faults', { method: 'POST', path: '/integration/orders/create', kind: 'drop', when: 'after', times: 1 });
		const failedId = await execute(workflow);
		const [failed] = await untilStatus(workflow, [failedId], ENDED);
		assert.equal(failed.status, 'error');
		const retried = await restRequest<{ id: string }>(server!.url, cookie, 'POST', `/rest/executions/${failedId}/retry`, { loadWorkflow: false });
		const retryId = String(retried.id);
		const [waiting] = await untilStatus(workflow, [retryId], ['waiting']);
		const created = createdBy(waiting);
		assert.equal(created.length, ordersPerRun);
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const completedAt = Date.now();
		const [execution] = await untilStatus(workflow, [retryId], ENDED, 240_000);

		await assertEveryOrderConfirmed(finalOrders(execution), created);
		assert.equal((await creates()) - createsBefore, 1, 'the orders created once: the Retry found them');
		const sent = await deliveries(created);
		assert.ok(sent.every((delivery) => resumeUrlOf(failedId).test(delivery.target)), 'the callbacks went to the failed run');
		figures.push(`n8n's Retry after a lost create answer: ${created.length} orders (created once), carried on ${((Date.now() - completedAt) / 1000).toFixed(0)} s after they completed (Check Every 1 min; callbacks answered ${sent.map((delivery) => delivery.attempts[0].statusCode).join('/')})`);
	});

	it('example "translate a file": a document sent to its form is uploaded, ordered in two languages, and the translated files are saved once both are done', async () => {
		const form = new FormData();
		const document = Buffer.from('Hello from the product brochure.\n');
		form.append('field-0', new Blob([document], { type: 'text/plain' }), 'brochure.txt');
		const before = new Set((await executionsOf(translateExample)).map((execution) => execution.id));
		const answer = await fetch(`${server!.url}/form/translate-a-file`, { method: 'POST', body: form });
		assert.ok(answer.status < 300, `the form answered ${answer.status}: ${await answer.text()}`);
		const waiting = await waitFor('the form\'s execution to wait', async () =>
			(await executionsOf(translateExample)).find((execution) => !before.has(execution.id) && ['waiting', ...ENDED].includes(execution.status)),
		);
		assert.equal(waiting.status, 'waiting', JSON.stringify(waiting.data.resultData.error ?? {}));
		const created = jsonOf(waiting, TRANSLATE_WAIT_NODE).map((json) => String(json.orderId));
		assert.equal(created.length, 2);
		await sandbox.advanceClock(MINUTES_TO_COMPLETE);
		const [execution] = await untilStatus(translateExample, [waiting.id], ENDED);
		assert.equal(execution.status, 'success', JSON.stringify(execution.data.resultData.error ?? {}));
		const runs = execution.data.resultData.runData[TRANSLATE_WAIT_NODE];
		const orders = (runs[runs.length - 1].data?.main[0] ?? []).map((item) => item.json as Json);
		assert.deepEqual(orders.map((order) => [order.orderId, order.targetLanguage, order.done]), created.map((id, index) => [id, ['de', 'fr'][index], true]));
		// The other examples save theirs in the same folder: this document's are named after it.
		const saved = readdirSync(n8n.filesDir).filter((name) => /^translated-(de|fr)-/.test(name) && name.includes('brochure_txt')).sort();
		assert.deepEqual(saved.map((name) => name.slice('translated-'.length, 'translated-'.length + 2)), ['de', 'fr'], `files saved: ${saved.join(', ')}`);
		figures.push(`translate a file (form -> Upload File -> Create and Wait -> files saved): ${orders.length} orders done, saved ${saved.join(', ')}`);
	});

	it('every callback lost (started by the first test): both carried on within Check Every (5 minutes) of the completion, every order done, the example\'s next step once', async () => {
		assert.ok(allLost, 'the first test started the runs');
		const { ended, created, seconds } = await allLost;
		for (const [index, execution] of ended.entries()) {
			await assertEveryOrderConfirmed(finalOrders(execution), created[index]);
			assert.equal(execution.data.resultData.runData[WAIT_NODE].length, 1, 'the node has one run');
		}
		assert.equal(ended[0].data.resultData.runData[SAVE_NODE].length, 1, "the example's next step ran once");
		assert.deepEqual((await deliveries(created.flat())).map((delivery) => delivery.status), Array(created.flat().length).fill('dropped'));
		figures.push(`every callback lost, the example as shipped and the node alone with its defaults: ${created.flat().length} orders done, both carried on ${seconds.toFixed(0)} s after the orders completed`);
	});
});
