// n8n as a server: `n8n start` (main), `n8n worker` and `n8n webhook` (queue mode), each in its own process group, ready
// when it says so.
import { IS_N8N_1, ensureRuntime, requireFromN8n } from './install.mjs';
import { LOCAL_OWNER, n8nEnv, n8nWorkingDir } from './commands.mjs';
import { forEachLine, formatElapsed, freePort, spawnGroup, stopGroup } from './process.mjs';

function bcryptHash(runtime, password) {
	return requireFromN8n(runtime, 'bcryptjs').hashSync(password, 10);
}

/**
 * Starts `n8n start` on `port` in its own process group and resolves once the editor answers. The owner account
 * (`owner`, default LOCAL_OWNER; `null` for none) is set up through n8n's N8N_INSTANCE_OWNER_* settings, so the
 * editor opens on its sign-in page rather than the owner-setup screen. `onLine(line)` receives n8n's output.
 * Returns `{ url, child, owner, output(), stop() }`; `stop()` ends n8n and its task runners.
 */
export async function startN8n(userFolder, { port = 5678, owner = LOCAL_OWNER, onLine, env: extraEnv, timeoutMs = 180_000 } = {}) {
	const runtime = await ensureRuntime();
	const ownerEnv = owner && !IS_N8N_1
		? {
				N8N_INSTANCE_OWNER_MANAGED_BY_ENV: 'true',
				N8N_INSTANCE_OWNER_EMAIL: owner.email,
				N8N_INSTANCE_OWNER_FIRST_NAME: owner.firstName ?? 'Local',
				N8N_INSTANCE_OWNER_LAST_NAME: owner.lastName ?? 'Owner',
				N8N_INSTANCE_OWNER_PASSWORD_HASH: bcryptHash(runtime, owner.password),
			}
		: {};
	const env = n8nEnv(runtime, userFolder, { N8N_PORT: String(port), N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...ownerEnv, ...extraEnv });
	const child = spawnGroup(runtime.nodeBin, [runtime.n8nBin, 'start'], { cwd: n8nWorkingDir(userFolder), env });
	let tail = '';
	forEachLine(child, (line) => {
		tail = `${tail}${line}\n`.slice(-8000);
		onLine?.(line);
	});
	const url = `http://localhost:${port}`;
	const instance = { url, child, owner, output: () => tail, stop: () => stopGroup(child) };
	const started = Date.now();
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
	for (;;) {
		const state = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve(undefined), 500))]);
		if (state) throw new Error(`n8n exited while starting (${state.signal ?? `exit code ${state.code}`}). Its last output:\n${tail}`);
		if (await isEditorReady(port)) {
			if (owner && IS_N8N_1) await setUpOwner(url, owner);
			return instance;
		}
		if (Date.now() - started > timeoutMs) {
			await instance.stop();
			throw new Error(`n8n did not answer on port ${port} within ${formatElapsed(timeoutMs)}. Its last output:\n${tail}`);
		}
	}
}

/**
 * Starts `n8n worker` (queue mode: it takes executions from Redis) in its own process group and resolves once it
 * says it is ready. Each worker gets its own task-runner broker port and health-check port. Returns
 * `{ child, output(), stop() }`.
 */
export async function startN8nWorker(userFolder, { concurrency = 10, onLine, env: extraEnv, timeoutMs = 180_000 } = {}) {
	const runtime = await ensureRuntime();
	const env = n8nEnv(runtime, userFolder, {
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		QUEUE_HEALTH_CHECK_PORT: String(await freePort()),
		N8N_PORT: String(await freePort()),
		...extraEnv,
	});
	const child = spawnGroup(runtime.nodeBin, [runtime.n8nBin, 'worker', `--concurrency=${concurrency}`], { cwd: n8nWorkingDir(userFolder), env });
	let tail = '';
	let ready = false;
	forEachLine(child, (line) => {
		tail = `${tail}${line}\n`.slice(-8000);
		if (line.includes('n8n worker is now ready')) ready = true;
		onLine?.(line);
	});
	const worker = { child, output: () => tail, stop: () => stopGroup(child) };
	const started = Date.now();
	while (!ready) {
		if (child.exitCode !== null || child.signalCode !== null) throw new Error(`n8n worker exited while starting. Its last output:\n${tail}`);
		if (Date.now() - started > timeoutMs) {
			await worker.stop();
			throw new Error(`n8n worker was not ready within ${formatElapsed(timeoutMs)}. Its last output:\n${tail}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	return worker;
}

/**
 * Starts `n8n webhook` (queue mode: it serves production webhooks, /webhook/ and /webhook-waiting/ among them, and puts
 * their executions on the queue for the workers) on `port` in its own process group, and resolves once its readiness
 * probe answers. It reads the active webhooks from the database the main process registers them in. Returns
 * `{ url, child, output(), stop() }`.
 */
export async function startN8nWebhook(userFolder, { port, onLine, env: extraEnv, timeoutMs = 180_000 } = {}) {
	const runtime = await ensureRuntime();
	const listenPort = port ?? (await freePort());
	const env = n8nEnv(runtime, userFolder, { N8N_PORT: String(listenPort), N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...extraEnv });
	const child = spawnGroup(runtime.nodeBin, [runtime.n8nBin, 'webhook'], { cwd: n8nWorkingDir(userFolder), env });
	let tail = '';
	forEachLine(child, (line) => {
		tail = `${tail}${line}\n`.slice(-8000);
		onLine?.(line);
	});
	const webhook = { url: `http://127.0.0.1:${listenPort}`, child, output: () => tail, stop: () => stopGroup(child) };
	const started = Date.now();
	while (!(await isReady(listenPort))) {
		if (child.exitCode !== null || child.signalCode !== null) throw new Error(`n8n webhook exited while starting. Its last output:\n${tail}`);
		if (Date.now() - started > timeoutMs) {
			await webhook.stop();
			throw new Error(`n8n webhook did not answer on port ${listenPort} within ${formatElapsed(timeoutMs)}. Its last output:\n${tail}`);
		}
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
	return webhook;
}

/** n8n's readiness probe: connected to the database, migrated, and serving. */
async function isReady(port) {
	try {
		return (await fetch(`http://127.0.0.1:${port}/healthz/readiness`, { signal: AbortSignal.timeout(2000) })).ok;
	} catch {
		return false;
	}
}

/** Ready means the database is migrated (readiness probe) and the editor's page is served. */
async function isEditorReady(port) {
	if (!(await isReady(port))) return false;
	try {
		const editor = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) });
		return editor.ok;
	} catch {
		return false;
	}
}


/** n8n 1.x: the owner account is created through the setup form's request, once (a later start finds it set up). */
async function setUpOwner(baseUrl, owner) {
	const response = await fetch(new URL('/rest/owner/setup', baseUrl), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ email: owner.email, firstName: owner.firstName ?? 'Local', lastName: owner.lastName ?? 'Owner', password: owner.password }),
	});
	if (!response.ok && response.status !== 400) throw new Error(`setting up the owner of ${baseUrl} failed: HTTP ${response.status} ${await response.text()}`);
}
