import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { startSandbox } from '../../sandbox/index.cts';
import { descendants, stillRunning } from '../harness/processTree.cts';

const ROOT = join(__dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

function runCli(args: string[]): ChildProcessWithoutNullStreams {
	return spawn(TSX, ['sandbox/cli.cts', ...args], { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
}

/** Resolves with everything printed up to and including the SANDBOX_READY line. */
function untilReady(child: ChildProcessWithoutNullStreams): Promise<string> {
	return new Promise((resolve, reject) => {
		let output = '';
		let errors = '';
		child.stdout.on('data', (chunk: Buffer) => {
			output += chunk.toString('utf8');
			if (/^SANDBOX_READY .*$/m.test(output)) resolve(output);
		});
		child.stderr.on('data', (chunk: Buffer) => {
			errors += chunk.toString('utf8');
		});
		child.once('exit', (code) => reject(new Error(`sandbox exited (${code}) before it was ready:\n${output}\n${errors}`)));
	});
}

describe('npm run sandbox (tsx sandbox/cli.cts)', () => {
	it('prints the base URL and keys, and SANDBOX_READY {json}; serves the API; stops on SIGTERM', async () => {
		const child = runCli(['--port', '0', '--seed', '5', '--start-at', '2026-01-01T00:00:00.000Z', '--growth', 'consumption=3,batches=1']);
		try {
			const output = await untilReady(child);
			const ready = JSON.parse(/^SANDBOX_READY (.*)$/m.exec(output)![1]);
			expect(ready).toEqual({ baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), keys: { owner: expect.any(String), billing: expect.any(String), member: expect.any(String) }, filesOrigin: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
			expect(output).toContain(`listening on ${ready.baseUrl}`);
			for (const key of Object.values(ready.keys) as string[]) expect(output).toContain(key);

			// Same seed, same keys as an in-process sandbox.
			const inProcess = await startSandbox({ seed: 5, quiet: true });
			expect(ready.keys).toEqual(inProcess.keys);
			await inProcess.close();

			const credits = await fetch(`${ready.baseUrl}/integration/credits`, { headers: { 'x-api-key': ready.keys.billing } });
			expect(credits.status).toBe(200);
			const info = (await (await fetch(`${ready.baseUrl}/__sandbox/info`)).json()) as { clock: { now: string }; seed: number; listingGrowth: unknown };
			expect(info.clock.now).toBe('2026-01-01T00:00:00.000Z');
			expect(info.seed).toBe(5);
			expect(info.listingGrowth).toEqual({ consumption: 3, orders: 0, clockStepMs: 1000, batches: 1 });
			// --growth: one page read, three new lines at the head of the listing.
			const page = async () =>
				(await (await fetch(`${ready.baseUrl}/integration/consumption?pageOptions[take]=1`, { headers: { 'x-api-key': ready.keys.billing } })).json()) as { meta: { itemCount: number } };
			const first = await page();
			expect((await page()).meta.itemCount).toBe(first.meta.itemCount + 3);
			expect((await page()).meta.itemCount).toBe(first.meta.itemCount + 3);
		} finally {
			child.kill('SIGTERM');
			const [code] = await once(child, 'exit');
			expect(code).toBe(0);
		}
	});

	it.each([
		[['--volume', 'huge'], '--volume must be small, demo or large, got "huge"'],
		[['--growth', 'rows=3'], '--growth takes consumption=N,orders=N,clockStepMs=N,batches=N (whole numbers >= 0), got "rows=3"'],
	])('refuses a bad flag with the usage and exit code 2: %j', async (args, message) => {
		const child = runCli(args);
		let errors = '';
		child.stderr.on('data', (chunk: Buffer) => {
			errors += chunk.toString('utf8');
		});
		const [code] = await once(child, 'exit');
		expect(code).toBe(2);
		expect(errors).toContain(message);
		expect(errors).toContain('usage: npm run sandbox');
	});
});

// A service manager or a CI job signals the npm process itself, not a terminal's process group.
describe.each(['SIGTERM', 'SIGINT'] as const)('npm run sandbox stopped by %s sent to the npm process', (signal) => {
	it('stops every process it started and frees the port', async () => {
		const npm = spawn('npm', ['run', '--silent', 'sandbox', '--', '--port', '0'], { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
		const output = await untilReady(npm);
		const { baseUrl } = JSON.parse(/^SANDBOX_READY (.*)$/m.exec(output)![1]) as { baseUrl: string };
		const started = descendants(npm.pid!);
		expect(started.length).toBeGreaterThan(0);
		expect((await fetch(`${baseUrl}/__sandbox/info`)).status).toBe(200);

		npm.kill(signal);
		await once(npm, 'exit');
		expect(await stillRunning(started)).toEqual([]);
		await expect(fetch(`${baseUrl}/__sandbox/info`)).rejects.toThrow();
	}, 60_000);
});
