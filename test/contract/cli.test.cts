// `npm run contract` as a user runs it (node --require tsx/cjs contract/cli.cts): the exit codes, the terminal
// report, the --json file, and the key (from the environment or --api-key) in none of them. Also the sandbox's
// --drift flag.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type DriftMode, type Sandbox } from '../../sandbox/index.cts';

const ROOT = join(__dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const folder = mkdtempSync(join(tmpdir(), 'ollang-contract-cli-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface Finished {
	code: number | null;
	stdout: string;
	stderr: string;
}

async function finish(command: string, args: string[], env: Record<string, string> = {}): Promise<Finished> {
	const { OLLANG_API_KEY: _key, OLLANG_BASE_URL: _url, ...inherited } = process.env;
	const child = spawn(command, args, { cwd: ROOT, env: { ...inherited, FORCE_COLOR: '0', ...env } });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
	const [code] = (await once(child, 'exit')) as [number | null];
	return { code, stdout, stderr };
}

/** `npm run contract` as package.json defines it ("node --require tsx/cjs contract/cli.cts"), with this Node. */
const SCRIPT = (require('../../package.json') as { scripts: Record<string, string> }).scripts.contract.split(' ');
const contract = (args: string[], env: Record<string, string> = {}) => {
	expect(SCRIPT[0]).toBe('node');
	return finish(process.execPath, [...SCRIPT.slice(1), ...args], env);
};

async function withSandbox<T>(drift: DriftMode[], use: (sandbox: Sandbox) => Promise<T>): Promise<T> {
	const sandbox = await startSandbox({ quiet: true, drift });
	try {
		return await use(sandbox);
	} finally {
		await sandbox.close();
	}
}

function expectNoKey(key: string, ...texts: string[]): void {
	for (const text of texts) expect(text.includes(key)).toBe(false);
}

describe('npm run contract', () => {
	it('against the sandbox: ok per operation, the summary, a JSON report; exit 0; key from OLLANG_API_KEY nowhere', async () => {
		await withSandbox([], async (sandbox) => {
			const jsonFile = join(folder, 'match.json');
			const run = await contract(['--base-url', sandbox.baseUrl, '--json', jsonFile], { OLLANG_API_KEY: sandbox.keys.owner });

			expect(run.stderr).toBe('');
			expect(run.code).toBe(0);
			expect(run.stdout).toContain('Read-only: runs only operations that read');
			expect(run.stdout).toMatch(/^ok {10}Health > Check$/m);
			expect(run.stdout).toMatch(/^ok {10}Order > Get$/m);
			expect(run.stdout).toMatch(/^skipped {5}Memory > Get Import Job\n {4}note: the API cannot list import jobs/m);
			expect(run.stdout).toMatch(/^Contract check of http:\/\/127\.0\.0\.1:\d+: \d+ ok, 0 differs, 0 unreachable, 4 skipped; 0 additions; every answer matches the contract \(exit 0\)\.$/m);
			const json = readFileSync(jsonFile, 'utf8');
			const report = JSON.parse(json) as { exitCode: number; readOnly: string; operations: Array<{ outcome: string }> };
			expect(report.exitCode).toBe(0);
			expect(report.readOnly).toMatch(/^Read-only/);
			expect(report.operations.filter((operation) => operation.outcome === 'ok').length).toBeGreaterThanOrEqual(20);
			expectNoKey(sandbox.keys.owner, run.stdout, run.stderr, json);
		});
	});

	it('a drifted service: each difference as path, expected and received; exit 1; key from --api-key nowhere', async () => {
		await withSandbox(['changed-type', 'renamed-field'], async (sandbox) => {
			const run = await contract(['--api-key', sandbox.keys.owner, '--base-url', sandbox.baseUrl]);

			expect(run.code).toBe(1);
			expect(run.stdout).toMatch(/^differs {5}Order > Get\n {4}finance\.paymentAmount: expected number, got string "[\d.]+"$/m);
			expect(run.stdout).toMatch(/^differs {5}Credit Wallet > Get\n {4}remainingCredits: expected number, got nothing \(missing\)\n {4}\+ creditsRemaining: not in the contract \(an addition, not a failure\)$/m);
			expect(run.stdout).toMatch(/: \d+ ok, 2 differs, 0 unreachable, 4 skipped; 1 additions; answers differ from the contract \(exit 1\)\.$/m);
			expectNoKey(sandbox.keys.owner, run.stdout, run.stderr);
		});
	});

	it('a refused key, or none: a clear line, no stack trace, exit 2', async () => {
		await withSandbox([], async (sandbox) => {
			const wrongKey = 'sbx_owner_000000000000000000000000';
			const [refused, none] = await Promise.all([contract(['--base-url', sandbox.baseUrl], { OLLANG_API_KEY: wrongKey }), contract(['--base-url', sandbox.baseUrl])]);

			expect(refused.code).toBe(2);
			expect(refused.stdout).toContain('The API refused the key (401): check the key; nothing else can be checked.');
			expect(refused.stdout).toMatch(/the service could not be checked \(exit 2\)\.$/m);
			expect(none.code).toBe(2);
			expect(none.stderr).toMatch(/^No API key: give --api-key KEY or set OLLANG_API_KEY\./);
			for (const run of [refused, none]) expect(`${run.stdout}${run.stderr}`).not.toMatch(/\n\s+at /);
			expectNoKey(wrongKey, refused.stdout, refused.stderr);
		});
	});
});

describe('npm run sandbox -- --drift', () => {
	it('serves the drifted answers and says which drift it plays', async () => {
		const child = spawn(TSX, ['sandbox/cli.cts', '--drift', 'changed-type'], { cwd: ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
		try {
			let output = '';
			await new Promise<void>((resolve, reject) => {
				child.stdout.on('data', (chunk: Buffer) => {
					output += chunk.toString('utf8');
					if (/^SANDBOX_READY .*$/m.test(output)) resolve();
				});
				child.once('exit', (code) => reject(new Error(`sandbox exited (${code}) before it was ready:\n${output}`)));
			});
			expect(output).toContain('drift: changed-type (GET /integration/orders/:orderId answers finance.paymentAmount as a string)');
			const { baseUrl, keys } = JSON.parse(/^SANDBOX_READY (.*)$/m.exec(output)![1]) as { baseUrl: string; keys: { owner: string } };
			const headers = { 'x-api-key': keys.owner };
			const list = (await (await fetch(`${baseUrl}/integration/orders`, { headers })).json()) as { data: Array<{ id: string }> };
			const order = (await (await fetch(`${baseUrl}/integration/orders/${list.data[0].id}`, { headers })).json()) as { finance: { paymentAmount: unknown } };
			expect(typeof order.finance.paymentAmount).toBe('string');
		} finally {
			if (child.exitCode === null && child.signalCode === null) {
				const exited = once(child, 'exit');
				child.kill('SIGTERM');
				await exited;
			}
		}
	});

	it('refuses an unknown mode with the list of modes and exit code 2', async () => {
		const run = await finish(TSX, ['sandbox/cli.cts', '--drift', 'renamed-field,bogus']);

		expect(run.code).toBe(2);
		expect(run.stderr).toContain('--drift must be one or more of renamed-field, changed-type, removed-endpoint, extra-field, no-rights, review-info-moved, html-error, truncated-json, empty-body, redirect, got "renamed-field,bogus"');
	});
});
