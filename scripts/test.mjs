// `npm test`: installs what the tests need, then lint, build, typecheck, every jest suite, and the end-to-end suite
// (a real n8n from the cached runtime, the packed package installed in it, the sandbox as a process) on each n8n
// version, and the bench's smoke. Three stages after jest: the default version with the bench's smoke after its
// poll-bound lane; 1.x; the newest 2.x.
// Ends with one "N passed, N failed" line over both runners so CI can read the outcome.
//
//   npm test [-- <jest arguments>]   e.g. npm test -- test/sandbox
//   npm test -- --skip-e2e           lint, build, typecheck and jest only
//   npm test -- --e2e-only           the end-to-end suite only
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevDependencies, repoRoot } from './lib/dev-dependencies.mjs';
import { describeFailures, failuresOfJest, failuresOfTap } from './lib/failures.mjs';
import { startPrefetch } from './lib/prefetch.mjs';
import { run, runAsync } from './lib/run.mjs';
import { DEFAULT_N8N_VERSION, N8N_VERSIONS } from './n8n/runtime.mjs';

const started = Date.now();
const step = (name) => console.log(`\n== ${name} (${((Date.now() - started) / 1000).toFixed(0)} s) ==`);
const args = process.argv.slice(2);
const skipE2e = args.includes('--skip-e2e');
const e2eOnly = args.includes('--e2e-only');
const jestArgs = args.filter((arg) => arg !== '--skip-e2e' && arg !== '--e2e-only');
const E2E_DIR = join(repoRoot, 'test', 'e2e');
const reportDir = mkdtempSync(join(tmpdir(), 'ollang-test-'));

/**
 * Jest's workers: four on two cores. Its suites mostly wait (the sandbox's simulated delays, other processes' turns):
 * the two longest spend 61 s of processor in 171 s. Two workers took 461 s (2026-11-28), four 290 s for 470 s of
 * processor; more would only queue on the cores.
 */
const JEST_WORKERS = 4;

/** Runs jest; returns its counts from its JSON report. */
function runJest() {
	const report = join(reportDir, 'jest.json');
	let exitedWithFailure = false;
	try {
		run('npx', ['jest', '--ci', `--maxWorkers=${JEST_WORKERS}`, '--json', `--outputFile=${report}`, ...jestArgs], { cwd: repoRoot });
	} catch {
		exitedWithFailure = true;
	}
	if (!existsSync(report)) return { passed: 0, failed: 1, suites: 0, ok: false, failures: [{ name: 'jest wrote no report', error: '' }] };
	const results = JSON.parse(readFileSync(report, 'utf8'));
	return {
		passed: results.numPassedTests,
		failed: results.numFailedTests,
		suites: results.numTotalTestSuites,
		ok: !exitedWithFailure && results.success && results.numTotalTests > 0,
		failures: failuresOfJest(report),
	};
}

/**
 * The n8n versions of the matrix beside the default one, and the suites each runs: every resource's operations, the
 * trigger in `n8n start`, and the trigger across restarts (more on the newest 2.x: MATRIX_MODES).
 */
const MATRIX_FILES = ['resources.test.mts', 'restarts.test.mts', 'trigger.test.mts'];
/**
 * Files the 1.x versions (those without a mode of their own) run beside MATRIX_FILES: the editor, whose resource
 * locator lists and loaded dropdowns n8n 1.x draws with other components than 2.x, and Create and Wait's, since how
 * n8n resumes a waiting execution (and so how the node gets to check its orders) is n8n's own code in each version
 * (it mostly waits for n8n's checks).
 */
const OLDER_MAJOR_FILES = [...MATRIX_FILES, 'createAndWait.test.mts', 'editor.test.mts'];
/**
 * The newest 2.x runs with n8n 3.0's new defaults (test/e2e/harness.mts N8N_3_DEFAULTS: filesystem binary data,
 * manual executions on workers, 60 s task timeout, SSRF protection on), and also queue mode, the 3.0 migration
 * report, n8n's Retry (what a retry carries over differs by version), the create-and-wait example (Order > Create and Wait resumed
 * by the API's callbacks, in queue mode too): 3.0 itself ships only as a Docker image, which cannot run here.
 */
