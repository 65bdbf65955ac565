// Retry Protection tells a retry from a repeat. n8n's Retry of a failed execution (mode 'retry', its stored data, the
// saved or the original workflow's static data) and Retry On Fail find what the run they retry applied and skip it; a
// new execution in any other mode (manual, trigger, webhook, a sub-workflow call, an agent's chat) is a user asking
// again, and is sent. An Idempotency Key is a repeat in any execution. Counted from the sandbox's own state.
import type { IDataObject, INodeExecutionData, INodeParameters, WorkflowExecuteMode } from 'n8n-workflow';
import { MAX_REMEMBERED, REMEMBER_DAYS } from '../../nodes/Ollang/actions/common/writeOnce';
import { NAMES_PER_ITEM } from '../../nodes/Ollang/actions/common/writeOnce/markers';
import { recordsOf } from '../../nodes/Ollang/actions/common/writeOnce/records';
import { deduplicationStore } from '../harness/engine.cts';
import { ACTIONS, withOptions } from '../reliability/operations.cts';
import type { OperationCase } from '../reliability/operations.cts';
import { byId, failure, run, useSandbox } from './setup.cts';
import type { Run, RunOptions } from './setup.cts';

const sandbox = useSandbox();

/** The actions the API would apply again, which Retry Protection guards (the others: the API's state, below). */
const PROTECTED = [
	'order.create',
	'order.rerun',
	'order.runQcEvaluation',
	'order.requestSubtitleEmbedding',
	'revision.create',
	'upload.uploadFile',
	'upload.uploadFromUrl',
	'upload.uploadVtt',
	'project.createFromUrl',
	'figmaOrder.create',
	'memory.create',
	'folder.attachDocument',
	'folder.uploadDocument',
].map((name) => {
	const found = ACTIONS.find((action) => action.name === name);
	if (!found) throw new Error(`no operation case for ${name}`);
	return found;
});

/** Every mode n8n starts a new execution in, other than its Retry. */
const NEW_EXECUTION_MODES: WorkflowExecuteMode[] = ['manual', 'trigger', 'webhook', 'integrated', 'internal', 'chat', 'cli'];

/** The static data as n8n stores it between executions. */
const saved = (staticData: IDataObject): IDataObject => JSON.parse(JSON.stringify(staticData)) as IDataObject;

let markers = 0;
async function itemsFor(action: OperationCase, count: number): Promise<INodeExecutionData[]> {
	const items: INodeExecutionData[] = [];
	for (let index = 0; index < count; index++) {
		const marker = `R${++markers}x${index}`;
		const item = await action.item(sandbox(), marker);
		items.push({ ...item, json: { marker, ...item.json } });
	}
	return items;
}

function appliedCounts(action: OperationCase, items: INodeExecutionData[]): number[] {
	// The matrix's faults refuse before the handler runs: a faulted request did not reach the service.
	const reachedService = (path: string) =>
		sandbox().requests.log.filter((record) => record.method === 'POST' && record.path === path && record.fault === undefined).length;
	return items.map((item) => action.applied!(sandbox(), { marker: item.json.marker, ...item.json }, reachedService));
}

/** The second item's POST is refused (a 400: nothing applied), so the run fails after the first item applied. */
function refuseSecondItem(): void {
	sandbox().faults.add({ method: 'POST', kind: 'status', status: 400, when: 'before', skip: 1, times: 1 });
}

async function runAction(action: OperationCase, items: INodeExecutionData[], options: RunOptions = {}): Promise<Run> {
	return await run(sandbox(), action.parameters(sandbox()), { items, ...options });
}

