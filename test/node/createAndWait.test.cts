// Order > Create and Wait through n8n-core's engine against the sandbox: the orders created as Order > Create
// creates them, each with the execution's resume URL, then read; the execution stored as waiting until the next check;
// requests to the resume URL and the checks' time running out handled as n8n 2.40 handles them
// (test/harness/waiting.cts): n8n runs the node again when it resumes the execution, and the node reads the orders.
import { createHash } from 'node:crypto';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { readBinary } from '../harness/engine.cts';
import type { WaitingExecution } from '../harness/waiting.cts';
import { startWaiting } from '../harness/waiting.cts';
import { useSandbox } from './setup.cts';

// The sandbox sends no callback (each test makes the requests the resume URL receives itself, in the order it needs).
const sandbox = useSandbox({ callbacks: { dropNext: 1_000_000 } });

/** A document order completes (AI delivered) 11 simulated minutes after it is created (sandbox/README.md). */
const MINUTES_TO_COMPLETE = 11;
const LANGUAGES = ['de', 'fr', 'es'];
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const createAndWait = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'order',
	operation: 'createAndWait',
	projectId: sandbox().fixtures.projects.writable,
	orderType: 'document',
	level: 0,
	targetLanguages: { language: LANGUAGES.map((code) => ({ code })) },
	...extra,
});

async function start(extra: INodeParameters = {}, items?: IDataObject[], onError?: 'continueRegularOutput' | 'continueErrorOutput', workflowId?: string): Promise<WaitingExecution> {
	return await startWaiting({
		parameters: createAndWait(extra),
		credentials: { baseUrl: sandbox().baseUrl, apiKey: sandbox().keys.owner },
		items,
		onError,
		workflowId,
	});
}

/** The orders a waiting execution waits for, from its node's output while it waits. */
function createdIds(execution: WaitingExecution): string[] {
	return execution.output().map((item) => String(item.json.orderId));
}

/** When the execution's current wait ends (ms since the epoch). */
const waitTill = (execution: WaitingExecution) => new Date(execution.stored.waitTill!).getTime();
const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));
/** The output as [orderId, status, done]. */
const outcomes = (execution: WaitingExecution) => execution.output().map((item) => [item.json.orderId, item.json.status, item.json.done]);

/** Moves an order's completion `minutes` later (its AI delivery, the step after the one scheduled at creation). */
function delayCompletion(orderId: string, minutes: number): void {
	expect(sandbox().simulate.delayOrder(orderId, minutes).step).toBe('aiDelivered');
}

const reads = (orderIds: string[]) =>
	orderIds.reduce((sum, orderId) => sum + sandbox().requests.count({ method: 'GET', path: `/integration/orders/${orderId}` }), 0);
const posts = () => sandbox().requests.count({ method: 'POST' });