const MATRIX_MODES = {
	'2.41.1': {
		label: '2.41.1 with 3.0 defaults',
		// The callback trigger's own file (13 minutes) runs on 2.40.7 only; here the queue suite's callback cases cover
		// its webhook, sweep and n8n's deduplication store under 3.0's defaults.
		files: [...MATRIX_FILES, 'queue.test.mts', 'migration.test.mts', 'retry.test.mts', 'createAndWait.test.mts'],
		env: { OLLANG_N8N_DEFAULTS: '3.0' },
	},
};

/**
 * Files the default version leaves to the newest 2.x: n8n 3.0's migration report and SSRF protection are about 3.0,
 * so they run where 3.0's defaults are on (MATRIX_MODES); n8n's Retry of a failed execution (about 5 minutes of two
 * cores; `ExecutionService.retry` is the same in n8n 2.40.7 and 2.41.1, and the queue suite retries on a worker too)
 * and queue mode (11 minutes) run once, there too, where 3.0's defaults also put manual executions on workers (and
 * Create and Wait resumed on a worker, in the same n8n). The default version still starts queue mode in
 * start.test.mts (`npm start -- --queue`, where Create and Wait runs with its callbacks at two webhook processes) and
 * takes callbacks on two webhook processes (the bench's smoke, scenario 11).
 */
const NEWEST_ONLY = ['migration.test.mts', 'queue.test.mts', 'retry.test.mts'];

/**
 * Files that spend most of their time waiting for n8n's once-a-minute polls (and restarts): they run one after
 * another in a lane of their own, beside the other files, which run two at a time. On two cores this keeps three
 * n8n instances busy where two would leave the processor idle for minutes, without a third CPU-bound file at once.
 */
const POLL_BOUND_FILES = ['restarts.test.mts', 'trigger.test.mts', 'triggerEdits.test.mts'];

/**
 * The longest files of the main lane, started first so none is left running alone at the end: queue mode (about 13
 * minutes), the install (4), create and wait (4), the callback trigger's (7 to 15 under load) and retry (3).
 * (Moving the trigger's file into the main lane on 2.41.1, where the poll lane holds restarts only, made that version
 * take 17 minutes instead of 15: the poll lane waits, the main lane computes.)
 */
const LONGEST_FIRST = ['queue.test.mts', 'install.test.mts', 'createAndWait.test.mts', 'callbackTrigger.test.mts', 'retry.test.mts'];

function longestFirst(names) {
	const rank = (name) => (LONGEST_FIRST.includes(name) ? LONGEST_FIRST.indexOf(name) : LONGEST_FIRST.length);
	return [...names].sort((a, b) => rank(a) - rank(b));
}

/** One `tsx --test` process over `files`: its TAP report's counts and failures. */
async function runTestLane(files, { concurrency, env, tap, logFile }) {
	let exitedWithFailure = false;
	try {
		await runAsync(
			join(repoRoot, 'node_modules', '.bin', 'tsx'),
			['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=tap', `--test-reporter-destination=${tap}`, ...files],
			{ cwd: repoRoot, env, logFile },
		);
	} catch {
		exitedWithFailure = true;
	}
	const summary = existsSync(tap) ? readFileSync(tap, 'utf8') : '';
	const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(summary)?.[1] ?? NaN);
	const [passed, failed, cancelled] = [count('pass'), count('fail'), count('cancelled')];
	if (Number.isNaN(passed)) return { passed: 0, failed: 1, ok: false, failures: [{ name: `the test runner wrote no TAP summary (${files.join(', ')})`, error: '' }] };
	return { passed, failed: failed + cancelled, ok: !exitedWithFailure && failed + cancelled === 0 && passed > 0, failures: failuresOfTap(tap) };
}

/**
 * Runs end-to-end files with node's test runner through tsx against one n8n version (OLLANG_N8N_VERSION, installed
 * into the cache first): the poll-bound files in a lane of their own (when there are enough others to fill the
 * main lane), the rest `concurrency` (two) at a time. `afterPollLane` (the bench's smoke) starts when the poll lane ended, beside the
 * main lane. The main lane's spec report goes to the terminal as it runs, the others' when they ended; TAP copies
 * are read for the counts. Resolves, once the lanes ended, to this version's outcome and `afterPollLane`'s promise
 * (still running then, perhaps: the next stage starts beside its end).
 */
