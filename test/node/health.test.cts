import { failure, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const check = { resource: 'health', operation: 'check' };

describe('Health > Check', () => {
	it('answers { time, status: OK } from GET /health', async () => {
		const result = await run(sandbox(), check);

		expect(result.json).toEqual([{ time: sandbox().clock.now().getTime(), status: 'OK' }]);
		expect(sandbox().requests.log.map((record) => `${record.method} ${record.path} ${record.status}`)).toEqual(['GET /health 200']);
	});

	it('works with any key: the endpoint needs none', async () => {
		expect((await run(sandbox(), check, { key: 'not-a-real-key-123456' })).json[0].status).toBe('OK');
	});

	it('retries a passing 503 and reports a lasting one by its status', async () => {
		sandbox().faults.add({ path: '/health', kind: 'status', status: 503, retryAfterSeconds: 0, times: 1 });
		expect((await run(sandbox(), check)).json[0].status).toBe('OK');
		expect(sandbox().requests.count({ path: '/health' })).toBe(2);

		sandbox().faults.add({ path: '/health', kind: 'status', status: 503, retryAfterSeconds: 0 });
		const error = failure(await run(sandbox(), check));
		expect(error.httpCode).toBe('503');
		expect(error.message).toContain('(gave up after 4 attempts)');
	});
});
