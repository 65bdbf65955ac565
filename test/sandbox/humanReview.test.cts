import type { Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeA, expectShapeB, useSandbox } from './helpers.cts';

const requestReview = (sandbox: Sandbox, orderId: string, key?: string) => call(sandbox, 'POST', `/integration/orders/${orderId}/human-review`, { key });
const cancelReview = (sandbox: Sandbox, orderId: string, key?: string) => call(sandbox, 'POST', `/integration/orders/${orderId}/cancel-human-review`, { key });
const getOrder = async (sandbox: Sandbox, orderId: string) => (await call(sandbox, 'GET', `/integration/orders/${orderId}`)).body;
const wallet = async (sandbox: Sandbox) => (await call(sandbox, 'GET', '/integration/credits')).body;

/** level 1 price minus level 0 price, in credits (1000 credits = 1 USD). */
function reviewCost(sandbox: Sandbox, orderId: string): number {
	const { pricing } = sandbox.state.orders.get(orderId)!;
	return Math.round(pricing.level1Usd * 1000) - Math.round(pricing.level0Usd * 1000);
}

describe('POST /integration/orders/{orderId}/human-review', () => {
	const sandbox = useSandbox();

	it.each(['completed', 'delivered'] as const)('on a %s level-0 order: 204, level 1, ongoing, translator assigned, review cost charged', async (status) => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle', status });
		const before = await wallet(sandbox());
		const response = await requestReview(sandbox(), order.id);
		expect(response.status).toBe(204);
		expect(response.text).toBe('');
		const after = await getOrder(sandbox(), order.id);
		expect(after).toEqual(expect.objectContaining({ level: 1, status: 'ongoing' }));
		expect(after.finance.paymentAmount).toBe(order.pricing.level1Usd);
		expect(sandbox().state.orders.get(order.id)!.translatorId).toMatch(/^[0-9a-f]{24}$/);
		const charged = reviewCost(sandbox(), order.id);
		expect(charged).toBeGreaterThan(0);
		expect((await wallet(sandbox())).usedCredits - before.usedCredits).toBe(charged);
		expect(sandbox().state.wallet.ledger.at(-1)).toEqual(expect.objectContaining({ kind: 'humanReview', orderId: order.id, credits: charged }));
	});

	it('then progresses: translator_delivered, lsp_approved, completed; cancelling is then refused as no longer in progress', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'cc', status: 'completed' });
		expect((await requestReview(sandbox(), order.id)).status).toBe(204);
		sandbox().clock.advance(120);
		expect((await getOrder(sandbox(), order.id)).status).toBe('qualityCheck');
		sandbox().clock.advance(30);
		const reviewed = await getOrder(sandbox(), order.id);
		expect(reviewed.status).toBe('completed');
		expect(reviewed.deliveryEvents.map((event: any) => event.type)).toEqual(['ai_delivered', 'translator_delivered', 'lsp_approved']);
		const cancel = await cancelReview(sandbox(), order.id);
		expect(cancel.status).toBe(400);
		expectShapeB(cancel.body, 400, 'Bad Request');
		expect(cancel.body.message).toMatch(/no longer in progress/);
	});

	it.each(['pending', 'ongoing', 'waitingForCC', 'qualityCheck', 'revision'] as const)('answers 400 ORDER_NOT_ELIGIBLE (shape A) for a %s order', async (status) => {
		// Frozen in that status: other tests in this file move the clock.
		const [{ id: orderId }] = sandbox().simulate.createOrders(1, { type: 'subtitle', status, progress: false });
		const before = sandbox().state.wallet.usedCredits;
		const response = await requestReview(sandbox(), orderId);
		expect(response.status).toBe(400);
		expectShapeA(response.body, 'ORDER_NOT_ELIGIBLE');
		expect(sandbox().state.wallet.usedCredits).toBe(before);
	});

	it('answers ORDER_NOT_ELIGIBLE when the order already has human review (level 1)', async () => {
		const response = await requestReview(sandbox(), sandbox().fixtures.orders.redelivered);
		expect(response.status).toBe(400);
		expectShapeA(response.body, 'ORDER_NOT_ELIGIBLE');
	});

	it('answers 404 ORDER_NOT_FOUND and 403 ACCESS_DENIED in shape A', async () => {
		const { keys, fixtures } = sandbox();
		const missing = await requestReview(sandbox(), '0123456789abcdef01234567');
		expect(missing.status).toBe(404);
		expectShapeA(missing.body, 'ORDER_NOT_FOUND');
		for (const orderId of [fixtures.orders.hiddenFromMember, fixtures.orders.readOnlyForMember]) {
			const denied = await requestReview(sandbox(), orderId, keys.member);
			expect(denied.status).toBe(403);
			expectShapeA(denied.body, 'ACCESS_DENIED');
			expect(sandbox().state.orders.get(orderId)!.level).toBe(0);
		}
	});
});