describe.each(PROTECTED.map((action) => [action.name, action] as const))('%s', (_name, action) => {
	it.each(NEW_EXECUTION_MODES)('asked again in a new %s execution: sent again (applied twice)', async (mode) => {
		const items = await itemsFor(action, 1);
		const staticData: IDataObject = {};

		const first = await runAction(action, items, { mode, staticData });
		// As a user asks again: once the first is done (a rerun or a Figma order is refused while one is running).
		sandbox().clock.advance(7 * 24 * 60);
		const second = await runAction(action, items, { mode, staticData: saved(staticData) });

		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		expect(second.json.every((json) => json.alreadyApplied === undefined)).toBe(true);
		expect(appliedCounts(action, items)).toEqual([2]);
	});

	it("n8n's Retry with the saved workflow applies each item once; the skipped one names the execution that applied it", async () => {
		const items = await itemsFor(action, 2);
		const staticData: IDataObject = {};
		refuseSecondItem();

		const failed = await runAction(action, items, { mode: 'webhook', staticData });
		const retried = await runAction(action, items, { retryOf: failed, staticData: saved(staticData) });

		expect(failure(failed).itemIndex).toBe(1);
		expect(retried.error).toBeUndefined();
		expect(appliedCounts(action, items)).toEqual([1, 1]);
		const skipped = retried.run.data.resultData.runData[retried.nodeName]?.[0]?.data?.main?.[0]?.filter((item) => item.pairedItem && (item.pairedItem as { item: number }).item === 0) ?? [];
		expect(skipped.length).toBeGreaterThan(0);
		for (const item of skipped) {
			expect(item.json).toMatchObject({ alreadyApplied: true, appliedAt: expect.any(String), appliedInExecution: expect.stringMatching(/^harness-/) });
			expect(item.json.appliedInExecution).not.toBe(retried.run.data.resultData.runData[retried.nodeName]?.[0]?.executionIndex);
		}
	});

	it("n8n's Retry with the original workflow (static data from before the run) applies each item once", async () => {
		const items = await itemsFor(action, 2);
		refuseSecondItem();

		const failed = await runAction(action, items, { mode: 'trigger', staticData: {} });
		// n8n gives this retry the static data stored with the execution: from before the failed run.
		const retried = await runAction(action, items, { retryOf: failed, staticData: {} });

		expect(retried.error).toBeUndefined();
		expect(appliedCounts(action, items)).toEqual([1, 1]);
		expect(retried.json.filter((json) => json.alreadyApplied === true).length).toBeGreaterThan(0);
	});

	it('Retry On Fail applies each item once', async () => {
		const items = await itemsFor(action, 2);
		refuseSecondItem();

		const result = await runAction(action, items, { mode: 'webhook', staticData: {}, retryOnFail: 2 });

		expect(result.error).toBeUndefined();
		expect(appliedCounts(action, items)).toEqual([1, 1]);
	});
});

describe('Idempotency Key', () => {
	const qc = ACTIONS.find((action) => action.name === 'order.runQcEvaluation')!;
	const keyed = (): INodeParameters => withOptions(qc.parameters(sandbox()), { idempotencyKey: '={{ $json.eventId }}' });

	it('the same key in two webhook executions (a source that re-delivers) applies once; a new key is sent', async () => {
		const [item] = await itemsFor(qc, 1);
		const staticData: IDataObject = {};

		await run(sandbox(), keyed(), { items: [{ json: { ...item.json, eventId: 'evt-1' } }], mode: 'webhook', staticData });
		const redelivered = await run(sandbox(), keyed(), { items: [{ json: { ...item.json, eventId: 'evt-1' } }], mode: 'webhook', staticData: saved(staticData) });
		const next = await run(sandbox(), keyed(), { items: [{ json: { ...item.json, eventId: 'evt-2' } }], mode: 'webhook', staticData: saved(staticData) });

		expect(redelivered.json[0]).toMatchObject({ alreadyApplied: true, appliedInExecution: expect.stringMatching(/^harness-/) });
		expect(next.json[0].alreadyApplied).toBeUndefined();
		expect(appliedCounts(qc, [item])).toEqual([2]);
	});

	it("two executions with the same key at once: n8n's deduplication store lets one send", async () => {
		const [item] = await itemsFor(qc, 1);
		const input = [{ json: { ...item.json, eventId: 'evt-both' } }];

		const both = await Promise.all([
			run(sandbox(), keyed(), { items: input, mode: 'webhook', staticData: {} }),
			run(sandbox(), keyed(), { items: input, mode: 'webhook', staticData: {} }),
		]);

		// One sends; the other finds the attempt claimed, waits for its end and returns its answer.
		expect(appliedCounts(qc, [item])).toEqual([1]);
		const sentIt = both.filter((result) => result.error === undefined && result.json[0]?.alreadyApplied === undefined);
		expect(sentIt).toHaveLength(1);
		const other = both.find((result) => result !== sentIt[0])!;
		expect(other.error).toBeUndefined();
		expect(other.json[0]).toMatchObject({ alreadyApplied: true, evalId: sentIt[0].json[0].evalId });
	});

	describe("n8n's deduplication store racing as its database does (a row read and written back without a lock)", () => {
		beforeEach(() => {
			deduplicationStore.raceLikeDatabase = true;
		});

		it("two executions started together, each the node's first record (two inserts of one row): both sent", async () => {
			const items = await itemsFor(qc, 2);

			const both = await Promise.all(items.map(async (item) => await run(sandbox(), qc.parameters(sandbox()), { items: [item], mode: 'webhook', staticData: {} })));

			expect(both.map((result) => result.error?.message)).toEqual([undefined, undefined]);
			expect(appliedCounts(qc, items)).toEqual([1, 1]);
		});

		it('ten keyed executions at once, then each event delivered again: each applied once (no record lost to another\'s write)', async () => {
			const items = await itemsFor(qc, 10);
			const input = (item: INodeExecutionData, index: number) => [{ json: { ...item.json, eventId: `evt-burst-${markers}-${index}` } }];

			const first = await Promise.all(items.map(async (item, index) => await run(sandbox(), keyed(), { items: input(item, index), mode: 'webhook', staticData: {} })));
			const again = await Promise.all(items.map(async (item, index) => await run(sandbox(), keyed(), { items: input(item, index), mode: 'webhook', staticData: {} })));

			expect(first.filter((result) => result.error !== undefined)).toEqual([]);
			expect(again.map((result) => result.json[0]?.alreadyApplied)).toEqual(items.map(() => true));
			expect(appliedCounts(qc, items)).toEqual(items.map(() => 1));
		});
	});

	it('turned off, a retry sends every item again (and charges again)', async () => {
		const items = await itemsFor(qc, 2);
		const parameters = withOptions(qc.parameters(sandbox()), { retryProtection: false });
		refuseSecondItem();

		const failed = await run(sandbox(), parameters, { items, staticData: {} });
		await run(sandbox(), parameters, { items, retryOf: failed, staticData: {} });

		expect(appliedCounts(qc, items)).toEqual([2, 1]);
	});

	it('an Idempotency Key that is not text is refused before anything is sent, naming the field', async () => {
		const items = await itemsFor(qc, 1);
		sandbox().requests.reset();

		const error = failure(await run(sandbox(), withOptions(qc.parameters(sandbox()), { idempotencyKey: '={{ { a: 1 } }}' }), { items }));

		expect(error.message).toContain('Idempotency Key');
		expect(sandbox().requests.count({ method: 'POST' })).toBe(0);
	});
});

