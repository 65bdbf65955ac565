import type { Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeA, expectShapeB, useSandbox } from './helpers.cts';

const UNKNOWN = '0123456789abcdef01234567';
const getOrder = async (sandbox: Sandbox, orderId: string) => (await call(sandbox, 'GET', `/integration/orders/${orderId}`)).body;
const cancel = (sandbox: Sandbox, orderId: string, key?: string) => call(sandbox, 'POST', `/integration/orders/cancel/${orderId}`, { key });
const rerun = (sandbox: Sandbox, orderId: string, body?: unknown, key?: string) => call(sandbox, 'POST', `/integration/orders/${orderId}/rerun`, { body, key });
const qc = (sandbox: Sandbox, orderId: string, body?: unknown, key?: string) => call(sandbox, 'POST', `/integration/orders/${orderId}/qc`, { body, key });
const ledger = (sandbox: Sandbox, orderId: string, kind: string) => sandbox.state.wallet.ledger.filter((entry) => entry.orderId === orderId && entry.kind === kind);
const eventTypes = (order: any): string[] => order.deliveryEvents.map((event: any) => event.type);

function reviewCost(sandbox: Sandbox, orderId: string): number {
	const { pricing } = sandbox.state.orders.get(orderId)!;
	return Math.round(pricing.level1Usd * 1000) - Math.round(pricing.level0Usd * 1000);
}

describe('POST /integration/orders/cancel/{orderId}', () => {
	const sandbox = useSandbox();

	it('cancels a pending order: 204 with no body, status cancelled, nothing runs afterwards, a second cancel answers 409', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0 });
		expect(order.status).toBe('pending');
		const before = sandbox().state.wallet.usedCredits;
		const response = await cancel(sandbox(), order.id);
		expect(response.status).toBe(204);
		expect(response.text).toBe('');
		expect((await getOrder(sandbox(), order.id)).status).toBe('cancelled');
		expect(sandbox().state.wallet.usedCredits).toBe(before);
		sandbox().clock.advance(24 * 60);
		const later = await getOrder(sandbox(), order.id);
		expect(later.status).toBe('cancelled');
		expect(later.deliveryEvents).toEqual([]);
		const again = await cancel(sandbox(), order.id);
		expect(again.status).toBe(409);
		expectShapeA(again.body, 'ORDER_ALREADY_CANCELLED');
		expect(again.body.error).toBe('Conflict');
	});

	it('cancels an early ongoing order (AI still running): no ai_delivered ever comes', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'ongoing' });
		expect((await cancel(sandbox(), order.id)).status).toBe(204);
		sandbox().clock.advance(120);
		const later = await getOrder(sandbox(), order.id);
		expect(later.status).toBe('cancelled');
		expect(eventTypes(later)).not.toContain('ai_delivered');
	});

	it('refunds the human-review portion of a level-1 order (charged when it was created)', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 1, progress: false });
		const before = sandbox().state.wallet.usedCredits;
		expect((await cancel(sandbox(), order.id)).status).toBe(204);
		const refund = reviewCost(sandbox(), order.id);
		expect(refund).toBeGreaterThan(0);
		expect(before - sandbox().state.wallet.usedCredits).toBe(refund);
		expect(ledger(sandbox(), order.id, 'orderCancelRefund')).toEqual([expect.objectContaining({ credits: -refund })]);
	});

	it('lists cancelled orders with filter[status]=cancelled', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'cc', progress: false });
		expect((await cancel(sandbox(), order.id)).status).toBe(204);
		const list = await call(sandbox(), 'GET', '/integration/orders', { query: { 'filter[status]': 'cancelled', 'pageOptions[take]': 50 } });
		expect(list.status).toBe(200);
		expect(list.body.data.map((row: any) => row.id)).toContain(order.id);
		expect(list.body.data.every((row: any) => row.status === 'cancelled')).toBe(true);
	});

	it('answers 400 ORDER_NOT_ELIGIBLE once the AI output is delivered (late ongoing) and in every later status', async () => {
		const { orders } = sandbox().fixtures;
		const lateOngoing = sandbox().simulate.createOrders(1, { type: 'document', level: 1, status: 'qualityCheck', progress: false })[0];
		lateOngoing.status = 'ongoing';
		const cases = [
			orders.level1Ongoing,
			lateOngoing.id,
			...(['completed', 'delivered', 'waitingForCC', 'qualityCheck', 'revision'] as const).map(
				(status) => sandbox().simulate.createOrders(1, { type: 'subtitle', level: status === 'qualityCheck' ? 1 : 0, status, progress: false })[0].id,
			),
		];
		for (const orderId of cases) {
			const status = sandbox().state.orders.get(orderId)!.status;
			const response = await cancel(sandbox(), orderId);
			expect({ status, answer: response.status }).toEqual({ status, answer: 400 });
			expectShapeA(response.body, 'ORDER_NOT_ELIGIBLE');
			expect(sandbox().state.orders.get(orderId)!.status).toBe(status);
		}
	});

	it('answers 404 ORDER_NOT_FOUND and 403 ACCESS_DENIED (no access, or read-only) in shape A', async () => {
		const missing = await cancel(sandbox(), UNKNOWN);
		expect(missing.status).toBe(404);
		expectShapeA(missing.body, 'ORDER_NOT_FOUND');
		const { keys, fixtures } = sandbox();
		const [readOnly] = sandbox().simulate.createOrders(1, { projectId: fixtures.projects.readOnlyForMember, progress: false });
		const [hidden] = sandbox().simulate.createOrders(1, { projectId: fixtures.projects.hiddenFromMember, progress: false });
		for (const order of [readOnly, hidden]) {
			const denied = await cancel(sandbox(), order.id, keys.member);
			expect(denied.status).toBe(403);
			expectShapeA(denied.body, 'ACCESS_DENIED');
			expect(order.status).toBe('pending');
		}
	});
});

