// Retry Protection: an item applied in an earlier run of the workflow (n8n's Retry, Retry On Fail) is remembered in
// the workflow's static data under its idempotency key and not sent again; the option turns it off, the key can be
// set by expression, and the memory is bounded. The static data is carried from run to run as n8n saves it (JSON).
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { MAX_REMEMBERED, REMEMBER_HOURS } from '../../nodes/Ollang/actions/common/retryGuard';
import { byId, failure, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();

const qc = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'order',
	operation: 'runQcEvaluation',
	orderId: byId('={{ $json.orderId }}'),
	...extra,
});

const completedOrders = (count: number): INodeExecutionData[] =>
	sandbox()
		.simulate.createOrders(count, { type: 'subtitle', level: 0, status: 'completed', progress: false })
		.map((order) => ({ json: { orderId: order.id } }));

const evaluations = (orderId: unknown) =>
	sandbox().state.wallet.ledger.filter((entry) => entry.orderId === orderId && entry.kind === 'qcEvaluation').length;

/** The static data as n8n stores it between executions. */
const saved = (staticData: IDataObject): IDataObject => JSON.parse(JSON.stringify(staticData)) as IDataObject;

const records = (staticData: IDataObject): Record<string, { at: number }> =>
	(staticData['node:Ollang'] as IDataObject | undefined)?.ollangAppliedItems as Record<string, { at: number }>;

describe('Retry Protection', () => {
	it('a repeat of applied items returns what was applied, with alreadyApplied, and spends nothing', async () => {
		const items = completedOrders(3);
		const staticData: IDataObject = {};

		const first = await run(sandbox(), qc(), { items, staticData });
		const second = await run(sandbox(), qc(), { items, staticData: saved(staticData) });

		expect(first.error).toBeUndefined();
		expect(second.json).toEqual(first.json.map((json) => ({ ...json, alreadyApplied: true, appliedAt: expect.any(String) })));
		expect(items.map((item) => evaluations(item.json.orderId))).toEqual([1, 1, 1]);
	});

	it('turned off, a repeat is sent again (and charged again)', async () => {
		const items = completedOrders(2);
		const staticData: IDataObject = {};

		await run(sandbox(), qc({ retryProtection: false }), { items, staticData });
		const second = await run(sandbox(), qc({ retryProtection: false }), { items, staticData: saved(staticData) });

		expect(second.json.every((json) => json.alreadyApplied === undefined)).toBe(true);
		expect(items.map((item) => evaluations(item.json.orderId))).toEqual([2, 2]);
		expect(records(staticData)).toBeUndefined();
	});

	it('the Idempotency Key set by expression decides what is a repeat: a new key is sent, a known one is not', async () => {
		const [order] = completedOrders(1);
		const keyed = qc({ idempotencyKey: '={{ $json.ticket }}' });
		const staticData: IDataObject = {};

		await run(sandbox(), keyed, { items: [{ json: { ...order.json, ticket: 'T-1' } }], staticData });
		const repeat = await run(sandbox(), keyed, { items: [{ json: { ...order.json, ticket: 'T-1' } }], staticData: saved(staticData) });
		const next = await run(sandbox(), keyed, { items: [{ json: { ...order.json, ticket: 'T-2' } }], staticData: saved(staticData) });

		expect(repeat.json[0].alreadyApplied).toBe(true);
		expect(next.json[0].alreadyApplied).toBeUndefined();
		expect(evaluations(order.json.orderId)).toBe(2);
	});

	it('an Idempotency Key that is not text is refused before anything is sent, naming the field', async () => {
		const items = completedOrders(1);
		sandbox().requests.reset();

		const error = failure(await run(sandbox(), qc({ idempotencyKey: '={{ { a: 1 } }}' }), { items }));

		expect(error.message).toContain('Idempotency Key');
		expect(sandbox().requests.count({ method: 'POST' })).toBe(0);
	});

	it(`remembers at most ${MAX_REMEMBERED} items per node, and none older than ${REMEMBER_HOURS} hours`, async () => {
		const now = Date.now();
		const filled: Record<string, IDataObject> = {};
		for (let index = 0; index < MAX_REMEMBERED; index++) filled[`order.runQcEvaluation:key:old-${index}`] = { state: 'applied', at: now - 60_000 - index, result: {} };
		filled['order.runQcEvaluation:key:stale'] = { state: 'applied', at: now - (REMEMBER_HOURS * 3600_000 + 60_000), result: {} };
		const staticData: IDataObject = { 'node:Ollang': { ollangAppliedItems: filled } };
		const [order] = completedOrders(1);

		const result = await run(sandbox(), qc({ idempotencyKey: 'stale' }), { items: [order], staticData });

		// The stale record is forgotten, so its key is sent again; the oldest record made room for the new one.
		expect(result.json[0].alreadyApplied).toBeUndefined();
		const kept = records(staticData);
		expect(Object.keys(kept)).toHaveLength(MAX_REMEMBERED);
		expect(kept[`order.runQcEvaluation:key:old-${MAX_REMEMBERED - 1}`]).toBeUndefined();
		expect(kept['order.runQcEvaluation:key:stale'].at).toBeGreaterThanOrEqual(now);
	});

	it('a run stopped by an error names the items applied before it, with the ids and credits the API returned', async () => {
		const items = completedOrders(3);
		sandbox().faults.add({ method: 'POST', kind: 'status', status: 500, when: 'after', skip: 2, times: 1 });

		const result = await run(sandbox(), qc(), { items, staticData: {} });
		const error = failure(result);

		expect(error.itemIndex).toBe(2);
		const [a, b] = items.map((item) => item.json.orderId);
		expect(error.description).toMatch(
			new RegExp(`Applied before the node stopped \\(2 items\\): item 0 \\(orderId ${String(a)}, evalId \\w+, creditsUsed \\d+\\); item 1 \\(orderId ${String(b)}, evalId \\w+, creditsUsed \\d+\\)\\.`),
		);
	});

	it('a repeat whose earlier answer was lost is checked against the order (its latest evaluation) instead of sent again', async () => {
		const items = completedOrders(2);
		const staticData: IDataObject = {};
		sandbox().faults.add({ method: 'POST', kind: 'drop', when: 'after', skip: 1, times: 1 });

		const first = await run(sandbox(), qc(), { items, staticData });
		const second = await run(sandbox(), qc(), { items, staticData: saved(staticData) });

		expect(failure(first).itemIndex).toBe(1);
		expect(second.error).toBeUndefined();
		const latest = sandbox().state.orders.get(String(items[1].json.orderId))?.latestEvaluation?.id;
		expect(second.json[1]).toEqual({ orderId: items[1].json.orderId, evalId: latest, alreadyApplied: true, appliedAt: expect.any(String) });
		expect(items.map((item) => evaluations(item.json.orderId))).toEqual([1, 1]);
	});
});

