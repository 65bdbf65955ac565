// Order > Create and Wait through n8n-core's engine against the sandbox: the orders created as Order > Create
// creates them, each with the execution's resume URL; the execution stored as waiting; requests to the resume URL
// handled as n8n 2.40 handles them (test/harness/waiting.cts): read from the stored copy, the node's webhook() run,
// the execution resumed only when the API shows every order done.
import { createHash } from 'node:crypto';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';
import { readBinary } from '../harness/engine.cts';
import type { WaitingExecution } from '../harness/waiting.cts';
import { startWaiting } from '../harness/waiting.cts';
import { run, useSandbox } from './setup.cts';

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

async function start(extra: INodeParameters = {}, items?: IDataObject[], loop = false): Promise<WaitingExecution> {
	return await startWaiting({
		parameters: createAndWait(extra),
		credentials: { baseUrl: sandbox().baseUrl, apiKey: sandbox().keys.owner },
		items,
		loop,
	});
}

/** The orders a waiting execution created, from its node's output before the wait. */
function createdIds(execution: WaitingExecution): string[] {
	return execution.output().map((item) => String(item.json.orderId));
}

/** Moves an order's completion `minutes` later (its AI delivery, the step after the one scheduled at creation). */
function delayCompletion(orderId: string, minutes: number): void {
	expect(sandbox().simulate.delayOrder(orderId, minutes).step).toBe('aiDelivered');
}

const reads = (orderIds: string[]) =>
	orderIds.reduce((sum, orderId) => sum + sandbox().requests.count({ method: 'GET', path: `/integration/orders/${orderId}` }), 0);
const posts = () => sandbox().requests.count({ method: 'POST' });

