// `npm start` as a user (or a service manager) runs it: the npm process started on free ports with a throwaway user
// folder, its banner read, n8n and the sandbox answering (in queue mode also the workers, the webhook processes behind
// the balancer on the n8n port, PostgreSQL and Redis); then
// SIGTERM or SIGINT sent to the npm process itself (not to a terminal's process group) must stop every process it
// started and free the ports. In queue mode, before the signal, the create-and-wait example runs as users run it
// there: started at the balancer, it waits on a worker, its orders' callbacks reach the webhook processes through
// the balancer (WEBHOOK_URL), and it resumes on a worker.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

import { forEachLine, freePort } from '../../scripts/n8n/process.mjs';
import { descendants, stillRunning } from '../harness/processTree.cts';
import { REPO_ROOT, signIn } from '../../scripts/n8n/runtime.mjs';
import { QUEUE_WORKERS, WEBHOOK_PROCESS_SETTINGS } from '../../scripts/n8n/queue-mode.mjs';
import { EXAMPLES_DIR, SandboxClient } from './harness.mts';
import { createAndWaitInQueueMode } from './createAndWait.mts';

const BANNER_END = /Ctrl-C stops .* and the sandbox\./;

/** Resolves with stdout up to the banner's last line; rejects if npm start exits first or takes too long. */
function untilBanner(child: ChildProcessWithoutNullStreams, timeoutMs: number): Promise<string> {
	return new Promise((resolve, reject) => {
		let output = '';
		let errors = '';
		const timer = setTimeout(() => reject(new Error(`no banner after ${timeoutMs} ms:\n${output}\n${errors.slice(-4000)}`)), timeoutMs);
		// Strings once linesByProcess set the stream's encoding (forEachLine).
		child.stdout.on('data', (chunk: Buffer | string) => {
			output += String(chunk);
			if (BANNER_END.test(output)) {
				clearTimeout(timer);
				resolve(output);
			}
		});
		child.stderr.on('data', (chunk: Buffer | string) => {
			errors += String(chunk);
		});
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			reject(new Error(`npm start exited (${signal ?? code}) before its banner:\n${output}\n${errors.slice(-4000)}`));
		});
	});
}

async function answers(url: string): Promise<number | undefined> {
	try {
		const response = await fetch(url);
		await response.arrayBuffer();
		return response.status;
	} catch {
		return undefined;
	}
}

const exampleNames = readdirSync(EXAMPLES_DIR)
	.filter((name) => name.endsWith('.json'))
	.map((name) => String((JSON.parse(readFileSync(path.join(EXAMPLES_DIR, name), 'utf8')) as { name: string }).name));

/**
 * npm start's stderr, one array of lines per process it prefixes (`n8n     | `, `worker1 | `, `webhook2 | `, ...),
 * filled as the output comes.
 */
function linesByProcess(child: ChildProcessWithoutNullStreams): Map<string, string[]> {
	const byProcess = new Map<string, string[]>();
	forEachLine(child, (line, stream) => {
		const match = stream === 'stderr' ? /^(\S+) *\| (.*)$/.exec(line) : null;
		if (match === null) return;
		if (!byProcess.has(match[1])) byProcess.set(match[1], []);
		byProcess.get(match[1])!.push(match[2]);
	});
	return byProcess;
}

/** A process's command line, or its environment (`cmdline`, `environ`), from /proc ('' once it has ended). */
function procEntries(pid: number, file: 'cmdline' | 'environ'): string[] {
	try {
		return readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0');
	} catch {
		return [];
	}
}
const commandLine = (pid: number): string => procEntries(pid, 'cmdline').join(' ');

interface StartCase {
	signal: 'SIGTERM' | 'SIGINT';
	queue: boolean;
}

const CASES: StartCase[] = [
	{ signal: 'SIGTERM', queue: false },
	{ signal: 'SIGINT', queue: false },
	{ signal: 'SIGTERM', queue: true },
];