describe('A lost answer is settled from the API\'s state', () => {
	const LANGUAGES = ['de', 'fr', 'es', 'it', 'nl', 'pt'];
	const create = (): INodeParameters => ({
		resource: 'order',
		operation: 'create',
		projectId: '={{ $json.projectId }}',
		orderType: 'document',
		level: 0,
		targetLanguages: { language: [{ code: '={{ $json.language }}', isRush: false }] },
	});
	const ordersOf = (projectId: string) =>
		[...sandbox().state.orders.values()].filter((order) => order.projectId === projectId && order.type === 'document');

	it.each([
		['a 500 after the API created it', { kind: 'status' as const, status: 500 }],
		['a connection dropped after the API created it', { kind: 'drop' as const }],
	])('Order > Create, six languages, the fourth lost (%s): the retry ends with six orders, one per language', async (_label, fault) => {
		const projectId = sandbox().fixtures.projects.writable;
		const before = ordersOf(projectId).length;
		const items = LANGUAGES.map((language) => ({ json: { projectId, language } }));
		sandbox().faults.add({ method: 'POST', path: '/integration/orders/create', when: 'after', skip: 3, times: 1, ...fault });

		const staticData: IDataObject = {};
		const failed = await run(sandbox(), create(), { items, mode: 'webhook', staticData });
		const retried = await run(sandbox(), create(), { items, retryOf: failed, staticData: saved(staticData) });

		expect(failure(failed).itemIndex).toBe(3);
		expect(failure(failed).description).toContain('may have been applied');

		expect(retried.error).toBeUndefined();
		const made = ordersOf(projectId).slice(before);
		expect(made.map((order) => order.targetLanguage).sort()).toEqual([...LANGUAGES].sort());
		expect(retried.json[3]).toMatchObject({ orderId: made.find((order) => order.targetLanguage === 'it')?.id, alreadyApplied: true });
		expect(retried.json.slice(4).every((json) => json.alreadyApplied === undefined)).toBe(true);
	});

	it('Order > Create whose lost request was not applied (the connection dropped before): the retry sends it once', async () => {
		const projectId = sandbox().fixtures.projects.writable;
		const before = ordersOf(projectId).length;
		const items = LANGUAGES.slice(0, 3).map((language) => ({ json: { projectId, language } }));
		sandbox().faults.add({ method: 'POST', path: '/integration/orders/create', kind: 'drop', when: 'before', skip: 1, times: 1 });

		const staticData: IDataObject = {};
		const failed = await run(sandbox(), create(), { items, mode: 'webhook', staticData });
		const retried = await run(sandbox(), create(), { items, retryOf: failed, staticData: saved(staticData) });

		expect(failure(failed).itemIndex).toBe(1);
		expect(retried.error).toBeUndefined();
		expect(ordersOf(projectId).slice(before).map((order) => order.targetLanguage).sort()).toEqual(['de', 'es', 'fr']);
	});

	it.each([
		['the saved workflow (the record kept what was read before)', true],
		['the original workflow (n8n\'s store holds what was read before)', false],
	])('Run QC Evaluation, the second answer lost, retried with %s: the order\'s latest evaluation settles it', async (_label, keepStaticData) => {
		const qc = ACTIONS.find((action) => action.name === 'order.runQcEvaluation')!;
		const items = await itemsFor(qc, 3);
		sandbox().faults.add({ method: 'POST', kind: 'status', status: 500, when: 'after', skip: 1, times: 1 });

		const staticData: IDataObject = {};
		const failed = await runAction(qc, items, { mode: 'webhook', staticData });
		const retried = await runAction(qc, items, { retryOf: failed, staticData: keepStaticData ? saved(staticData) : {} });

		expect(failure(failed).itemIndex).toBe(1);
		expect(retried.error).toBeUndefined();
		expect(appliedCounts(qc, items)).toEqual([1, 1, 1]);
		const latest = sandbox().state.orders.get(String(items[1].json.orderId))?.latestEvaluation?.id;
		expect(retried.json[1]).toMatchObject({ orderId: items[1].json.orderId, evalId: latest, alreadyApplied: true });
		expect(retried.json[2].alreadyApplied).toBeUndefined();
	});

	it('Rerun, whose effect the API does not show: the retry stops at that item only, and the error does not advise sending all again', async () => {
		const rerun = ACTIONS.find((action) => action.name === 'order.rerun')!;
		const items = await itemsFor(rerun, 3);
		sandbox().faults.add({ method: 'POST', kind: 'status', status: 500, when: 'after', skip: 1, times: 1 });

		const staticData: IDataObject = {};
		const failed = await runAction(rerun, items, { mode: 'webhook', staticData });
		const retried = await runAction(rerun, items, { retryOf: failed, staticData: saved(staticData) });

		const error = failure(retried);
		expect(error.itemIndex).toBe(1);
		expect(error.message).toMatch(/^Item 1 was sent in the run this retries .* and its answer was lost, so it may have been applied$/);
		expect(error.description).toContain('send item 1 alone');
		expect(error.description).not.toMatch(/turn off Retry Protection/i);
		expect(appliedCounts(rerun, items)).toEqual([1, 1, 0]);
	});
});