describe('Order > Create and Wait', () => {
	it('creates one order per language with the resume URL as Callback URL, reads them, then waits until the next check (5 minutes), at most a day', async () => {
		const before = Date.now();
		const execution = await start();

		expect(execution.waiting).toBe(true);
		expect(waitTill(execution)).toBeGreaterThanOrEqual(before + 5 * 60_000);
		expect(waitTill(execution)).toBeLessThanOrEqual(Date.now() + 5 * 60_000);
		const ids = createdIds(execution);
		expect(ids).toHaveLength(3);
		const orders = ids.map((id) => sandbox().state.orders.get(id));
		expect(orders.map((order) => order?.targetLanguage)).toEqual(LANGUAGES);
		// n8n's resume URL of this execution, with its resume token.
		const resumeUrl = orders[0]?.options.callbackUrl;
		expect(resumeUrl).toMatch(new RegExp(`^https://n8n\\.example\\.com/webhook-waiting/${execution.executionId}\\?signature=[0-9a-f]{64}$`));
		expect(orders.map((order) => order?.options.callbackUrl)).toEqual([resumeUrl, resumeUrl, resumeUrl]);
		expect(posts()).toBe(1);
		// Read before waiting.
		expect(reads(ids)).toBe(3);
		expect(execution.afterRan()).toBe(false);
		// While it waits, the node shows what creating the orders gave.
		expect(execution.output().map((item) => item.json.orderId)).toEqual(ids);
	});

	it('languages completing minutes apart: each request reads every order, and only the one after the last resumes; the node outputs each order once, with a summary', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		delayCompletion(ids[1], 3);
		delayCompletion(ids[2], 6);
		const resumed: boolean[] = [];
		for (const minutes of [MINUTES_TO_COMPLETE, 3, 3]) {
			sandbox().clock.advance(minutes);
			sandbox().requests.reset();
			const outcome = await execution.request({ orderId: ids[resumed.length], status: 'completed' });
			expect(outcome.answer).toEqual({ received: true });
			resumed.push(outcome.resumed);
			// The request read every order; after the last, the node's run read them again to output them.
			expect(reads(ids)).toBe(outcome.resumed ? 6 : 3);
		}

		expect(resumed).toEqual([false, false, true]);
		expect(execution.waiting).toBe(false);
		expect(execution.stored.status).toBe('success');
		expect(execution.afterRan()).toBe(true);
		expect(execution.runs()).toBe(1);
		const output = execution.output();
		expect(output.map((item) => [item.json.orderId, item.json.targetLanguage, item.json.status, item.json.done])).toEqual(
			ids.map((id, index) => [id, LANGUAGES[index], 'completed', true]),
		);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 0 }]);
		for (const item of output) expect(item.json.summary).toEqual({ allDone: true, done: 3, total: 3, notDone: [], cancelled: [] });
		expect(posts()).toBe(0);
	});

	it('every callback lost: at the next check the node reads the orders and carries on, creating nothing, with one run', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		sandbox().requests.reset();

		await execution.timeOut();

		expect(execution.waiting).toBe(false);
		expect(execution.stored.status).toBe('success');
		expect(execution.afterRan()).toBe(true);
		expect(execution.runs()).toBe(1);
		expect(outcomes(execution)).toEqual(ids.map((id) => [id, 'completed', true]));
		expect(reads(ids)).toBe(3);
		expect(posts()).toBe(0);
	});

	it('orders still under way at a check: it waits again until the next one (no run added), and a callback then resumes it', async () => {
		const execution = await start({ options: { checkEvery: 2 } });
		const ids = createdIds(execution);
		for (let check = 0; check < 3; check++) {
			const before = Date.now();
			await execution.timeOut();
			expect(execution.waiting).toBe(true);
			expect(waitTill(execution)).toBeGreaterThanOrEqual(before + 2 * 60_000);
			expect(execution.runs()).toBe(1);
			expect(execution.afterRan()).toBe(false);
		}
		expect(createdIds(execution)).toEqual(ids);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		expect((await execution.request({ orderId: ids[0] })).resumed).toBe(true);
		expect(execution.afterRan()).toBe(true);
		expect(execution.runs()).toBe(1);
		expect(outcomes(execution)).toEqual(ids.map((id) => [id, 'completed', true]));
		expect(posts()).toBe(1);
	});

	it('forged and replayed requests while the orders are under way resume nothing: each only reads the orders', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		sandbox().requests.reset();
		const forged = [
			{ orderId: ids[0], status: 'completed', orderType: 'document' },
			{ orderId: 'aaaaaaaaaaaaaaaaaaaaaaaa', status: 'completed' },
			{},
		];
		for (const body of forged) {
			expect(await execution.request(body)).toEqual({ answer: { received: true }, resumed: false });
			await sleep(1_050);
		}

		expect(execution.waiting).toBe(true);
		expect(reads(ids)).toBe(9);
		expect(sandbox().requests.count({ method: 'GET', path: '/integration/orders/aaaaaaaaaaaaaaaaaaaaaaaa' })).toBe(0);
		expect(posts()).toBe(0);
		// The real completion still resumes it.
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		expect((await execution.request()).resumed).toBe(true);
	});

	it('a flood of requests at once shares one read of the orders; after the completion one request resumes, the others (and later ones) answer only', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		sandbox().requests.reset();
		const flood = await Promise.all(Array.from({ length: 40 }, async () => await execution.request({ orderId: ids[0], status: 'completed' })));
		expect(flood.every((outcome) => outcome.resumed === false && (outcome.answer as IDataObject).received === true)).toBe(true);
		// 40 requests, one read of each of the three orders (not 120).
		expect(reads(ids)).toBe(3);
		expect(execution.waiting).toBe(true);
		// Completed now: each request of the next flood arrived after it, so the read they share shows it; one resumes.
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		const after = await Promise.all(Array.from({ length: 10 }, async () => await execution.request({ orderId: ids[0] })));
		expect(after.filter((outcome) => outcome.resumed)).toHaveLength(1);
		expect(outcomes(execution)).toEqual(ids.map((id) => [id, 'completed', true]));
	});

	it('two callbacks of one moment, the second arriving while the first resumes: the second is answered as received and resumes nothing', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		// Both reach the node while n8n still shows the execution waiting: the node is the one to answer.
		const first = execution.request({ orderId: ids[1] });
		const second = execution.request({ orderId: ids[2] });
		expect((await first).resumed).toBe(true);
		expect(await second).toEqual({ answer: { received: true }, resumed: false });
		expect(execution.stored.status).toBe('success');
	});

	it('a request arriving while a read is under way waits for the next read (a second later at most), so a completion just before it is seen', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		sandbox().requests.reset();
		// The first request's read is under way (the API slow to answer) when the orders complete and the callback comes.
		sandbox().faults.add({ kind: 'delay', delayMs: 500, path: `/integration/orders/${ids[2]}`, times: 1 });
		const first = execution.request({});
		await sleep(150);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		const second = await execution.request({ orderId: ids[2] });
		expect((await first).resumed).toBe(false);
		expect(second.resumed).toBe(true);
		// Two reads by the requests, one by the node's run.
		expect(reads(ids)).toBe(9);
	});

	it('a lost callback: whichever request comes next reads every order, so the order whose callback was lost counts', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		delayCompletion(ids[2], 4);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		// The first two completed; only the first one's callback arrives; the second's is lost.
		expect((await execution.request({ orderId: ids[0] })).resumed).toBe(false);
		sandbox().clock.advance(4);

		// The third's callback: the second is found completed by its read.
		expect((await execution.request({ orderId: ids[2] })).resumed).toBe(true);
		expect(outcomes(execution)).toEqual(ids.map((id) => [id, 'completed', true]));
	});

	it('Files to Download: each completed order carries its files, bytes as the storage host serves them', async () => {
		const execution = await start({ files: 'deliverables', binaryPropertyName: 'file' });
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		expect((await execution.request()).resumed).toBe(true);

		const output = execution.output();
		expect(output).toHaveLength(3);
		for (const item of output) {
			const files = item.json.files as IDataObject[];
			expect(files.length).toBeGreaterThan(0);
			const order = item.json as { orderDocs: Array<{ name: string; url: string }> };
			for (const file of files) {
				const doc = order.orderDocs.find((entry) => entry.name === file.fileName);
				expect(doc).toBeDefined();
				const served = Buffer.from(await (await fetch(doc!.url)).arrayBuffer());
				const stored = await readBinary(item, String(file.binaryProperty));
				expect(sha256(stored)).toBe(sha256(served));
				expect(file).toMatchObject({ orderId: item.json.id, kind: 'translatedDocument', fileSize: served.length });
			}
			expect(files[0].binaryProperty).toBe('file');
		}
		expect(sandbox().files.requests.filter((request) => request.apiKeySent)).toEqual([]);
	});

	it('Wait for Auto QC: an order whose QC evaluation is still running keeps the wait; without the option it does not; an evaluation the API shows without isLoading is finished', async () => {
		const autoQc = { additionalFields: { autoQc: true } };
		const waiting = await start({ ...autoQc, options: { waitForQc: true } });
		const plain = await start(autoQc);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		// The sandbox finishes an Auto QC evaluation with the order; the API may show it running for a while.
		const running = [...createdIds(waiting), ...createdIds(plain)].map((id) => sandbox().state.orders.get(id)!);
		for (const order of running) {
			expect(order.status).toBe('completed');
			order.latestEvaluation!.isLoading = true;
		}

		expect((await waiting.request()).resumed).toBe(false);
		expect((await plain.request()).resumed).toBe(true);
		// The Callback Trigger's definition too: no isLoading flag means finished.
		for (const order of running) delete (order.latestEvaluation as { isLoading?: boolean }).isLoading;
		await sleep(1_050);
		expect((await waiting.request()).resumed).toBe(true);
		expect(waiting.output().map((item) => item.json.done)).toEqual([true, true, true]);
	});

	it('a cancelled order ends its wait: the execution resumes when the others are done, the order not done and named in the summary', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		const cancelled = await fetch(`${sandbox().baseUrl}/integration/orders/cancel/${ids[0]}`, { method: 'POST', headers: { 'x-api-key': sandbox().keys.owner } });
		expect(cancelled.status).toBeLessThan(300);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);

		expect((await execution.request()).resumed).toBe(true);
		expect(outcomes(execution)).toEqual([
			[ids[0], sandbox().state.orders.get(ids[0])?.status, false],
			[ids[1], 'completed', true],
			[ids[2], 'completed', true],
		]);
		expect(execution.output()[0].json.summary).toEqual({ allDone: false, done: 2, total: 3, notDone: [ids[0]], cancelled: [ids[0]] });
	});

	it('a check that cannot read the orders (the API down) waits for the next check instead of failing', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		sandbox().faults.add({ kind: 'status', status: 503, path: `/integration/orders/${ids[1]}`, times: 100 });
		await execution.timeOut();
		expect(execution.waiting).toBe(true);
		expect(execution.stored.status).toBe('waiting');
		sandbox().faults.clear();
		await execution.timeOut();
		expect(execution.stored.status).toBe('success');
		expect(outcomes(execution)).toEqual(ids.map((id) => [id, 'completed', true]));
	});

	describe('Wait at Most', () => {
		// 0.05 minutes: 3 seconds.
		const briefly = { waitAtMost: 0.05, waitAtMostUnit: 'minutes' };

		it('the last wait ends at the limit; orders still under way then stop the workflow with an error naming them', async () => {
			const before = Date.now();
			const execution = await start(briefly);
			const ids = createdIds(execution);
			expect(waitTill(execution)).toBeGreaterThanOrEqual(before + 3_000);
			expect(waitTill(execution)).toBeLessThanOrEqual(Date.now() + 3_000);
			delayCompletion(ids[2], 30);
			sandbox().clock.advance(MINUTES_TO_COMPLETE);

			await execution.timeOutWhenDue();

			expect(execution.stored.status).toBe('error');
			expect(execution.afterRan()).toBe(false);
			const error = execution.stored.data.resultData.error!;
			expect(error.message).toBe(`1 of 3 orders were not done after waiting 0 minutes: ${ids[2]} (${sandbox().state.orders.get(ids[2])?.status})`);
			expect(error.description).toContain('Retry this execution');
		});

		it('with On Error "Continue": the orders done as results, each one not done as an error item', async () => {
			const execution = await start(briefly, undefined, 'continueRegularOutput');
			const ids = createdIds(execution);
			delayCompletion(ids[2], 30);
			sandbox().clock.advance(MINUTES_TO_COMPLETE);

			await execution.timeOutWhenDue();

			expect(execution.stored.status).toBe('success');
			expect(execution.afterRan()).toBe(true);
			const output = execution.output();
			expect(output.slice(0, 2).map((item) => [item.json.orderId, item.json.done, item.json.error])).toEqual([
				[ids[0], true, undefined],
				[ids[1], true, undefined],
			]);
			expect(output[2].json.error).toMatch(new RegExp(`^Order ${ids[2]} was not done after waiting`));
			expect(output[2].json.done).toBeUndefined();
			expect(output[0].json.summary).toMatchObject({ allDone: false, done: 2, total: 3, notDone: [ids[2]], cancelled: [] });
		});

		it('n8n\'s Retry of the execution that reached its limit waits for the same orders again and carries on when they are done', async () => {
			const execution = await start(briefly);
			const ids = createdIds(execution);
			await execution.timeOutWhenDue();
			expect(execution.stored.status).toBe('error');

			await execution.retry();
			expect(execution.waiting).toBe(true);
			expect(createdIds(execution)).toEqual(ids);
			sandbox().clock.advance(MINUTES_TO_COMPLETE);
			await execution.timeOut();
			expect(execution.stored.status).toBe('success');
			expect(outcomes(execution)).toEqual(ids.map((id) => [id, 'completed', true]));
			expect(sandbox().requests.count({ method: 'POST', path: '/integration/orders/create' })).toBe(1);
		});
	});

	it.each([
		[{ options: { checkEvery: 0 } }, 'Invalid Check Every (Minutes) (item 0): must be 1 or more, got 0'],
		[{ waitAtMost: 0 }, 'Invalid Wait at Most (item 0): must be a number above 0, got 0'],
		[{ waitAtMostUnit: 'weeks' }, 'Invalid Wait at Most Unit (item 0): must be minutes, hours or days, got "weeks"'],
		[{ files: 'subtitles', binaryPropertyName: ' ' }, 'Invalid Put Output File in Field (item 0): must not be empty'],
	])('refuses a bad wait setting naming the field, before any request: %j', async (extra, message) => {
		const refused = await start(extra as INodeParameters);

		expect(refused.waiting).toBe(false);
		expect(refused.stored.data.resultData.error?.message).toBe(message);
		expect(sandbox().requests.count()).toBe(0);
	});

	it("n8n's Retry of a failed execution (the create answer lost) creates no order twice, and carries on when they complete although their callbacks go to the first execution", async () => {
		sandbox().faults.add({ method: 'POST', path: '/integration/orders/create', kind: 'drop', when: 'after', times: 1 });
		const before = new Set(sandbox().state.orders.keys());
		const execution = await start();
		expect(execution.stored.status).toBe('error');
		expect(execution.stored.data.resultData.error?.description).toContain('may have been applied');

		await execution.retry();

		expect(sandbox().requests.count({ method: 'POST', path: '/integration/orders/create' })).toBe(1);
		const made = [...sandbox().state.orders.keys()].filter((id) => !before.has(id));
		expect(made).toHaveLength(3);
		expect(execution.waiting).toBe(true);
		expect([...createdIds(execution)].sort()).toEqual([...made].sort());
		// Their callbacks name the first execution's resume URL; the Retry's checks carry it on.
		expect(made.every((id) => !sandbox().state.orders.get(id)!.options.callbackUrl!.includes(execution.executionId))).toBe(true);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		await execution.timeOut();
		expect(execution.stored.status).toBe('success');
		expect(outcomes(execution).map(([, status, done]) => [status, done])).toEqual([['completed', true], ['completed', true], ['completed', true]]);
	});

	it('orders already done when it reads them (the same Idempotency Key again, once they completed): it carries on at once, without waiting', async () => {
		const key = { options: { idempotencyKey: `already-done-${Date.now()}` } };
		const workflowId = `same-key-workflow-${Date.now()}`;
		const first = await start(key, undefined, undefined, workflowId);
		const ids = createdIds(first);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		sandbox().requests.reset();

		const again = await start(key, undefined, undefined, workflowId);

		expect(again.waiting).toBe(false);
		expect(again.stored.status).toBe('success');
		expect(again.afterRan()).toBe(true);
		expect(posts()).toBe(0);
		expect(outcomes(again)).toEqual(ids.map((id) => [id, 'completed', true]));
	});
});