describe('npm start: ready with its banner, and stopped by a signal sent to the npm process', { timeout: 15 * 60_000 }, () => {
	// One user folder per mode: the second start in the default mode finds the package and the demo content installed.
	const root = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-ollang-e2e-start-'));
	after(() => rmSync(root, { recursive: true, force: true }));

	for (const { signal, queue } of CASES) {
		const what = queue ? 'n8n, its two workers, two webhook processes and the balancer, PostgreSQL, Redis and the sandbox' : 'n8n and the sandbox';
		it(`${queue ? '--queue, ' : ''}${signal}: stops ${what}, every process it started, and frees the ports`, async () => {
			const [n8nPort, sandboxPort] = [await freePort(), await freePort()];
			const userFolder = path.join(root, queue ? 'queue' : 'default');
			const args = ['start', '--', '--n8n-port', String(n8nPort), '--sandbox-port', String(sandboxPort), '--user-folder', userFolder, ...(queue ? ['--queue'] : [])];
			const npm = spawn('npm', args, { cwd: REPO_ROOT, env: { ...process.env, FORCE_COLOR: '0' } });
			const output = linesByProcess(npm);
			let started: number[] = [];
			try {
				const banner = await untilBanner(npm, 8 * 60_000);
				started = descendants(npm.pid!);

				assert.match(banner, new RegExp(`Editor +http://localhost:${n8nPort}`));
				assert.match(banner, new RegExp(`Sandbox +http://127\\.0\\.0\\.1:${sandboxPort}`));
				for (const name of exampleNames) assert.ok(banner.includes(name), `the banner names the example "${name}"`);
				assert.match(banner, /"Ollang: assistant", give its chat model a credential you supply/);
				assert.match(banner, new RegExp(`connect an MCP client to http://localhost:${n8nPort}/mcp/ollang`));
				assert.equal(await answers(`http://localhost:${n8nPort}/healthz`), 200, 'n8n answers');
				assert.equal(await answers(`http://127.0.0.1:${sandboxPort}/health`), 200, 'the sandbox answers');
				const commands = started.map(commandLine);
				const running = (pattern: RegExp) => commands.filter((command) => pattern.test(command)).length;
				assert.ok(running(/\bn8n start\b/) >= 1, 'n8n start runs under npm start');
				assert.ok(running(/sandbox\/cli\.cts/) >= 1, 'the sandbox runs under npm start');
				if (queue) {
					assert.match(banner, /Queue +PostgreSQL 127\.0\.0\.1:\d+ \(pid \d+\), Redis 127\.0\.0\.1:\d+ \(pid \d+\), 2 workers/);
					assert.equal(running(/\bn8n worker\b/), 2, 'two n8n workers');
					assert.match(banner, /2 webhook processes \(pids \d+, \d+\) taking \/webhook\/ from the balancer/);
					assert.equal(running(/\bn8n webhook\b/), 2, 'two n8n webhook processes');
					for (const pid of started.filter((each) => /\bn8n webhook\b/.test(commandLine(each)))) {
						const environment = procEntries(pid, 'environ');
						for (const [key, value] of Object.entries(WEBHOOK_PROCESS_SETTINGS)) assert.ok(environment.includes(`${key}=${value}`), `webhook process ${pid} runs with ${key}=${value}`);
					}
					// Only a webhook process knows production webhooks: the main behind the balancer serves none.
					const unknownWebhook = await fetch(`http://localhost:${n8nPort}/webhook/nothing-registered-here`, { method: 'POST' });
					assert.match(await unknownWebhook.text(), /not registered/, 'the n8n port sends /webhook/ to a webhook process');
					assert.ok(running(/\bpostgres\b/) >= 1, 'PostgreSQL runs under npm start');
					assert.ok(running(/redis-server/) >= 1, 'Redis runs under npm start');

					const editorUrl = `http://localhost:${n8nPort}`;
					const lines = (name: string) => output.get(name) ?? [];
					const { first, execution, created, codes, starts } = await createAndWaitInQueueMode(
						{
							restUrl: editorUrl,
							cookie: await signIn(editorUrl),
							sandbox: await SandboxClient.attach(`http://127.0.0.1:${sandboxPort}`),
							startUrl: editorUrl,
							webhookUrl: `${editorUrl}/`,
							workerLogs: () => Array.from({ length: QUEUE_WORKERS }, (_, index) => lines(`worker${index + 1}`)),
							mainLog: () => lines('n8n'),
						},
						'ollangCrWaitStrt',
						'npm start --queue',
					);
					assert.ok(codes.includes(200), `the callbacks' answers through the balancer: ${codes.join(', ')}`);
					console.log(`npm start --queue: create and wait, execution ${execution.id} (first read: ${first.status}) started on workers ${starts.join(' / ')} times, ${created.length} orders confirmed, callbacks answered ${codes.join('/')} by the webhook processes`);
				}

				npm.kill(signal);
				const [code] = (await once(npm, 'exit')) as [number | null, NodeJS.Signals | null];
				assert.equal(code, 0, 'npm start exits 0 after a clean stop');
				assert.deepEqual(await stillRunning(started, 30_000), [], 'no process npm start started is left running');
				assert.equal(await answers(`http://localhost:${n8nPort}/healthz`), undefined, 'n8n\'s port is free');
				assert.equal(await answers(`http://127.0.0.1:${sandboxPort}/health`), undefined, 'the sandbox\'s port is free');
			} finally {
				// Whatever failed above: leave nothing running.
				for (const pid of [...started, npm.pid!]) {
					try {
						process.kill(pid, 'SIGKILL');
					} catch {
						// already gone
					}
				}
			}
		});
	}
});
