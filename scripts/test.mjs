// `npm test`: installs what the tests need, then lint, build, typecheck and every jest suite.
// Ends with one "N passed, N failed" line so CI can read the outcome.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDevDependencies, repoRoot } from './lib/dev-dependencies.mjs';
import { run } from './lib/run.mjs';

const started = Date.now();
const step = (name) => console.log(`\n== ${name} (${((Date.now() - started) / 1000).toFixed(0)} s) ==`);

try {
	step('dependencies');
	ensureDevDependencies();
	step('lint: n8n strict community-node rules');
	run('npx', ['n8n-node', 'lint'], { cwd: repoRoot });
	step('build: n8n-node build');
	run('npx', ['n8n-node', 'build'], { cwd: repoRoot });
	step('typecheck: sandbox, tests and tools');
	run('npx', ['tsc', '-p', 'tsconfig.dev.json'], { cwd: repoRoot });
	step('jest');
	const report = join(mkdtempSync(join(tmpdir(), 'ollang-jest-')), 'report.json');
	let jestFailed = false;
	try {
		run('npx', ['jest', '--ci', '--maxWorkers=2', '--json', `--outputFile=${report}`, ...process.argv.slice(2)], {
			cwd: repoRoot,
		});
	} catch {
		jestFailed = true;
	}
	const results = JSON.parse(readFileSync(report, 'utf8'));
	const seconds = ((Date.now() - started) / 1000).toFixed(0);
	console.log(`\nnpm test took ${seconds} s; ${results.numTotalTestSuites} suites`);
	console.log(`${results.numPassedTests} passed, ${results.numFailedTests} failed`);
	if (jestFailed || results.numFailedTests > 0 || results.numTotalTests === 0 || !results.success) process.exit(1);
} catch (error) {
	console.error(`\nnpm test failed: ${error.message}`);
	process.exit(1);
}