async function runEndToEnd(version, fileNames, { label = version, env: modeEnv = {}, afterPollLane, concurrency = 2 } = {}) {
	const env = { ...process.env, ...modeEnv, OLLANG_N8N_VERSION: version };
	const started = Date.now();
	step(`n8n ${version} runtime: Node 24 + n8n, installed once into the cache (a first install takes about 5 minutes)`);
	run(process.execPath, [join(repoRoot, 'scripts', 'n8n', 'runtime.mjs'), 'install'], { cwd: repoRoot, env });
	const installSeconds = Math.round((Date.now() - started) / 1000);
	const pollBound = fileNames.filter((name) => POLL_BOUND_FILES.includes(name));
	const split = fileNames.length - pollBound.length >= 4 && pollBound.length > 0;
	const lanes = split ? [longestFirst(fileNames.filter((name) => !pollBound.includes(name))), pollBound] : [longestFirst(fileNames)];
	step(`end-to-end on n8n ${label}: ${fileNames.length} files${split ? ` (${pollBound.join(', ')} one after another beside the others)` : ''}, a real n8n with the packed package, and the sandbox`);
	const paths = (names) => names.map((name) => join('test', 'e2e', name));
	const pollLog = join(reportDir, `e2e-${version}-poll-lane.log`);
	const laneRuns = lanes.map((names, index) =>
		runTestLane(paths(names), { concurrency: index === 0 ? concurrency : 1, env, tap: join(reportDir, `e2e-${version}-${index}.tap`), logFile: index === 0 ? undefined : pollLog }),
	);
	// The bench's smoke waits for the poll lane (or starts at once without one): two lanes of n8n instances beside it.
	// Awaited only after later stages: a failure to run it becomes its outcome, never an unhandled rejection meanwhile.
	const afterPoll =
		afterPollLane === undefined
			? undefined
			: (split ? laneRuns[1] : Promise.resolve())
					.then(afterPollLane)
					.catch((error) => ({ runner: 'after the poll lane', passed: 0, failed: 1, suites: 0, ok: false, failures: [{ name: `it did not run: ${error.message}`, error: '' }] }));
	const results = await Promise.all(laneRuns);
	if (split && existsSync(pollLog)) {
		step(`end-to-end on n8n ${label}: the poll-bound lane's report`);
		process.stdout.write(readFileSync(pollLog));
	}
	const seconds = Math.round((Date.now() - started) / 1000);
	const runner = `end-to-end n8n ${label} (${installSeconds} s install check, ${seconds - installSeconds} s tests)`;
	const outcome = {
		runner,
		passed: results.reduce((sum, result) => sum + result.passed, 0),
		failed: results.reduce((sum, result) => sum + result.failed, 0),
		suites: fileNames.length,
		ok: results.every((result) => result.ok),
		failures: results.flatMap((result) => result.failures),
	};
	return { outcome, afterPoll };
}

/** The bench's smoke (`npm run bench -- --smoke`): every scenario once at small volumes; it checks figures, never timings. */
async function runBenchSmoke({ logFile } = {}) {
	step('bench smoke: every scenario of `npm run bench`, one round, small volumes (bench/run.mjs --smoke)');
	const summaryFile = join(reportDir, 'bench-smoke.json');
	const started = Date.now();
	let exitedWithFailure = false;
	try {
		await runAsync(process.execPath, [join(repoRoot, 'bench', 'run.mjs'), '--smoke', '--smoke-summary', summaryFile], { cwd: repoRoot, logFile });
	} catch {
		exitedWithFailure = true;
	}
	const summary = existsSync(summaryFile) ? JSON.parse(readFileSync(summaryFile, 'utf8')) : { checks: 0, failed: 1, scenarios: 0, problems: ['the bench wrote no smoke summary'] };
	const runner = `bench smoke (${Math.round((Date.now() - started) / 1000)} s)`;
	const failures = (summary.problems ?? []).map((problem) => ({ name: problem, error: '' }));
	return { runner, passed: summary.checks - summary.failed, failed: summary.failed, suites: summary.scenarios, ok: !exitedWithFailure && summary.failed === 0 && summary.checks > 0, failures };
}