describe("A refusal is a refusal outside a retry (the API's state reads as applied only after this node's own send)", () => {
	it('Memory > Delete of an ID that never existed fails with the API\'s 404 in a new execution', async () => {
		const error = failure(await run(sandbox(), { resource: 'memory', operation: 'delete', memoryId: byId('6650f1c2a4b3e2d1c0b9a8f7') }, { mode: 'webhook' }));

		expect(error.message).toMatch(/404/);
	});

	it('Cancel Human Review of an order that never had a review fails in the API\'s words', async () => {
		const [order] = sandbox().simulate.createOrders(1, { status: 'completed', level: 0, progress: false });

		const error = failure(await run(sandbox(), { resource: 'order', operation: 'cancelHumanReview', orderId: byId(order.id) }, { items: [{ json: {} }], mode: 'webhook' }));

		expect(error.message).toMatch(/^The Ollang API answered 400/);
	});

	it('Request Human Review asked again on purpose for an order already in review: the API\'s refusal, not "already applied"', async () => {
		const [order] = sandbox().simulate.createOrders(1, { status: 'completed', level: 0, progress: false });
		const review = { resource: 'order', operation: 'requestHumanReview', orderId: byId(order.id) };

		await run(sandbox(), review, { mode: 'webhook', staticData: {} });
		const again = await run(sandbox(), review, { mode: 'webhook', staticData: {} });

		expect(failure(again).message).toMatch(/^The Ollang API answered 400/);
	});

	it('Memory > Delete whose answer was lost (the API deleted it): n8n\'s Retry reads it gone and succeeds with alreadyApplied', async () => {
		const memories = await Promise.all(['keep-a', 'keep-b'].map(async (title) => String((await run(sandbox(), { resource: 'memory', operation: 'create', title }, {})).json[0].id)));
		const items = memories.map((memoryId) => ({ json: { memoryId } }));
		sandbox().faults.add({ method: 'DELETE', kind: 'drop', when: 'after', skip: 1, times: 1 });
		const parameters = { resource: 'memory', operation: 'delete', memoryId: byId('={{ $json.memoryId }}') };

		const staticData: IDataObject = {};
		const failed = await run(sandbox(), parameters, { items, mode: 'webhook', staticData });
		const retried = await run(sandbox(), parameters, { items, retryOf: failed, staticData: saved(staticData) });

		expect(failure(failed).itemIndex).toBe(1);
		expect(retried.error).toBeUndefined();
		expect(retried.json[1]).toMatchObject({ memoryId: memories[1], deleted: true, alreadyApplied: true });
		expect(memories.map((id) => sandbox().state.memories.has(id))).toEqual([false, false]);
	});
});

