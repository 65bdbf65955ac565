// This package as n8n gets it: built and packed once per version of its sources (the tarball kept in the cache), and
// installed into a user folder's nodes folder the way n8n's community-package installer lays it out.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LOG_PREFIX, REPO_ROOT, cacheRoot, ensureRuntime, npmCliPath, step, withLock } from './install.mjs';
import { log, runCommand } from './process.mjs';

/** What a user gets from `npm pack`: the package name, version and the files n8n will load. */
export function readRepoManifest() {
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

export function nodesDir(userFolder) {
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