let prefetch;
try {
	if (!skipE2e) {
		// First: the prefetch needs only Node's builtins, and overlaps the dev dependencies' install too.
		const logFile = join(reportDir, 'prefetch.log');
		prefetch = startPrefetch([DEFAULT_N8N_VERSION, ...Object.keys(N8N_VERSIONS).filter((version) => version !== DEFAULT_N8N_VERSION)], logFile);
		console.log(`Installing what the end-to-end suites need in the background while the dev dependencies, lint, build and jest run (a no-op when cached; log: ${logFile})`);
	}
	step('dependencies');
	ensureDevDependencies();
	const outcomes = [];
	if (!e2eOnly) {
		step('lint: n8n strict community-node rules');
		run('npx', ['n8n-node', 'lint'], { cwd: repoRoot });
		step('build: n8n-node build');
		run('npx', ['n8n-node', 'build'], { cwd: repoRoot });
		step('typecheck: sandbox, tests and tools');
		run('npx', ['tsc', '-p', 'tsconfig.dev.json'], { cwd: repoRoot });
		step('jest');
		outcomes.push({ runner: 'jest', ...runJest() });
	}
	if (!skipE2e) {
		step(`waiting for the background installs the first stage needs (chromium, redis-server, n8n ${DEFAULT_N8N_VERSION}; the rest go on beside it)`);
		await prefetch.reached(`n8n ${DEFAULT_N8N_VERSION} runtime`);
		const allFiles = readdirSync(E2E_DIR).filter((name) => name.endsWith('.test.mts') && !NEWEST_ONLY.includes(name)).sort();
		// The bench's smoke after the poll-bound lane of the default version (each starts its own n8n and sandbox on
		// free ports); its report is printed when it ended.
		const benchLog = join(reportDir, 'bench-smoke.log');
		const benchSmoke = async () => {
			const bench = await runBenchSmoke({ logFile: benchLog });
			step(`bench smoke's report (ran beside the end-to-end suite on n8n ${DEFAULT_N8N_VERSION})`);
			if (existsSync(benchLog)) process.stdout.write(readFileSync(benchLog));
			return bench;
		};
		// The smoke's tail (about 100 s after the main lane ended, 2026-11-27) overlaps the next stage's start.
		const first = await runEndToEnd(DEFAULT_N8N_VERSION, allFiles, { afterPollLane: benchSmoke });
		outcomes.push(first.outcome);
		step('waiting for the rest of the background installs (every n8n runtime, verdaccio)');
		console.log((await prefetch.finished()).summary);
		// Versions without a mode of their own (1.123: four files, three at once: two of them mostly wait for polls), then
		// each version with one. (1.x's files in a lane beside 2.41.1's stage instead: four n8n instances at once starved
		// 2.41.1's restarts file, whose default-persistence trigger then missed 51 of 78 events within its bound.)
		const others = Object.keys(N8N_VERSIONS).filter((version) => version !== DEFAULT_N8N_VERSION);
		for (const version of others.filter((candidate) => !(candidate in MATRIX_MODES))) {
			// Four at once: Create and Wait's file mostly waits, the editor's waits for its turn.
			outcomes.push((await runEndToEnd(version, OLDER_MAJOR_FILES, { concurrency: 4 })).outcome);
		}
		for (const version of others.filter((candidate) => candidate in MATRIX_MODES)) {
			const mode = MATRIX_MODES[version];
			outcomes.push((await runEndToEnd(version, mode.files, mode)).outcome);
		}
		outcomes.push(await first.afterPoll);
	}
	const seconds = ((Date.now() - started) / 1000).toFixed(0);
	const failed = outcomes.filter((outcome) => outcome.failures?.length > 0);
	if (failed.length > 0) console.log(`\nFailed:\n${failed.map((outcome) => describeFailures(outcome.runner.replace(/ \(.*$/, ''), outcome.failures)).join('\n')}`);
	console.log(`\nnpm test took ${seconds} s; ${outcomes.map((outcome) => `${outcome.runner}: ${outcome.suites} suites, ${outcome.passed} passed, ${outcome.failed} failed`).join('; ')}`);
	const total = (key) => outcomes.reduce((sum, outcome) => sum + outcome[key], 0);
	console.log(`${total('passed')} passed, ${total('failed')} failed`);
	if (outcomes.some((outcome) => !outcome.ok)) process.exit(1);
} catch (error) {
	prefetch?.stop();
	console.error(`\nnpm test failed: ${error.message}`);
	process.exit(1);
}
