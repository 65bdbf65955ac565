// Order workflows through the real engine: ids flow from one node to the next by expression, and the
// paired-item lineage lets a later node reach back past the node before it.
import { nodeOutput } from '../harness/engine.cts';
import { byId, jsonOf, ollangNode, pairedIndexes, runChain, useSandbox } from './helpers.cts';

const sandbox = useSandbox();

const listOrders = ollangNode('List Orders', {
	resource: 'order',
	operation: 'getMany',
	returnAll: false,
	limit: 5,
	options: { orderBy: 'createdAt', orderDirection: 'asc' },
});
// Simplify off: the full answer, what only Get returns beside the list's summary.
const getOrder = ollangNode('Get Order', { resource: 'order', operation: 'get', orderId: byId('={{ $json.id }}'), simplify: false });

describe('Order Get Many -> Order Get by {{ $json.id }}', () => {
	it('gets each listed order in full, in list order, each paired with its list item', async () => {
		const run = await runChain(sandbox(), [{ json: {} }], [listOrders, getOrder]);

		const listed = jsonOf(nodeOutput(run, 'List Orders'));
		const fetched = nodeOutput(run, 'Get Order');
		const oldestFive = [...sandbox().state.orders.values()]
			.sort((a, b) => a.createdAt.localeCompare(b.createdAt))
			.slice(0, 5);

		expect(run.status).toBe('success');
		expect(listed.map((order) => order.id)).toEqual(oldestFive.map((order) => order.id));
		// The list gives summaries; Get adds what only it returns, as the sandbox holds it.
		expect(listed[0]).not.toHaveProperty('deliveryEvents');
		expect(jsonOf(fetched)).toEqual(
			oldestFive.map((order) =>
				expect.objectContaining({
					id: order.id,
					name: order.name,
					status: order.status,
					level: order.level,
					deliveryEvents: order.deliveryEvents,
					finance: expect.objectContaining({ paymentAmount: expect.any(Number) }),
				}),
			),
		);
		expect(pairedIndexes(fetched)).toEqual([0, 1, 2, 3, 4]);
		expect(sandbox().requests.count({ method: 'GET', path: '/integration/orders' })).toBe(1);
		expect(sandbox().requests.count({ method: 'GET', path: '/integration/orders/:orderId' })).toBe(5);
	});

	it("a third node reaches the list's items through Get's pairing: $('List Orders').item", async () => {
		const reviewInfo = ollangNode('Review Info', {
			resource: 'order',
			operation: 'getReviewInfo',
			orderId: byId("={{ $('List Orders').item.json.id }}"),
		});

		const run = await runChain(sandbox(), [{ json: {} }], [listOrders, getOrder, reviewInfo]);

		const listedIds = jsonOf(nodeOutput(run, 'List Orders')).map((order) => order.id);
		const requested = sandbox()
			.requests.log.filter((request) => request.path.endsWith('/review/info'))
			.map((request) => request.path);

		expect(run.status).toBe('success');
		expect(nodeOutput(run, 'Review Info')).toHaveLength(5);
		expect(requested).toEqual(listedIds.map((id) => `/v1/api/client/orders/${String(id)}/review/info`));
	});

	it('runs the same in production mode as from the editor', async () => {
		const run = await runChain(sandbox(), [{ json: {} }], [listOrders, getOrder], { mode: 'trigger' });

		expect(run.status).toBe('success');
		expect(run.mode).toBe('trigger');
		expect(nodeOutput(run, 'Get Order')).toHaveLength(5);
	});
});