describe('Order > Create and Wait', () => {
	it('creates one order per language with the resume URL as Callback URL, then waits with no time limit', async () => {
		const execution = await start();

		expect(execution.waiting).toBe(true);
		expect(new Date(execution.stored.waitTill!).getTime()).toBe(WAIT_INDEFINITELY.getTime());
		const ids = createdIds(execution);
		expect(ids).toHaveLength(3);
		const orders = ids.map((id) => sandbox().state.orders.get(id));
		expect(orders.map((order) => order?.targetLanguage)).toEqual(LANGUAGES);
		// n8n's resume URL of this execution, with its resume token.
		const resumeUrl = orders[0]?.options.callbackUrl;
		expect(resumeUrl).toMatch(new RegExp(`^https://n8n\\.example\\.com/webhook-waiting/${execution.executionId}\\?signature=[0-9a-f]{64}$`));
		expect(orders.map((order) => order?.options.callbackUrl)).toEqual([resumeUrl, resumeUrl, resumeUrl]);
		expect(posts()).toBe(1);
		expect(execution.afterRan()).toBe(false);
	});

	it('languages completing minutes apart: each request reads every order, and only the one after the last resumes', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		delayCompletion(ids[1], 3);
		delayCompletion(ids[2], 6);
		const outcomes: boolean[] = [];
		for (const minutes of [MINUTES_TO_COMPLETE, 3, 3]) {
			sandbox().clock.advance(minutes);
			sandbox().requests.reset();
			const outcome = await execution.request({ orderId: ids[outcomes.length], status: 'completed' });
			expect(reads(ids)).toBe(3);
			expect(outcome.answer).toEqual({ received: true });
			outcomes.push(outcome.resumed);
		}

		expect(outcomes).toEqual([false, false, true]);
		expect(execution.waiting).toBe(false);
		expect(execution.stored.status).toBe('success');
		expect(execution.afterRan()).toBe(true);
		const output = execution.output();
		expect(output.map((item) => [item.json.id, item.json.targetLanguage, item.json.status, item.json.waitEnded])).toEqual(
			ids.map((id, index) => [id, LANGUAGES[index], 'completed', 'confirmed']),
		);
		expect(posts()).toBe(0);
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
		for (const body of forged) expect(await execution.request(body)).toEqual({ answer: { received: true }, resumed: false });

		expect(execution.waiting).toBe(true);
		expect(reads(ids)).toBe(9);
		expect(sandbox().requests.count({ method: 'GET', path: '/integration/orders/aaaaaaaaaaaaaaaaaaaaaaaa' })).toBe(0);
		expect(posts()).toBe(0);
		// The real completion still resumes it.
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		expect((await execution.request()).resumed).toBe(true);
	});

	it('a flood of requests at once shares one read of the orders; after the completion one request of a flood resumes, the others answer only', async () => {
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
		expect(reads(ids)).toBe(6);
		expect(execution.output().map((item) => item.json.status)).toEqual(['completed', 'completed', 'completed']);
	});

	it('a request arriving while a read is under way waits for the next read (a second later at most), so a completion just before it is seen', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		sandbox().requests.reset();
		// The first request's read is under way (the API slow to answer) when the orders complete and the callback comes.
		sandbox().faults.add({ kind: 'delay', delayMs: 500, path: `/integration/orders/${ids[2]}`, times: 1 });
		const first = execution.request({});
		await new Promise((resolve) => setTimeout(resolve, 150));
		sandbox().clock.advance(MINUTES_TO_COMPLETE);
		const second = await execution.request({ orderId: ids[2] });
		expect((await first).resumed).toBe(false);
		expect(second.resumed).toBe(true);
		expect(reads(ids)).toBe(6);
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
		expect(execution.output().map((item) => item.json.status)).toEqual(['completed', 'completed', 'completed']);
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

	it('Wait for Auto QC: an order whose QC evaluation is still running keeps the wait; without the option it does not', async () => {
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
		for (const order of running) order.latestEvaluation!.isLoading = false;
		expect((await waiting.request()).resumed).toBe(true);
		expect(waiting.output().map((item) => (item.json.latestEvaluation as IDataObject).isLoading)).toEqual([false, false, false]);
	});

	it('a cancelled order ends its wait: the execution resumes when the others are done, with its status', async () => {
		const execution = await start();
		const ids = createdIds(execution);
		const cancelled = await fetch(`${sandbox().baseUrl}/integration/orders/cancel/${ids[0]}`, { method: 'POST', headers: { 'x-api-key': sandbox().keys.owner } });
		expect(cancelled.status).toBeLessThan(300);
		sandbox().clock.advance(MINUTES_TO_COMPLETE);

		expect((await execution.request()).resumed).toBe(true);
		expect(execution.output().map((item) => item.json.status)).toEqual([sandbox().state.orders.get(ids[0])?.status, 'completed', 'completed']);
	});

	it('Limit Wait Time after an interval: the wait ends then; n8n runs none of the node\'s code, and the output names each order, not read ("checkAgain")', async () => {
		const before = Date.now();
		const execution = await start(
			{ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 5, resumeUnit: 'minutes' } } } },
			[{ mine: 'input item' }],
		);
		const created = createdIds(execution);
		const until = new Date(execution.stored.waitTill!).getTime();
		expect(until).toBeGreaterThanOrEqual(before + 5 * 60_000);
		expect(until).toBeLessThanOrEqual(Date.now() + 5 * 60_000);
		sandbox().requests.reset();

		await execution.timeOut();

		expect(execution.stored.status).toBe('success');
		expect(execution.afterRan()).toBe(true);
		expect(execution.output().map((item) => item.json)).toEqual(created.map((id) => ({ id, waitEnded: 'checkAgain', confirmed: false })));
		// n8n ran none of the node's code: no read, no create.
		expect(sandbox().requests.count()).toBe(0);
	});

	it('Limit Wait Time at a date: waits until then; a date in the past is refused naming the field, before any request', async () => {
		const at = new Date(Date.now() + 3_600_000).toISOString();
		const execution = await start({ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: at } } } });
		expect(new Date(execution.stored.waitTill!).toISOString()).toBe(at);

		sandbox().requests.reset();
		const refused = await start({ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00.000Z' } } } });
		expect(refused.waiting).toBe(false);
		expect(refused.stored.data.resultData.error?.message).toBe(
			'Invalid Limit Wait Time > Max Date and Time (item 0): must be in the future, got 2020-01-01T00:00:00.000Z',
		);
		expect(sandbox().requests.count()).toBe(0);
	});

	it.each([
		[{ options: { checkAgainEvery: -5 } }, 'Invalid Check Again Every (Minutes) (item 0): must be 0 or more, got -5'],
		[{ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0, resumeUnit: 'hours' } } } }, 'Invalid Limit Wait Time > Amount (item 0): must be a number above 0, got 0'],
		[{ options: { limitWaitTime: { values: { limitType: 'atSpecifiedTime', maxDateAndTime: 'tomorrow' } } } }, 'Invalid Limit Wait Time > Max Date and Time (item 0): must be a date and time, got "tomorrow"'],
		[{ files: 'subtitles', binaryPropertyName: ' ' }, 'Invalid Put Output File in Field (item 0): must not be empty'],
	])('refuses a bad wait setting naming the field, before any request: %j', async (extra, message) => {
		const refused = await start(extra as INodeParameters);

		expect(refused.waiting).toBe(false);
		expect(refused.stored.data.resultData.error?.message).toBe(message);
		expect(sandbox().requests.count()).toBe(0);
	});

	it("n8n's Retry of a failed execution creates no order twice: the lost answer is found in the listing, the Retry waits on the same orders", async () => {
		sandbox().faults.add({ method: 'POST', path: '/integration/orders/create', kind: 'drop', when: 'after', times: 1 });
		const before = new Set(sandbox().state.orders.keys());
		const parameters = createAndWait();
		const lost = await run(sandbox(), parameters, { staticData: {}, mode: 'trigger' });
		expect(lost.error?.description).toContain('may have been applied');

		const retried = await run(sandbox(), parameters, { retryOf: lost, staticData: {} });

		expect(sandbox().requests.count({ method: 'POST', path: '/integration/orders/create' })).toBe(1);
		const made = [...sandbox().state.orders.keys()].filter((id) => !before.has(id));
		expect(made).toHaveLength(3);
		expect(retried.json.map((row) => String(row.orderId)).sort()).toEqual([...made].sort());
		expect(retried.run.status).toBe('waiting');
	});

	describe('the loop of the example: "checkAgain" items sent back into the node (an If on waitEnded)', () => {
		const rounds = (minutes: number, limit?: INodeParameters): INodeParameters => ({
			options: { checkAgainEvery: minutes, ...(limit ? { limitWaitTime: { values: limit } } : {}) },
		});

		it('every callback lost: the round ends after Check Again Every, the node reads the orders and goes on, creating nothing', async () => {
			const before = Date.now();
			const execution = await start(rounds(5, { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' }), undefined, true);
			const ids = createdIds(execution);
			const until = new Date(execution.stored.waitTill!).getTime();
			expect(until).toBeGreaterThanOrEqual(before + 5 * 60_000);
			expect(until).toBeLessThan(before + 6 * 60_000);
			sandbox().clock.advance(MINUTES_TO_COMPLETE);
			sandbox().requests.reset();

			await execution.timeOut();

			expect(execution.waiting).toBe(false);
			expect(execution.runs()).toBe(2);
			expect(execution.afterRan()).toBe(true);
			expect(execution.output().map((item) => [item.json.id, item.json.status, item.json.waitEnded, item.json.confirmed])).toEqual(
				ids.map((id) => [id, 'completed', 'confirmed', true]),
			);
			expect(reads(ids)).toBe(3);
			expect(posts()).toBe(0);
		});

		it('orders still under way when a round ends: another round, and a callback then resumes it', async () => {
			const execution = await start(rounds(5), undefined, true);
			const ids = createdIds(execution);
			await execution.timeOut();

			expect(execution.waiting).toBe(true);
			expect(execution.runs()).toBe(2);
			expect(execution.output().map((item) => item.json.waitEnded)).toEqual(['checkAgain', 'checkAgain', 'checkAgain']);
			sandbox().clock.advance(MINUTES_TO_COMPLETE);
			expect((await execution.request({ orderId: ids[0] })).resumed).toBe(true);
			expect(execution.afterRan()).toBe(true);
			expect(execution.output().map((item) => item.json.waitEnded)).toEqual(['confirmed', 'confirmed', 'confirmed']);
			expect(posts()).toBe(1);
		});

		it('Limit Wait Time passed: the orders as the API shows them, which finished and which did not', async () => {
			const at = new Date(Date.now() + 1500).toISOString();
			const execution = await start(rounds(5, { limitType: 'atSpecifiedTime', maxDateAndTime: at }), undefined, true);
			expect(new Date(execution.stored.waitTill!).toISOString()).toBe(at);
			const ids = createdIds(execution);
			delayCompletion(ids[2], 30);
			sandbox().clock.advance(MINUTES_TO_COMPLETE);
			await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(at) - Date.now() + 50)));

			await execution.timeOut();

			expect(execution.waiting).toBe(false);
			expect(execution.afterRan()).toBe(true);
			expect(execution.output().map((item) => [item.json.id, item.json.status, item.json.waitEnded, item.json.confirmed])).toEqual([
				[ids[0], 'completed', 'timeLimit', true],
				[ids[1], 'completed', 'timeLimit', true],
				[ids[2], sandbox().state.orders.get(ids[2])?.status, 'timeLimit', false],
			]);
			expect(sandbox().state.orders.get(ids[2])?.status).not.toBe('completed');
		});
	});
});