describe('POST /integration/orders/{orderId}/rerun', () => {
	const sandbox = useSandbox();

	it('reruns a completed order: 200, ongoing at once, a NEW ai_delivered later, then delivered again; charged the AI price', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle', level: 0, status: 'completed' });
		const first = await getOrder(sandbox(), order.id);
		expect(eventTypes(first)).toEqual(['ai_delivered']);
		const docCount = first.orderDocs.length;
		const before = sandbox().state.wallet.usedCredits;
		const billedLines = () => sandbox().state.consumption.filter((line) => line.orderId === order.id).length;
		const linesBefore = billedLines();

		const response = await rerun(sandbox(), order.id);
		expect(response.status).toBe(200);
		expect(response.body).toEqual({ success: true, message: 'Order rerun initiated successfully', orderId: order.id });
		expect((await getOrder(sandbox(), order.id)).status).toBe('ongoing');
		const price = Math.round(order.pricing.level0Usd * 1000);
		expect(sandbox().state.wallet.usedCredits - before).toBe(price);
		expect(ledger(sandbox(), order.id, 'rerun')).toEqual([expect.objectContaining({ credits: price })]);

		sandbox().clock.advance(10);
		const rerunDone = await getOrder(sandbox(), order.id);
		expect(rerunDone.status).toBe('completed');
		expect(eventTypes(rerunDone)).toEqual(['ai_delivered', 'ai_delivered']);
		expect(Date.parse(rerunDone.deliveryEvents[1].occurredAt)).toBeGreaterThan(Date.parse(rerunDone.deliveryEvents[0].occurredAt));
		// The rerun's output replaces the earlier output; nothing is billed twice.
		expect(rerunDone.orderDocs).toHaveLength(docCount);
		expect(billedLines()).toBe(linesBefore);
		expect(ledger(sandbox(), order.id, 'rerun')).toHaveLength(1);

		sandbox().clock.advance(15);
		const delivered = await getOrder(sandbox(), order.id);
		expect(delivered.status).toBe('delivered');
		expect(eventTypes(delivered)).toEqual(['ai_delivered', 'ai_delivered', 'order_delivered']);
	});

	it('reruns a delivered order for free with freeReRun: no credits spent', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'delivered' });
		const before = sandbox().state.wallet.usedCredits;
		const response = await rerun(sandbox(), order.id, { freeReRun: true });
		expect(response.status).toBe(200);
		expect(sandbox().state.wallet.usedCredits).toBe(before);
		expect(ledger(sandbox(), order.id, 'rerun')).toEqual([]);
		expect(order.reruns).toEqual([expect.objectContaining({ freeReRun: true, triggerFullChain: false })]);
		sandbox().clock.advance(10);
		expect(eventTypes(await getOrder(sandbox(), order.id))).toEqual(['ai_delivered', 'order_delivered', 'ai_delivered']);
	});

	it('a level-1 order goes through its human review again after the new AI delivery', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 1, status: 'completed' });
		expect((await rerun(sandbox(), order.id)).status).toBe(200);
		sandbox().clock.advance(10);
		const afterAi = await getOrder(sandbox(), order.id);
		expect(afterAi.status).toBe('ongoing');
		expect(eventTypes(afterAi).filter((type) => type === 'ai_delivered')).toHaveLength(2);
		sandbox().clock.advance(5 + 120 + 30);
		expect((await getOrder(sandbox(), order.id)).status).toBe('completed');
	});

	it('triggerFullChain reruns the connected order too and lists the triggered ids', async () => {
		const created = await call(sandbox(), 'POST', '/integration/orders/create', {
			body: { orderType: 'aiDubbing', level: 0, projectId: sandbox().fixtures.projects.writable, targetLanguageConfigs: [{ language: 'de' }] },
		});
		expect(created.status).toBe(201);
		const [dubbing, subtitle] = created.body.map((row: any) => row.orderId);
		sandbox().clock.advance(60);
		expect((await getOrder(sandbox(), dubbing)).status).toBe('delivered');
		const plain = await rerun(sandbox(), dubbing, { freeReRun: true });
		expect(plain.body).not.toHaveProperty('triggeredOrderIds');
		sandbox().clock.advance(60);
		const chained = await rerun(sandbox(), dubbing, { triggerFullChain: true, freeReRun: true });
		expect(chained.status).toBe(200);
		expect(chained.body).toEqual({
			success: true,
			message: 'Order rerun initiated successfully',
			orderId: dubbing,
			triggerFullChain: true,
			triggeredOrderIds: [dubbing, subtitle],
		});
		expect((await getOrder(sandbox(), subtitle)).status).toBe('ongoing');
	});

	it('answers 400 ORDER_NOT_ELIGIBLE unless completed or delivered, and 400 shape B for a bad body', async () => {
		for (const status of ['pending', 'ongoing', 'qualityCheck', 'revision'] as const) {
			const [order] = sandbox().simulate.createOrders(1, { type: 'cc', status, progress: false });
			const response = await rerun(sandbox(), order.id);
			expect({ status, answer: response.status }).toEqual({ status, answer: 400 });
			expectShapeA(response.body, 'ORDER_NOT_ELIGIBLE');
			expect(order.reruns).toEqual([]);
		}
		const [cancelled] = sandbox().simulate.createOrders(1, { progress: false });
		expect((await cancel(sandbox(), cancelled.id)).status).toBe(204);
		expect((await rerun(sandbox(), cancelled.id)).status).toBe(400);

		const completed = sandbox().fixtures.orders.completedLevel0;
		const badType = await rerun(sandbox(), completed, { freeReRun: 'yes' });
		expect(badType.status).toBe(400);
		expect(badType.body).toEqual({ statusCode: 400, message: ['freeReRun must be a boolean value'], error: 'Bad Request' });
		const unknownField = await rerun(sandbox(), completed, { fullChain: true });
		expect(unknownField.body.message).toEqual(['property fullChain should not exist']);
		expect(sandbox().state.orders.get(completed)!.reruns).toEqual([]);
	});

	it('answers 404 and 403 in shape A', async () => {
		const missing = await rerun(sandbox(), UNKNOWN);
		expect(missing.status).toBe(404);
		expectShapeA(missing.body, 'ORDER_NOT_FOUND');
		const { keys, fixtures } = sandbox();
		for (const orderId of [fixtures.orders.readOnlyForMember, fixtures.orders.hiddenFromMember]) {
			const denied = await rerun(sandbox(), orderId, undefined, keys.member);
			expect(denied.status).toBe(403);
			expectShapeA(denied.body, 'ACCESS_DENIED');
		}
	});
});