describe('Already applied, from the API\'s state', () => {
	const review = { resource: 'order', operation: 'requestHumanReview', orderId: byId('={{ $json.orderId }}') };

	it('Request Human Review repeated: the order is level 1, so the item succeeds with alreadyApplied and no second charge', async () => {
		const items = completedOrders(2);

		await run(sandbox(), review, { items });
		const again = await run(sandbox(), review, { items });

		expect(again.json).toEqual(items.map((item) => ({ success: true, orderId: item.json.orderId, humanReviewRequested: true, alreadyApplied: true })));
		const charges = items.map((item) => sandbox().state.wallet.ledger.filter((entry) => entry.orderId === item.json.orderId && entry.kind === 'humanReview').length);
		expect(charges).toEqual([1, 1]);
	});

	it('Request Human Review refused for another reason (a pending order) stays an error in the API\'s words', async () => {
		const [order] = sandbox().simulate.createOrders(1, { status: 'pending', level: 0, progress: false });

		const error = failure(await run(sandbox(), review, { items: [{ json: { orderId: order.id } }] }));

		expect(error.message).toMatch(/^The Ollang API answered 400 ORDER_NOT_ELIGIBLE: Human review can only be requested for completed or delivered orders/);
	});

	it('Assign Translator repeated assigns nothing more (assignedCount 0) and does not fail', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const projectId = [...sandbox().state.projects.values()].find((project) => project.folderId === folderId)?.id;
		sandbox().simulate.createOrders(1, { status: 'completed', level: 0, projectId, targetLanguage: 'x-retry', progress: false });
		const assign = {
			resource: 'folder',
			operation: 'assignTranslator',
			folderId: byId(folderId),
			translatorId: sandbox().state.translators[0].id,
			additionalFields: { targetLanguage: 'x-retry' },
		};

		const first = await run(sandbox(), assign);
		const again = await run(sandbox(), assign);

		expect(first.json[0].assignedCount).toBe(1);
		expect(again.error).toBeUndefined();
		expect(again.json[0].assignedCount).toBe(0);
	});
});
