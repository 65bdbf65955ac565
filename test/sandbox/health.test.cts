import { call, useSandbox } from './helpers.cts';

const sandbox = useSandbox();

describe('GET /health', () => {
	it('answers { time: the service clock in ms, status: OK } without a key', async () => {
		const response = await call(sandbox(), 'GET', '/health', { key: null });

		expect(response.status).toBe(200);
		expect(response.body).toEqual({ time: sandbox().clock.now().getTime(), status: 'OK' });
		expect(response.headers.get('content-type')).toContain('application/json');
	});

	it('follows the simulated clock, and ignores any key (even a wrong one)', async () => {
		const before = (await call(sandbox(), 'GET', '/health')).body.time;
		sandbox().clock.advance(90);

		const after = await call(sandbox(), 'GET', '/health', { key: 'not-a-key-000000' });

		expect(after.status).toBe(200);
		expect(after.body.time - before).toBe(90 * 60_000);
	});

	it('is served only at /health (no /integration/health) and only for GET', async () => {
		expect((await call(sandbox(), 'GET', '/integration/health')).status).toBe(404);
		const post = await call(sandbox(), 'POST', '/health', { key: null });
		expect(post.status).toBe(404);
		expect(post.body.message).toBe('Cannot POST /health');
	});

	it('meets injected faults like any route (a gateway in front of the service)', async () => {
		sandbox().faults.add({ path: '/health', kind: 'status', status: 503, times: 1 });

		expect((await call(sandbox(), 'GET', '/health', { key: null })).status).toBe(503);
		expect((await call(sandbox(), 'GET', '/health', { key: null })).status).toBe(200);
	});
});