describe('POST /integration/orders/{orderId}/cancel-human-review', () => {
	const sandbox = useSandbox();

	it('level 1 and ongoing -> level 0 and completed; refunds the review portion; removes the translator', async () => {
		const orderId = sandbox().fixtures.orders.level1Ongoing;
		const record = sandbox().state.orders.get(orderId)!;
		expect(record.translatorId).not.toBeNull();
		const before = await wallet(sandbox());
		const response = await cancelReview(sandbox(), orderId);
		expect(response.status).toBe(200);
		expect(response.body).toEqual({ success: true, message: expect.any(String), orderId });
		const after = await getOrder(sandbox(), orderId);
		expect(after).toEqual(expect.objectContaining({ level: 0, status: 'completed' }));
		expect(after.finance.paymentAmount).toBe(record.pricing.level0Usd);
		expect(record.translatorId).toBeNull();
		const refund = reviewCost(sandbox(), orderId);
		const walletAfter = await wallet(sandbox());
		expect(before.usedCredits - walletAfter.usedCredits).toBe(refund);
		expect(walletAfter.remainingUsd - before.remainingUsd).toBeCloseTo(refund / 1000, 6);
		// The cancelled review's later steps never run.
		sandbox().clock.advance(24 * 60);
		expect((await getOrder(sandbox(), orderId)).status).toBe('completed');
	});

	it('round trip: request then cancel leaves the wallet where it was', async () => {
		const orderId = sandbox().fixtures.orders.completedLevel0;
		const before = sandbox().state.wallet.usedCredits;
		expect((await requestReview(sandbox(), orderId)).status).toBe(204);
		expect((await cancelReview(sandbox(), orderId)).status).toBe(200);
		expect(sandbox().state.wallet.usedCredits).toBe(before);
		const second = await cancelReview(sandbox(), orderId);
		expect(second.status).toBe(400);
		expectShapeB(second.body, 400, 'Bad Request');
		expect(second.body.message).toMatch(/not Level 1/);
	});

	it('answers 400 shape B when the order is not level 1', async () => {
		const response = await cancelReview(sandbox(), sandbox().fixtures.orders.byType.document);
		expect(response.status).toBe(400);
		expect(response.body).toEqual({ statusCode: 400, message: expect.stringMatching(/not Level 1/), error: 'Bad Request' });
	});

	it('answers 400 shape B when the level-1 order is no longer in progress', async () => {
		for (const orderId of [sandbox().fixtures.orders.byStatus.qualityCheck, sandbox().fixtures.orders.redelivered]) {
			const response = await cancelReview(sandbox(), orderId);
			expect(response.status).toBe(400);
			expect(response.body).toEqual({ statusCode: 400, message: expect.stringMatching(/no longer in progress/), error: 'Bad Request' });
		}
	});

	it('answers 404 shape B for an unknown order and 403 shape B without permission', async () => {
		const missing = await cancelReview(sandbox(), '0123456789abcdef01234567');
		expect(missing.status).toBe(404);
		expect(missing.body).toEqual({ statusCode: 404, message: 'Order not found', error: 'Not Found' });
		const denied = await cancelReview(sandbox(), sandbox().fixtures.orders.hiddenFromMember, sandbox().keys.member);
		expect(denied.status).toBe(403);
		expectShapeB(denied.body, 403, 'Forbidden');
	});
});
