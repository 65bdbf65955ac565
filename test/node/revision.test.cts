import type { INodeParameters } from 'n8n-workflow';
import { byId, failure, pairedIndexes, run, useSandbox, sentInThisProcess } from './setup.cts';

const sandbox = useSandbox();
const MISSING = 'aaaaaaaaaaaaaaaaaaaaaaaa';

/** A completed order that stays put, delivered now (inside the revision window). */
const completedOrder = () => sandbox().simulate.createOrders(1, { type: 'subtitle', level: 0, status: 'completed', progress: false })[0];

const create = (orderId: string, extra: INodeParameters = {}) => ({
	resource: 'revision',
	operation: 'create',
	orderId: byId(orderId),
	type: 'syncError',
	time: '00:01:23',
	...extra,
});
const getMany = (orderId: string, extra: INodeParameters = {}) => ({ resource: 'revision', operation: 'getMany', orderId: byId(orderId), returnAll: true, ...extra });
const remove = (orderId: string, revisionId: string) => ({ resource: 'revision', operation: 'delete', orderId: byId(orderId), revisionId });

describe('Revision > Create', () => {
	it('creates a revision request and outputs it', async () => {
		const order = completedOrder();

		const result = await run(sandbox(), create(order.id, { description: '  The subtitles are a second late ' }));

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([
			{ id: expect.stringMatching(/^[0-9a-f]{24}$/), createdAt: expect.any(String), type: 'syncError', time: '00:01:23', description: 'The subtitles are a second late', orderId: order.id },
		]);
		expect(sandbox().state.revisions.get(result.json[0].id as string)).toMatchObject({ orderId: order.id, type: 'syncError' });
		expect(sandbox().requests.count({ method: 'POST', path: `/integration/revision/${order.id}` })).toBe(1);
	});

	it('leaves the description out when empty; one request per item, each output paired with its item', async () => {
		const [first, second] = [completedOrder(), completedOrder()];

		const result = await run(sandbox(), create('={{ $json.orderId }}', { type: '={{ $json.type }}', time: '={{ $json.time }}' }), {
			items: [
				{ json: { orderId: first.id, type: 'missingSubtitle', time: '00:00:05' } },
				{ json: { orderId: second.id, type: 'formatError', time: '01:02:03' } },
			],
		});

		expect(result.json.map((revision) => [revision.orderId, revision.type, revision.time, revision.description])).toEqual([
			[first.id, 'missingSubtitle', '00:00:05', null],
			[second.id, 'formatError', '01:02:03', null],
		]);
		expect(pairedIndexes(result)).toEqual([0, 1]);
	});

	it.each(['1:02:03', '00:60:00', '00:00:61', '00:01:23.5', '83 seconds'])('refuses the time %j before anything is sent, naming the field', async (time) => {
		const error = failure(await run(sandbox(), create(completedOrder().id, { time })));

		expect(error.message).toBe(`Invalid Time (item 0): "${time}" is not a time as HH:MM:SS (two digits each, minutes and seconds 00 to 59, e.g. 00:01:23)`);
		expect(error.description).toContain('Nothing was sent to Ollang');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('refuses an empty time and a type the API does not know, before anything is sent', async () => {
		const order = completedOrder();

		expect(failure(await run(sandbox(), create(order.id, { time: ' ' }))).message).toBe('Invalid Time (item 0): must not be empty');
		expect(failure(await run(sandbox(), create(order.id, { type: 'timing' }))).message).toBe(
			'Invalid Type (item 0): "timing" is not one of: formatError, missingSubtitle, other, syncError, wrongSubtitle',
		);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('400 for an order that is not delivered yet, and after the 14-day window, with a hint', async () => {
		const [pending] = sandbox().simulate.createOrders(1, { progress: false });

		const notDelivered = failure(await run(sandbox(), create(pending.id)));
		const tooLate = failure(await run(sandbox(), create(sandbox().fixtures.orders.withoutEvents)));

		expect(notDelivered.httpCode).toBe('400');
		expect(notDelivered.message).toContain('only be requested for completed or delivered orders');
		expect(notDelivered.description).toContain('within 14 days of its delivery');
		expect(tooLate.message).toContain('revision window of 14 days');
	});

	it('is sent once: a 502 after the service acted is reported as possibly applied, not repeated', async () => {
		const order = completedOrder();
		sandbox().faults.add({ method: 'POST', path: `/integration/revision/${order.id}`, kind: 'status', status: 502, when: 'after' });

		const error = failure(await run(sandbox(), create(order.id)));

		expect(sandbox().requests.count({ method: 'POST', path: `/integration/revision/${order.id}` })).toBe(1);
		expect(error.description).toContain('may have been applied; check before retrying');
		expect([...sandbox().state.revisions.values()].filter((revision) => revision.orderId === order.id)).toHaveLength(1);
	});

	it('403 with a read-only key, with a hint; 404 for an unknown order', async () => {
		const denied = failure(await run(sandbox(), create(sandbox().fixtures.orders.readOnlyForMember), { key: 'member' }));
		const missing = failure(await run(sandbox(), create(MISSING)));

		expect(denied.httpCode).toBe('403');
		expect(denied.description).toContain('creating or deleting revisions needs write access');
		expect(missing.message).toBe('The Ollang API answered 404 Not Found: Order not found');
	});
});

describe('Revision > Get Many', () => {
	it("lists the order's revision requests, all or up to a limit", async () => {
		const order = completedOrder();
		for (const time of ['00:00:01', '00:00:02', '00:00:03']) expect((await run(sandbox(), create(order.id, { time }))).error).toBeUndefined();

		const all = await run(sandbox(), getMany(order.id));
		const limited = await run(sandbox(), getMany(order.id, { returnAll: false, limit: 2 }));

		expect(all.json.map((revision) => revision.time)).toEqual(['00:00:01', '00:00:02', '00:00:03']);
		expect(all.json.every((revision) => revision.orderId === order.id)).toBe(true);
		expect(limited.json.map((revision) => revision.time)).toEqual(['00:00:01', '00:00:02']);
	});

	it('an order without revisions gives no items; a read-only key may list', async () => {
		const none = await run(sandbox(), getMany(completedOrder().id));
		const readOnly = await run(sandbox(), getMany(sandbox().fixtures.orders.readOnlyForMember), { key: 'member' });

		expect(none.error).toBeUndefined();
		expect(none.json).toEqual([]);
		expect(readOnly.error).toBeUndefined();
	});

	it('retries a passing 503 (a read)', async () => {
		const order = completedOrder();
		sandbox().faults.add({ path: `/integration/revision/${order.id}`, method: 'GET', kind: 'status', status: 503, retryAfterSeconds: 0, times: 1 });

		const result = await run(sandbox(), getMany(order.id));

		expect(result.error).toBeUndefined();
		expect(sandbox().requests.count({ method: 'GET', path: `/integration/revision/${order.id}` })).toBe(2);
	});

	it('403 for an order the key cannot see', async () => {
		const error = failure(await run(sandbox(), getMany(sandbox().fixtures.orders.hiddenFromMember), { key: 'member' }));

		expect(error.httpCode).toBe('403');
	});
});

describe('Revision > Delete', () => {
	it("deletes a revision request; its answer lost, n8n's Retry (404, and the order no longer lists it) reads as already applied; deleting it again in a new execution is the 404", async () => {
		const order = completedOrder();
		const revisionId = (await run(sandbox(), create(order.id))).json[0].id as string;

		const result = await run(sandbox(), remove(order.id, revisionId));
		const again = await run(sandbox(), remove(order.id, revisionId));
		const second = (await run(sandbox(), create(order.id))).json[0].id as string;
		sandbox().faults.add({ method: 'DELETE', kind: 'drop', when: 'after', times: 1 });
		const lost = await run(sandbox(), remove(order.id, second), { staticData: {} });
		const retried = await run(sandbox(), remove(order.id, second), { retryOf: lost, staticData: {} });

		expect(result.json).toEqual([{ success: true, orderId: order.id, revisionId, deleted: true }]);
		expect(sandbox().state.revisions.has(revisionId)).toBe(false);
		expect(failure(again).httpCode).toBe('404');
		expect(sandbox().state.revisions.has(second)).toBe(false);
		expect(retried.json).toEqual([{ success: true, orderId: order.id, revisionId: second, deleted: true, alreadyApplied: true, ...sentInThisProcess() }]);
	});

	it('a 404 for an unknown order stays an error with the hint', async () => {
		const error = failure(await run(sandbox(), remove('aaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbb')));

		expect(error.httpCode).toBe('404');
		expect(error.description).toContain('already deleted');
	});

	it("400 when the revision belongs to another order, and the revision stays", async () => {
		const [mine, other] = [completedOrder(), completedOrder()];
		const revisionId = (await run(sandbox(), create(other.id))).json[0].id as string;

		const error = failure(await run(sandbox(), remove(mine.id, revisionId)));

		expect(error.httpCode).toBe('400');
		expect(error.message).toContain(`does not belong to order ${mine.id}`);
		expect(error.description).toContain('check that the Order and the Revision ID go together');
		expect(sandbox().state.revisions.has(revisionId)).toBe(true);
	});

	it('refuses an empty or path-breaking revision ID before anything is sent', async () => {
		const order = completedOrder();

		const empty = await run(sandbox(), remove(order.id, '={{ $json.revisionId }}'), { items: [{ json: { revisionId: ' ' } }] });
		expect(failure(empty).message).toMatch(/^Invalid Revision \(item 0\): the ID /);
		expect(failure(await run(sandbox(), remove(order.id, 'a/b'))).message).toMatch(/^Invalid Revision \(item 0\): the ID /);
		expect(sandbox().requests.count()).toBe(0);
	});
});
