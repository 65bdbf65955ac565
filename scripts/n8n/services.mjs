// The services n8n's queue mode needs, run privately for tests and `npm start -- --queue`: a PostgreSQL cluster
// in a temporary folder and a Redis server, each on a free loopback port, in its own process group, stopped by
// process id (and its folder removed). PostgreSQL comes from the machine's Debian packages (installed on these
// machines; installed with apt-get if missing), Redis likewise (`redis-server`, not on a new machine).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachLine, freePort, log, runCommand, spawnGroup, stopGroup } from './process.mjs';

const LOG_PREFIX = '[services]';
/** PostgreSQL refuses to run as root: the cluster belongs to the `postgres` user of the Debian package. */
const POSTGRES_USER = 'postgres';
export const DATABASE = 'n8n';
export const DATABASE_USER = 'n8n';

function postgresBinDir() {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const versions = readdirSync(root)
		.filter((name) => existsSync(path.join(root, name, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length > 0 ? path.join(root, versions[0], 'bin') : undefined;
}

let aptUpdated = false;
async function aptInstall(packages) {
	if (process.getuid?.() !== 0) throw new Error(`${packages.join(', ')} missing; install with: sudo apt-get install -y ${packages.join(' ')}`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	if (!aptUpdated) {
		await runCommand('apt-get', ['update', '-qq'], { env, label: 'apt-get update', heartbeatMs: 20_000 });
		aptUpdated = true;
	}
	await runCommand('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { env, label: `apt-get install ${packages.join(' ')}`, heartbeatMs: 20_000 });
}

/** The PostgreSQL binaries, installed from Debian's packages when the machine has none. */
export async function ensurePostgres() {
	let bin = postgresBinDir();
	if (!bin) {
		log(LOG_PREFIX, 'PostgreSQL not found: installing it (apt-get install postgresql)');
		await aptInstall(['postgresql']);
		bin = postgresBinDir();
		if (!bin) throw new Error('PostgreSQL was installed but no initdb is under /usr/lib/postgresql/*/bin');
	}
	return bin;
}

/** redis-server, installed from Debian's packages when missing. */
export async function ensureRedis() {
	const found = () => ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((candidate) => existsSync(candidate));
	if (!found()) {
		log(LOG_PREFIX, 'redis-server not found: installing it (apt-get install redis-server)');
		await aptInstall(['redis-server']);
	}
	const binary = found();
	if (!binary) throw new Error('redis-server was installed but is not in /usr/bin');
	return binary;
}

/** Runs a PostgreSQL tool as the postgres user (setpriv execs it directly: the process id is the tool's). */
function asPostgres(binary, args) {
	return ['setpriv', ['--reuid', POSTGRES_USER, '--regid', POSTGRES_USER, '--init-groups', binary, ...args]];
}

async function waitUntil(what, probe, { timeoutMs = 60_000, intervalMs = 200, child } = {}) {
	const started = Date.now();
	for (;;) {
		if (child && (child.exitCode !== null || child.signalCode !== null)) throw new Error(`${what}: the process exited`);
		if (await probe()) return;
		if (Date.now() - started > timeoutMs) throw new Error(`${what}: not ready within ${timeoutMs} ms`);
		await sleep(intervalMs);
	}
}

/**
 * A private PostgreSQL cluster (trust authentication, loopback only, no fsync: test data only) with an `n8n`
 * database owned by the `n8n` role. Returns `{ port, env, pid, child, query(sql), stop() }`; `env` holds n8n's DB_* settings.
 */
export async function startPostgres({ label = 'n8n' } = {}) {
	const bin = await ensurePostgres();
	const dir = mkdtempSync(path.join(tmpdir(), `n8n-nodes-ollang-pg-${label}-`));
	chmodSync(dir, 0o777);
	const dataDir = path.join(dir, 'data');
	const chown = () => execFileSync('chown', ['-R', `${POSTGRES_USER}:${POSTGRES_USER}`, dir]);
	chown();
	const [initCommand, initArgs] = asPostgres(path.join(bin, 'initdb'), ['-D', dataDir, '-U', DATABASE_USER, '--auth=trust', '-E', 'UTF8', '--no-instructions']);
	await runCommand(initCommand, initArgs, { label: `initdb (${label})`, cwd: dir });
	const port = await freePort();
	const [command, args] = asPostgres(path.join(bin, 'postgres'), [
		'-D', dataDir, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
		'-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200',
	]);
	const child = spawnGroup(command, args, { cwd: dir });
	let output = '';
	forEachLine(child, (line) => {
		output = `${output}${line}\n`.slice(-4000);
	});
	const stop = async () => {
		await stopGroup(child);
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		const isReady = path.join(bin, 'pg_isready');
		await waitUntil(`PostgreSQL on port ${port}`, async () => {
			try {
				execFileSync(isReady, ['-h', '127.0.0.1', '-p', String(port), '-U', DATABASE_USER], { stdio: 'ignore' });
				return true;
			} catch {
				return false;
			}
		}, { child });
		execFileSync(path.join(bin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', DATABASE_USER, DATABASE]);
	} catch (error) {
		await stop();
		throw new Error(`${error.message}\n${output}`);
	}
	return {
		port,
		pid: child.pid,
		child,
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(port),
			DB_POSTGRESDB_DATABASE: DATABASE,
			DB_POSTGRESDB_USER: DATABASE_USER,
			DB_POSTGRESDB_PASSWORD: '',
		},
		/** Runs one SQL statement through psql; returns its rows as arrays of strings (tab-separated output). */
		query(sql) {
			const out = execFileSync(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', DATABASE_USER, '-d', DATABASE, '-At', '-F', '\t', '-c', sql], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
			return out.split('\n').filter((line) => line !== '').map((line) => line.split('\t'));
		},
		stop,
	};
}

/** A Redis server without persistence. Returns `{ port, env, pid, child, stop() }`; `env` holds n8n's queue settings. */
export async function startRedis() {
	const binary = await ensureRedis();
	const dir = mkdtempSync(path.join(tmpdir(), 'n8n-nodes-ollang-redis-'));
	const port = await freePort();
	const child = spawnGroup(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir], { cwd: dir });
	let output = '';
	forEachLine(child, (line) => {
		output = `${output}${line}\n`.slice(-4000);
	});
	const stop = async () => {
		await stopGroup(child);
		rmSync(dir, { recursive: true, force: true });
	};
	try {
		await waitUntil(`Redis on port ${port}`, async () => /Ready to accept connections/.test(output), { child });
	} catch (error) {
		await stop();
		throw new Error(`${error.message}\n${output}`);
	}
	return { port, pid: child.pid, child, env: { QUEUE_BULL_REDIS_HOST: '127.0.0.1', QUEUE_BULL_REDIS_PORT: String(port) }, stop };
}
