import type { Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeB, expectShapeC, useSandbox } from './helpers.cts';

const UNKNOWN = '0123456789abcdef01234567';
const create = (sandbox: Sandbox, orderId: string, body: unknown, key?: string) => call(sandbox, 'POST', `/integration/revision/${orderId}`, { body, key });
const list = (sandbox: Sandbox, orderId: string, key?: string) => call(sandbox, 'GET', `/integration/revision/${orderId}`, { key });
const remove = (sandbox: Sandbox, orderId: string, revisionId: string, key?: string) =>
	call(sandbox, 'DELETE', `/integration/revision/${orderId}/${revisionId}`, { key });

/** A completed order that stays put (its delivery time is now). */
const deliveredOrder = (sandbox: Sandbox, status: 'completed' | 'delivered' = 'completed') =>
	sandbox.simulate.createOrders(1, { type: 'subtitle', level: 0, status, progress: false })[0];

describe('revisions', () => {
	const sandbox = useSandbox();

	it('POST creates a revision: 201 { id, createdAt, type, time, description, orderId }; GET lists the order\'s revisions', async () => {
		const order = deliveredOrder(sandbox());
		const other = deliveredOrder(sandbox(), 'delivered');
		const response = await create(sandbox(), order.id, { type: 'syncError', time: '00:01:23', description: 'Subtitles drift by a second' });
		expect(response.status).toBe(201);
		expect(response.body).toEqual({
			id: expect.stringMatching(/^[0-9a-f]{24}$/),
			createdAt: sandbox().clock.now().toISOString(),
			type: 'syncError',
			time: '00:01:23',
			description: 'Subtitles drift by a second',
			orderId: order.id,
		});
		const second = await create(sandbox(), order.id, { type: 'missingSubtitle', time: '01:59:59' });
		expect(second.status).toBe(201);
		expect(second.body.description).toBeNull();
		expect((await create(sandbox(), other.id, { type: 'other', time: '00:00:00' })).status).toBe(201);

		const listed = await list(sandbox(), order.id);
		expect(listed.status).toBe(200);
		expect(listed.body).toEqual([response.body, second.body]);
		expect(await list(sandbox(), deliveredOrder(sandbox()).id)).toEqual(expect.objectContaining({ status: 200, body: [] }));
	});

	it.each(['missingSubtitle', 'wrongSubtitle', 'syncError', 'formatError', 'other'])('accepts the type %s', async (type) => {
		expect((await create(sandbox(), deliveredOrder(sandbox()).id, { type, time: '00:00:10' })).status).toBe(201);
	});

	it.each([
		[{ time: '00:00:01' }, ['type should not be empty']],
		[{ type: 'timing', time: '00:00:01' }, ['type must be one of the following values: missingSubtitle, wrongSubtitle, syncError, formatError, other']],
		[{ type: 'other' }, ['time should not be empty']],
		[{ type: 'other', time: '1:02:03' }, ['time must be a time in the format HH:MM:SS']],
		[{ type: 'other', time: '00:61:00' }, ['time must be a time in the format HH:MM:SS']],
		[{ type: 'other', time: '00:00:05.5' }, ['time must be a time in the format HH:MM:SS']],
		[{ type: 'other', time: '00:00:05', description: 7 }, ['description must be a string']],
		[{ type: 'other', time: '00:00:05', orderId: 'x' }, ['property orderId should not exist']],
	])('answers 400 shape B to the body %j', async (body, message) => {
		const order = deliveredOrder(sandbox());
		const response = await create(sandbox(), order.id, body);
		expect(response.status).toBe(400);
		expect(response.body).toEqual({ statusCode: 400, message, error: 'Bad Request' });
		expect((await list(sandbox(), order.id)).body).toEqual([]);
	});

	it.each(['pending', 'ongoing', 'waitingForCC', 'qualityCheck', 'revision'] as const)('answers 400 for a %s order (completed or delivered only)', async (status) => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle', level: status === 'qualityCheck' ? 1 : 0, status, progress: false });
		const response = await create(sandbox(), order.id, { type: 'other', time: '00:00:05' });
		expect(response.status).toBe(400);
		expectShapeB(response.body, 400, 'Bad Request');
		expect(response.body.message).toMatch(/only be requested for completed or delivered orders/);
	});

	it('answers 400 after the 14-day revision window (an order delivered long ago)', async () => {
		const response = await create(sandbox(), sandbox().fixtures.orders.withoutEvents, { type: 'other', time: '00:00:05' });
		expect(response.status).toBe(400);
		expectShapeB(response.body, 400, 'Bad Request');
		expect(response.body.message).toMatch(/revision window of 14 days/);
	});

	it('DELETE removes a revision (204); then 404; 400 when the revision belongs to another order; 404 for unknown ids', async () => {
		const order = deliveredOrder(sandbox());
		const other = deliveredOrder(sandbox());
		const mine = (await create(sandbox(), order.id, { type: 'wrongSubtitle', time: '00:00:42' })).body;
		const theirs = (await create(sandbox(), other.id, { type: 'formatError', time: '00:00:43' })).body;

		const mismatch = await remove(sandbox(), order.id, theirs.id);
		expect(mismatch.status).toBe(400);
		expectShapeB(mismatch.body, 400, 'Bad Request');
		expect(mismatch.body.message).toMatch(/does not belong to order/);
		expect((await list(sandbox(), other.id)).body).toEqual([theirs]);

		const deleted = await remove(sandbox(), order.id, mine.id);
		expect(deleted.status).toBe(204);
		expect(deleted.text).toBe('');
		expect((await list(sandbox(), order.id)).body).toEqual([]);
		const again = await remove(sandbox(), order.id, mine.id);
		expect(again.status).toBe(404);
		expectShapeB(again.body, 404, 'Not Found');
		expect((await remove(sandbox(), UNKNOWN, theirs.id)).status).toBe(404);
		expect((await remove(sandbox(), order.id, UNKNOWN)).status).toBe(404);
	});

	it('answers 404 shape B for an unknown order on every route', async () => {
		for (const response of [await create(sandbox(), UNKNOWN, { type: 'other', time: '00:00:01' }), await list(sandbox(), UNKNOWN)]) {
			expect(response.status).toBe(404);
			expect(response.body).toEqual({ statusCode: 404, message: 'Order not found', error: 'Not Found' });
		}
	});

	it('follows folder access: read-only keys list but cannot create or delete (403); hidden orders are 403 everywhere', async () => {
		const { keys, fixtures } = sandbox();
		const readOnly = fixtures.orders.readOnlyForMember;
		const existing = (await create(sandbox(), readOnly, { type: 'other', time: '00:00:07' })).body;
		expect(existing.orderId).toBe(readOnly);
		expect((await list(sandbox(), readOnly, keys.member)).body).toEqual([existing]);
		for (const response of [await create(sandbox(), readOnly, { type: 'other', time: '00:00:08' }, keys.member), await remove(sandbox(), readOnly, existing.id, keys.member)]) {
			expect(response.status).toBe(403);
			expectShapeB(response.body, 403, 'Forbidden');
		}
		expect((await list(sandbox(), fixtures.orders.hiddenFromMember, keys.member)).status).toBe(403);
		expect((await list(sandbox(), readOnly)).body).toEqual([existing]);
	});

	it('answers 401 shape C without a key', async () => {
		const response = await list(sandbox(), sandbox().fixtures.orders.completedLevel0, null as unknown as string);
		expect(response.status).toBe(401);
		expectShapeC(response.body, 'UNAUTHORIZED');
	});
});

describe('the revision window runs 14 days from the latest delivery', () => {
	const sandbox = useSandbox();

	it('allows a revision exactly 14 days after delivery and refuses it a minute later; a re-delivery opens it again', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 0, status: 'completed', progress: false });
		sandbox().clock.advance(14 * 24 * 60);
		expect((await create(sandbox(), order.id, { type: 'other', time: '00:00:01' })).status).toBe(201);
		sandbox().clock.advance(1);
		const late = await create(sandbox(), order.id, { type: 'other', time: '00:00:02' });
		expect(late.status).toBe(400);
		expect(late.body.message).toMatch(/revision window/);
		// A rerun delivers again, which opens a new window.
		expect((await call(sandbox(), 'POST', `/integration/orders/${order.id}/rerun`, { body: { freeReRun: true } })).status).toBe(200);
		sandbox().clock.advance(10);
		expect((await create(sandbox(), order.id, { type: 'other', time: '00:00:03' })).status).toBe(201);
	});
});
