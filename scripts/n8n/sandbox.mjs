// The API sandbox as a separate process (`tsx sandbox/cli.cts`), as n8n reaches it: over HTTP on loopback.
// Used by `npm start` and the end-to-end tests. Plain Node builtins.
import path from 'node:path';
import { forEachLine, formatElapsed, spawnGroup, stopGroup } from './process.mjs';
import { REPO_ROOT } from './runtime.mjs';

const READY_TIMEOUT_MS = 60_000;

/**
 * Starts the sandbox with the CLI flags in `args` (sandbox/README.md; loopback callbacks allowed) in its own process group, and resolves with
 * `{ child, info, stop() }` once it prints its `SANDBOX_READY {json}` line: `info` is `{ baseUrl, keys, filesOrigin }`.
 * `onLine(line)` receives its other output. `script`: another launcher printing the same line (the bench's).
 */
export async function startSandboxProcess(args = [], { onLine, script = 'sandbox/cli.cts' } = {}) {
	const tsx = path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx');
	// A local n8n listens on loopback: its webhooks receive the sandbox's callbacks only with this flag (the bench's
	// launcher takes its own flags).
	const flags = script === 'sandbox/cli.cts' ? ['--allow-loopback-callbacks', ...args] : args;
	const child = spawnGroup(tsx, [script, ...flags], { cwd: REPO_ROOT });
	let tail = '';
	const info = await new Promise((resolve, reject) => {
		const timer = setTimeout(() => {
			void stopGroup(child);
			reject(new Error(`the sandbox printed no SANDBOX_READY line within ${formatElapsed(READY_TIMEOUT_MS)}:\n${tail}`));
		}, READY_TIMEOUT_MS);
		forEachLine(child, (line) => {
			tail = `${tail}${line}\n`.slice(-8000);
			const match = /^SANDBOX_READY (\{.*\})\s*$/.exec(line);
			if (match) {
				clearTimeout(timer);
				resolve(JSON.parse(match[1]));
			} else {
				onLine?.(line);
			}
		});
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			reject(new Error(`the sandbox exited (${signal ?? `exit code ${code}`}) before it was ready:\n${tail}`));
		});
	});
	return { child, info, stop: () => stopGroup(child) };
}

/**
 * The n8n credentials (id and name) for the sandbox's three keys, as `npm start` and the tests import them; the
 * example workflows refer to the owner one.
 */
export const SANDBOX_CREDENTIALS = Object.freeze(
	Object.fromEntries(
		Object.entries({ owner: 'OllangSandboxOwn', billing: 'OllangSandboxBil', member: 'OllangSandboxMem' }).map(([role, id]) => [
			role,
			Object.freeze({ id, name: `Ollang sandbox (${role} key)` }),
		]),
	),
);

/** The credentials to import (`importCredentials`) for a running sandbox (`info` from its SANDBOX_READY line). */
export function sandboxCredentials(info) {
	return Object.entries(SANDBOX_CREDENTIALS).map(([role, credential]) => ({
		...credential,
		type: 'ollangApi',
		data: { apiKey: info.keys[role], baseUrl: info.baseUrl },
	}));
}