describe('POST /integration/orders/{orderId}/qc', () => {
	const sandbox = useSandbox();

	it('starts an evaluation: 200 isProcessing, latestEvaluation loading at once, done 5 minutes later; credits spent', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle', level: 0, status: 'completed', progress: false });
		const before = sandbox().state.wallet.usedCredits;
		const response = await qc(sandbox(), order.id);
		expect(response.status).toBe(200);
		expect(response.body).toEqual({
			success: true,
			message: expect.stringMatching(/QC evaluation started/),
			evalId: expect.stringMatching(/^[0-9a-f]{24}$/),
			creditsUsed: expect.any(Number),
			isProcessing: true,
		});
		const { evalId, creditsUsed } = response.body;
		expect(creditsUsed).toBeGreaterThanOrEqual(5);
		expect(sandbox().state.wallet.usedCredits - before).toBe(creditsUsed);
		expect(ledger(sandbox(), order.id, 'qcEvaluation')).toEqual([expect.objectContaining({ credits: creditsUsed })]);

		const loading = await getOrder(sandbox(), order.id);
		expect(loading.latestEvaluation).toEqual({ id: evalId, orderId: order.id, createdAt: sandbox().clock.now().toISOString(), isLoading: true });

		sandbox().clock.advance(4);
		expect((await getOrder(sandbox(), order.id)).latestEvaluation.isLoading).toBe(true);
		sandbox().clock.advance(1);
		const done = (await getOrder(sandbox(), order.id)).latestEvaluation;
		expect(done).toEqual({
			id: evalId,
			orderId: order.id,
			createdAt: loading.latestEvaluation.createdAt,
			textSummary: expect.any(String),
			scores: expect.any(Array),
			segmentEvals: expect.any(Array),
			isLoading: false,
		});
		expect(done.scores.map((score: any) => score.name)).toEqual(['Accuracy', 'Fluency', 'Tone', 'Cultural Fit']);
		for (const score of done.scores) expect(score).toEqual({ name: expect.any(String), description: expect.any(String), value: expect.any(Number) });
		expect(done.segmentEvals.length).toBeGreaterThan(0);
		for (const segment of done.segmentEvals) expect(segment).toEqual({ id: expect.any(String), explain: expect.any(String), suggestedNewValue: expect.any(String) });
	});

	it('evaluates only the chosen criteria, takes a custom prompt and a public https callback; a delivered order is eligible', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'delivered', progress: false });
		const response = await qc(sandbox(), order.id, {
			accuracy: true,
			fluency: true,
			tone: false,
			culturalFit: false,
			customPrompt: 'Check the brand terms',
			callbackUrl: 'https://hooks.example.com/qc',
		});
		expect(response.status).toBe(200);
		sandbox().clock.advance(5);
		const done = (await getOrder(sandbox(), order.id)).latestEvaluation;
		expect(done.scores.map((score: any) => score.name)).toEqual(['Accuracy', 'Fluency']);
		expect(done.textSummary).toContain('Check the brand terms');
	});

	it.each([
		['http://hooks.example.com/qc', 'callbackUrl must use https'],
		['https://localhost/qc', 'callbackUrl must point to a public host'],
		['https://api.localhost/qc', 'callbackUrl must point to a public host'],
		['https://127.0.0.1:8443/qc', 'callbackUrl must point to a public host'],
		['https://10.1.2.3/qc', 'callbackUrl must point to a public host'],
		['https://172.20.0.1/qc', 'callbackUrl must point to a public host'],
		['https://192.168.1.10/qc', 'callbackUrl must point to a public host'],
		['https://169.254.169.254/latest', 'callbackUrl must point to a public host'],
		['https://[::1]/qc', 'callbackUrl must point to a public host'],
		['https://[fd00::1]/qc', 'callbackUrl must point to a public host'],
		['not a url', 'callbackUrl must be a URL address'],
	])('refuses the callback URL %s with 400 shape B and charges nothing', async (callbackUrl, message) => {
		const orderId = sandbox().fixtures.orders.completedLevel0;
		const before = sandbox().state.wallet.usedCredits;
		const response = await qc(sandbox(), orderId, { callbackUrl });
		expect(response.status).toBe(400);
		expectShapeB(response.body, 400, 'Bad Request');
		expect(response.body.message[0]).toMatch(new RegExp(`^${message}`));
		expect(sandbox().state.wallet.usedCredits).toBe(before);
	});

	it('answers 400 for no criterion at all and for fields of the wrong type', async () => {
		const orderId = sandbox().fixtures.orders.completedLevel0;
		const none = await qc(sandbox(), orderId, { accuracy: false, fluency: false, tone: false, culturalFit: false });
		expect(none.status).toBe(400);
		expect(none.body.message).toEqual(['at least one of accuracy, fluency, tone, culturalFit must be true']);
		const wrong = await qc(sandbox(), orderId, { tone: 'yes', customPrompt: 5 });
		expect(wrong.body.message).toEqual(['tone must be a boolean value', 'customPrompt must be a string']);
		expect(ledger(sandbox(), orderId, 'qcEvaluation')).toEqual([]);
	});

	it('answers 400 ORDER_NOT_ELIGIBLE unless completed or delivered, 404 and 403 in shape A', async () => {
		for (const status of ['pending', 'ongoing', 'qualityCheck'] as const) {
			const [order] = sandbox().simulate.createOrders(1, { type: 'cc', status, progress: false });
			const response = await qc(sandbox(), order.id);
			expect({ status, answer: response.status }).toEqual({ status, answer: 400 });
			expectShapeA(response.body, 'ORDER_NOT_ELIGIBLE');
		}
		const missing = await qc(sandbox(), UNKNOWN);
		expect(missing.status).toBe(404);
		expectShapeA(missing.body, 'ORDER_NOT_FOUND');
		const denied = await qc(sandbox(), sandbox().fixtures.orders.readOnlyForMember, undefined, sandbox().keys.member);
		expect(denied.status).toBe(403);
		expectShapeA(denied.body, 'ACCESS_DENIED');
	});
});
