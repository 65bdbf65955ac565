// n8n's SSRF protection refusing the API's address is not a passing failure: the polling trigger reports it at the
// first poll it hits, with n8n's own words, and keeps its place for when an administrator allows the host.
// In-process through n8n-core's real HTTP stack (OutboundHttp and its SSRF service), switched on for this file only.
import { dirname } from 'node:path';
import { TRANSIENT_FAILURES_BEFORE_ERROR } from '../../nodes/OllangTrigger/poll';
import { Container } from '../harness/runtime.cts';
import { EventLedger, baselineOf, expectedEvents, itemsOf, orderEventParameters, triggerRunner, useSandbox } from './helpers.cts';

/** The @n8n/config copy n8n-core's HTTP stack reads (through @n8n/backend-network), so its Container instance. */
const backendNetwork = dirname(require.resolve('@n8n/backend-network', { paths: [dirname(require.resolve('n8n-core'))] }));
const { SsrfProtectionConfig } = require(require.resolve('@n8n/config', { paths: [backendNetwork] })) as typeof import('@n8n/config');
const ssrfConfig = Container.get(SsrfProtectionConfig);

// n8n's message for a blocked address (@n8n/backend-network SsrfBlockedIpError); the sandbox is on 127.0.0.1,
// in n8n's default block list.
const N8N_MESSAGE = 'The request was blocked because it resolves to a restricted IP address';

const sandbox = useSandbox({ seed: 13 });

afterEach(() => {
	ssrfConfig.enabled = false;
});

async function failure(promise: Promise<unknown>): Promise<Error & { description?: string }> {
	return await promise.then(
		() => {
			throw new Error('the poll did not fail');
		},
		(thrown: Error & { description?: string }) => thrown,
	);
}

describe("n8n's SSRF protection blocking the API", () => {
	it('is reported at the first poll it blocks (not after three), with n8n\'s message; the place is kept and nothing is lost once allowed', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters());
		await runner.poll();
		const ledger = new EventLedger(sandbox());
		sandbox().simulate.createOrders(2, { level: 0, type: 'document' });
		sandbox().clock.advance(30);
		const stored = JSON.stringify(runner.staticData);
		const requests = sandbox().requests.count();

		ssrfConfig.enabled = true;
		expect(TRANSIENT_FAILURES_BEFORE_ERROR).toBeGreaterThan(1);
		const error = await failure(runner.poll());
		expect(error.message).toMatch(/SSRF protection blocked the request to http:\/\/127\.0\.0\.1:\d+/);
		expect(error.description).toContain(N8N_MESSAGE);
		expect(error.description).toContain('The target 127.0.0.1 is not allowed');
		expect(error.description).toContain('N8N_SSRF_ALLOWED_IP_RANGES');
		expect(error.description).toContain('keeps its place');
		expect(`${error.message} ${error.description}`).not.toContain(sandbox().keys.owner);
		// Nothing was sent, and the failure is not counted as a transient one: the stored state is as it was.
		expect(sandbox().requests.count()).toBe(requests);
		expect(JSON.stringify(runner.staticData)).toBe(stored);
		// Every poll while blocked says so, the same way.
		expect((await failure(runner.poll())).description).toContain(N8N_MESSAGE);

		ssrfConfig.enabled = false;
		ledger.record(itemsOf(await runner.poll()));
		ledger.expectExactly(expectedEvents(sandbox(), baselineOf(runner)));
		expect(ledger.emitted.size).toBeGreaterThan(0);
	});

	it('watching given orders (detail reads only): the block is reported at once too, not taken for invalid order IDs', async () => {
		const [order] = sandbox().simulate.createOrders(1, { level: 0, type: 'document' });
		const runner = triggerRunner(sandbox(), orderEventParameters({ watch: 'orderIds', orderIds: [order.id] }));
		await runner.poll();
		sandbox().clock.advance(30);
		const stored = JSON.stringify(runner.staticData);
		ssrfConfig.enabled = true;
		const error = await failure(runner.poll());
		expect(error.message).not.toContain('Invalid Order IDs');
		expect(error.description).toContain(N8N_MESSAGE);
		expect(JSON.stringify(runner.staticData)).toBe(stored);
		ssrfConfig.enabled = false;
		expect(itemsOf(await runner.poll()).map((item) => [item.orderId, item.type])).toEqual([
			[order.id, 'ai_delivered'],
			[order.id, 'order_delivered'],
		]);
	});

	it('a transient failure is still reported only after three polls (the two kinds stay apart)', async () => {
		const runner = triggerRunner(sandbox(), orderEventParameters());
		await runner.poll();
		sandbox().faults.add({ kind: 'status', status: 503, retryAfterSeconds: 0, path: '/integration/orders' });
		try {
			for (let poll = 1; poll < TRANSIENT_FAILURES_BEFORE_ERROR; poll++) expect(await runner.poll()).toBeNull();
			expect((await failure(runner.poll())).message).toContain('503');
		} finally {
			sandbox().faults.clear();
		}
	});

	it('blocks the first activation too, with the same message', async () => {
		ssrfConfig.enabled = true;
		const runner = triggerRunner(sandbox(), orderEventParameters());
		const error = await failure(runner.poll());
		expect(error.description).toContain(N8N_MESSAGE);
		expect(runner.staticData.since).toBeUndefined();
	});
});
