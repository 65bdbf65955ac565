import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IS_N8N_1, ensureRuntime } from './install.mjs';
import { freePort, runCommand } from './process.mjs';

// n8n's environment and its CLI commands (import, publish, execute). Every function takes the user folder (N8N_USER_FOLDER: n8n keeps `.n8n/` with its database,
// settings and community packages there), so tests can each use a fresh one and `npm start` a kept one.

// Local-only: it encrypts credentials in throwaway test and demo databases. A fixed key lets every n8n process
// (CLI imports, `n8n start`) read what the others wrote.
export const N8N_ENCRYPTION_KEY = 'n8n-nodes-ollang-local-only-not-a-secret';

/** The owner account `startN8n` creates through n8n's own env-managed owner setup, so nobody meets the setup screen. */
export const LOCAL_OWNER = Object.freeze({ email: 'demo@example.com', password: 'OllangDemo1', firstName: 'Ollang', lastName: 'Demo' });

/**
 * The only folder the Read/Write Files node may touch: `.n8n-files` in the user folder, where a stock n8n (whose
 * user folder is the home folder) has it as `~/.n8n-files`; so nothing reads or writes the real home folder.
 */
export function n8nFilesDir(userFolder) {
	return path.join(userFolder, '.n8n-files');
}

/**
 * Where n8n processes run: the user folder, as n8n's Docker image runs in its home, so that a relative path in a
 * workflow (`.n8n-files/<file>`) names the same file in both.
 */
export function n8nWorkingDir(userFolder) {
	mkdirSync(userFolder, { recursive: true });
	return userFolder;
}

/**
 * n8n's environment: the user folder and fixed key, file access kept to `n8nFilesDir`, and everything that would
 * reach out to the internet turned off (the machine has none: telemetry, version checks, templates, banners, the
 * verified-packages list, license renewal), listening on loopback only. The task-runner broker defaults to port
 * 5679, the sandbox's port, so callers pass a free one.
 */