describe('What this process remembers of the items it sent', () => {
	const qc = ACTIONS.find((action) => action.name === 'order.runQcEvaluation')!;
	/** What the node under test remembers in this process (the harness's workflow and node). */
	const records = () => recordsOf('harness-workflow', 'node-under-test');

	it(`keep at most ${MAX_REMEMBERED} per node, the oldest going first; an item leaves at most ${NAMES_PER_ITEM} names in n8n's store`, async () => {
		const now = Date.now();
		for (let index = 0; index < MAX_REMEMBERED; index++) records()[`order.runQcEvaluation:key:old-${index}`] = { state: 'applied', at: now - 60_000 - index, result: {} };
		const staticData: IDataObject = {};
		const [item] = await itemsFor(qc, 1);

		await run(sandbox(), withOptions(qc.parameters(sandbox()), { idempotencyKey: 'new' }), { items: [item], staticData });

		// Nothing in the workflow's static data: n8n would save it over what a trigger saved meanwhile.
		expect(staticData).toEqual({});
		const kept = records();
		expect(Object.keys(kept)).toHaveLength(MAX_REMEMBERED);
		expect(kept[`order.runQcEvaluation:key:old-${MAX_REMEMBERED - 1}`]).toBeUndefined();
		expect(kept['order.runQcEvaluation:key:new'].at).toBeGreaterThanOrEqual(now);
		// Left in the row: the attempt's claim, its end and the ids it made; its baseline went once the end was known.
		const namesOf = (kind: string) => new Set(deduplicationStore.calls.filter((call) => call.kind === kind).flatMap((call) => call.items));
		const removed = namesOf('remove');
		const left = [...namesOf('check')].filter((name) => !removed.has(name));
		expect(left).toEqual(expect.arrayContaining(['order.runQcEvaluation:key:new|a0', 'order.runQcEvaluation:key:new|a0|applied']));
		expect(left.filter((name) => name.includes('|made:'))).not.toHaveLength(0);
		expect(left.filter((name) => /\|base(d|:)/.test(name))).toEqual([]);
		expect(left.length).toBeLessThanOrEqual(NAMES_PER_ITEM);
	});

	it(`are kept in memory ${REMEMBER_DAYS} days (as long as n8n keeps a failed execution to retry); an older one, gone from n8n's store too, is sent again`, async () => {
		const now = Date.now();
		const staticData: IDataObject = {};
		Object.assign(records(), {
			'order.runQcEvaluation:key:stale': { state: 'applied', at: now - (REMEMBER_DAYS * 86_400_000 + 60_000), result: { evalId: 'gone' } },
			'order.runQcEvaluation:key:recent': { state: 'applied', at: now - (REMEMBER_DAYS - 1) * 86_400_000, result: { evalId: 'kept' } },
		});
		const [item] = await itemsFor(qc, 1);
		const keyed = (key: string) => withOptions(qc.parameters(sandbox()), { idempotencyKey: key });

		const recent = await run(sandbox(), keyed('recent'), { items: [item], staticData });
		const stale = await run(sandbox(), keyed('stale'), { items: [item], staticData });

		expect(recent.json[0]).toMatchObject({ evalId: 'kept', alreadyApplied: true });
		expect(stale.json[0].alreadyApplied).toBeUndefined();
		expect(appliedCounts(qc, [item])).toEqual([1]);
	});

	it('a run stopped by an error names the items applied before it, with the ids and credits the API returned', async () => {
		const items = await itemsFor(qc, 3);
		sandbox().faults.add({ method: 'POST', kind: 'status', status: 500, when: 'after', skip: 2, times: 1 });

		const error = failure(await runAction(qc, items, { staticData: {} }));

		expect(error.itemIndex).toBe(2);
		const [a, b] = items.map((item) => item.json.orderId);
		expect(error.description).toMatch(
			new RegExp(`Applied before the node stopped \\(2 items\\): item 0 \\(orderId ${String(a)}, evalId \\w+, creditsUsed \\d+\\); item 1 \\(orderId ${String(b)}, evalId \\w+, creditsUsed \\d+\\)\\.`),
		);
	});
});
