// Failures through the real engine: the credential's own key is what the API sees (a wrong or narrower key
// fails the execution in the API's words), and n8n's "On Error" settings get per-item error items they can route.
import { nodeOutput } from '../harness/engine.cts';
import { byId, jsonOf, ollangNode, pairedIndexes, runChain, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const MISSING = 'aaaaaaaaaaaaaaaaaaaaaaaa';

const listOrders = ollangNode('List Orders', { resource: 'order', operation: 'getMany', returnAll: false, limit: 3 });
const getOrder = (extra: Parameters<typeof ollangNode>[2] = {}) =>
	ollangNode('Get Order', { resource: 'order', operation: 'get', orderId: byId('={{ $json.orderId ?? $json.id }}') }, extra);

describe('credentials', () => {
	it('a wrong API key fails the execution at the first node, with the API answer, and stops there', async () => {
		const run = await runChain(sandbox(), [{ json: {} }], [listOrders, getOrder()], { apiKey: 'wrong-key-0000000' });

		const { error, lastNodeExecuted, runData } = run.data.resultData;
		expect(run.status).toBe('error');
		expect(lastNodeExecuted).toBe('List Orders');
		expect(error?.message).toContain('401');
		expect(error?.message).toContain('UNAUTHORIZED');
		expect(error?.message).toContain('Invalid or missing API key');
		expect(runData['Get Order']).toBeUndefined();
		expect(sandbox().requests.log.map((request) => request.status)).not.toContain(200);
	});

	it('the key of the credential is the one sent: the member key is refused an order the owner key reads', async () => {
		const orderId = sandbox().fixtures.orders.hiddenFromMember;
		const items = [{ json: { orderId } }];

		const asOwner = await runChain(sandbox(), items, [getOrder()]);
		const asMember = await runChain(sandbox(), items, [getOrder()], { apiKey: sandbox().keys.member });

		expect(asOwner.status).toBe('success');
		expect(jsonOf(nodeOutput(asOwner, 'Get Order'))).toEqual([expect.objectContaining({ id: orderId })]);
		expect(asMember.status).toBe('error');
		expect(asMember.data.resultData.error?.message).toContain('403 ACCESS_DENIED');
	});
});

describe('On Error settings', () => {
	const items = () => {
		const { completed, delivered } = sandbox().fixtures.orders.byStatus;
		return [{ json: { orderId: completed } }, { json: { orderId: MISSING } }, { json: { orderId: delivered } }];
	};

	it('Continue: the failing item becomes an error item in its place, paired with its input; the run succeeds', async () => {
		const input = items();

		const run = await runChain(sandbox(), input, [getOrder({ onError: 'continueRegularOutput' })]);

		const output = nodeOutput(run, 'Get Order');
		expect(run.status).toBe('success');
		expect(pairedIndexes(output)).toEqual([0, 1, 2]);
		expect(jsonOf(output)).toEqual([
			expect.objectContaining({ id: input[0].json.orderId }),
			expect.objectContaining({ error: expect.stringContaining('404 ORDER_NOT_FOUND') }),
			expect.objectContaining({ id: input[2].json.orderId }),
		]);
	});

	it('Continue (using error output): n8n routes the failing item to the error output, with its input fields', async () => {
		const input = items();

		const run = await runChain(sandbox(), input, [getOrder({ onError: 'continueErrorOutput' })]);

		const succeeded = nodeOutput(run, 'Get Order', 0);
		const failed = nodeOutput(run, 'Get Order', 1);
		expect(run.status).toBe('success');
		expect(jsonOf(succeeded).map((order) => order.id)).toEqual([input[0].json.orderId, input[2].json.orderId]);
		expect(jsonOf(failed)).toEqual([
			expect.objectContaining({ orderId: MISSING, error: expect.stringContaining('404 ORDER_NOT_FOUND') }),
		]);
		expect(pairedIndexes(failed)).toEqual([1]);
	});
});