export function n8nEnv(runtime, userFolder, extra = {}) {
	return {
		...runtime.env,
		N8N_USER_FOLDER: userFolder,
		N8N_RESTRICT_FILE_ACCESS_TO: n8nFilesDir(userFolder),
		N8N_ENCRYPTION_KEY,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		// Its refresh task fetches a server list from n8n's API at every start (n8n 1.x has no such module).
		...(IS_N8N_1 ? {} : { N8N_DISABLED_MODULES: 'mcp-registry' }),
		// n8n 1.x keeps binary data in memory (inside the items) unless told otherwise; 2.x stores files by default.
		...(IS_N8N_1 ? { N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' } : {}),
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		...extra,
	};
}

/**
 * Runs one n8n CLI command to completion; its output is returned, and shown only if it fails. Options (also taken
 * by the functions below that run a command): `env` adds to n8n's environment; `onOutput({ label, stdout, stderr })`
 * receives the command's output whether it succeeded or not (end-to-end tests keep it to scan for secrets).
 */
export async function runN8n(userFolder, args, { env: extraEnv, label = `n8n ${args.join(' ')}`, onOutput } = {}) {
	const runtime = await ensureRuntime();
	const env = n8nEnv(runtime, userFolder, { N8N_RUNNERS_BROKER_PORT: String(await freePort()), ...extraEnv });
	try {
		const result = await runCommand(runtime.nodeBin, [runtime.n8nBin, ...args], { cwd: n8nWorkingDir(userFolder), env, label });
		onOutput?.({ label, stdout: result.stdout, stderr: result.stderr });
		return result;
	} catch (error) {
		onOutput?.({ label, stdout: error.stdout ?? '', stderr: error.stderr ?? '' });
		throw error;
	}
}


/** Writes a temporary JSON file (private to this user) for an n8n import and removes it afterwards. */
async function withTempJson(content, work) {
	const dir = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-ollang-import-'));
	const file = path.join(dir, 'import.json');
	writeFileSync(file, JSON.stringify(content), { mode: 0o600 });
	try {
		return await work(file, dir);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * Imports credentials: `creds` is an array of `{ id, name, type, data }` with plain-object `data`, which n8n
 * encrypts on import. Importing an id that exists replaces it.
 */
export async function importCredentials(userFolder, creds, options = {}) {
	if (creds.length === 0) return;
	await withTempJson(creds, (file) => runN8n(userFolder, ['import:credentials', `--input=${file}`], { ...options, label: `n8n import:credentials (${creds.length})` }));
}

/** Imports workflow JSON files (each one workflow or an array); returns the ids found in them. */
export async function importWorkflows(userFolder, files, options = {}) {
	if (files.length === 0) return [];
	const ids = [];
	const dir = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-ollang-workflows-'));
	try {
		files.forEach((file, index) => {
			const content = JSON.parse(readFileSync(file, 'utf8'));
			for (const workflow of Array.isArray(content) ? content : [content]) if (workflow.id) ids.push(workflow.id);
			// --separate reads every *.json of one folder; numbered copies keep files of the same name apart.
			copyFileSync(file, path.join(dir, `${index}-${path.basename(file)}`));
		});
		await runN8n(userFolder, ['import:workflow', '--separate', `--input=${dir}`], { ...options, label: `n8n import:workflow (${files.length} files)` });
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return ids;
}

/** Publishes (activates) a workflow so a running `n8n start` schedules its triggers. Do it before starting n8n. */
export async function publishWorkflow(userFolder, id, options = {}) {
	const args = IS_N8N_1 ? ['update:workflow', `--id=${id}`, '--active=true'] : ['publish:workflow', `--id=${id}`];
	await runN8n(userFolder, args, { ...options, label: `n8n ${args.join(' ')}` });
}

/**
 * n8n 2.x on Node 24 sometimes dies of SIGSEGV while exiting, after its run ended: a run that finished without error
 * before such a crash stands (the caller checks the run).
 */
export function diedWhileExiting(error) {
	return error !== undefined && /signal SIGSEGV/.test(error.message);
}

/**
 * `n8n execute --id --rawOutput`: returns the run (`{ data: { resultData: { runData, ... } }, status, ... }`).
 * A failed run throws an Error carrying `run` (the same shape, with `data.resultData.error`) and `output`.
 */
export async function executeWorkflow(userFolder, id, options = {}) {
	let output;
	let failure;
	try {
		const result = await runN8n(userFolder, ['execute', `--id=${id}`, '--rawOutput'], { ...options, label: `n8n execute --id=${id}` });
		output = result.stdout;
	} catch (error) {
		failure = error;
		output = `${error.stdout ?? ''}\n${error.stderr ?? ''}`;
	}
	const run = findRunJson(output);
	if (diedWhileExiting(failure) && run?.finished === true && !run.data?.resultData?.error) {
		console.log(`[n8n-runtime] n8n execute --id=${id}: n8n crashed (SIGSEGV) while exiting, after the run finished; the run is kept`);
		return run;
	}
	if (failure || !run) {
		const reason = run?.data?.resultData?.error?.message;
		const error = new Error(`workflow ${id} ${reason ? `failed: ${reason}` : 'did not run'}\n${failure?.message ?? output.slice(-4000)}`);
		Object.assign(error, { run, output });
		throw error;
	}
	return run;
}

/**
 * n8n prints its log lines and the run on the same stream; the run is the pretty-printed JSON object whose
 * first line is a lone `{` and last a lone `}` (on failure n8n logs it the same way before the error).
 */
function findRunJson(output) {
	const lines = output.split('\n');
	for (let start = lines.length - 1; start >= 0; start--) {
		if (lines[start] !== '{') continue;
		for (let end = start + 1; end < lines.length; end++) {
			if (lines[end] !== '}') continue;
			try {
				const value = JSON.parse(lines.slice(start, end + 1).join('\n'));
				if (value?.data?.resultData) return value;
			} catch {
				// not the run: keep looking
			}
			break;
		}
	}
	return undefined;
}

