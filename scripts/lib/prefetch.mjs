// On a cold machine the end-to-end layer needs about 13 minutes of installs: Debian's chromium and redis-server,
// Node 24 + n8n for each version of the matrix, and the install suite's verdaccio. They wait on the network and the
// disk more than on the CPU, so `npm test` starts them in one background process while the dev dependencies install
// and lint, build and jest run. The first end-to-end stage starts once its own runtime is in (installed first),
// the rest installing beside it; the later stages wait for the whole prefetch. Each step is also an idempotent
// install of its own (scripts/n8n/install.mjs locks per version and tool, services.mjs and ensure-chromium.sh check
// first), so a failure here only costs the time: the suite that needs the piece installs it again and reports why.
//
//   node scripts/lib/prefetch.mjs <n8n version>...   the background process itself
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const repoRoot = join(self, '..', '..', '..');

/** Debian packages the e2e suites need and a new machine lacks (PostgreSQL 15 comes with it). */
const DEBIAN_PACKAGES = [
	{ name: 'chromium', present: () => spawnSync('sh', ['-c', 'command -v chromium'], { stdio: 'ignore' }).status === 0 },
	{ name: 'redis-server', present: () => ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].some(existsSync) },
];

/**
 * Starts the background install of what `versions` need; `finished()` waits for it and returns its log's last
 * lines. The log is a file: the caller is blocked in synchronous commands meanwhile.
 */
export function startPrefetch(versions, logFile) {
	const fd = openSync(logFile, 'w');
	const started = Date.now();
	const child = spawn(process.execPath, [self, ...versions], { cwd: repoRoot, stdio: ['ignore', fd, fd] });
	closeSync(fd);
	const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ outcome: signal ?? code, seconds: Math.round((Date.now() - started) / 1000) })));
	return {
		/** npm test stopping early: no further step starts (the one under way finishes; installs are idempotent). */
		stop: () => child.kill(),
		/** Waits until the step `label` ended (or the whole prefetch did): the steps before it ended too. */
		async reached(label) {
			const ended = `[prefetch] ${label}: `;
			let exitedYet = false;
			void exited.then(() => (exitedYet = true));
			while (!exitedYet && !readFileSync(logFile, 'utf8').includes(ended)) await new Promise((resolve) => setTimeout(resolve, 1000));
		},
		async finished() {
			const { outcome, seconds } = await exited;
			const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join('\n');
			return { ok: outcome === 0, seconds, summary: `background installs ${outcome === 0 ? 'finished' : `failed (${outcome})`} in ${seconds} s:\n${tail}` };
		},
	};
}

function step(label, command, args, env = process.env) {
	const started = Date.now();
	console.log(`[prefetch] ${label} ...`);
	const result = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit', env });
	const seconds = Math.round((Date.now() - started) / 1000);
	console.log(`[prefetch] ${label}: ${result.status === 0 ? 'done' : `failed (${result.signal ?? result.status})`} in ${seconds} s`);
	return result.status === 0;
}

if (process.argv[1] === self) {
	let ok = true;
	const missing = DEBIAN_PACKAGES.filter((pkg) => !pkg.present()).map((pkg) => pkg.name);
	// Only root installs Debian packages here; elsewhere the suites say what to install.
	if (missing.length > 0 && process.getuid?.() === 0) {
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		ok = step('apt-get update', 'apt-get', ['update', '-qq'], env) && ok;
		ok = step(`apt-get install ${missing.join(' ')}`, 'apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], env) && ok;
	}
	const [first, ...later] = process.argv.slice(2);
	const runtime = (version) => {
		const env = { ...process.env, OLLANG_N8N_VERSION: version };
		ok = step(`n8n ${version} runtime`, process.execPath, [join(repoRoot, 'scripts', 'n8n', 'runtime.mjs'), 'install'], env) && ok;
	};
	// In the order the first stage needs them: it starts once its own runtime is in (the others install beside it).
	if (first !== undefined) runtime(first);
	// The install suite's local registry (about 2 minutes cold, else spent inside that suite).
	ok = step('cached tools (verdaccio)', process.execPath, [join(repoRoot, 'scripts', 'n8n', 'runtime.mjs'), 'install-tools']) && ok;
	later.forEach(runtime);
	process.exit(ok ? 0 : 1);
}
