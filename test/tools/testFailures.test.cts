// `npm test` ends by naming every failed test with its error's first lines (scripts/lib/failures.mjs), because CI
// keeps only the tail of a long run. These tests make real runners fail (node's test runner writing TAP, as the
// end-to-end suites do; jest writing its JSON report) and read their reports back through the module.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const failuresModule = path.join(repoRoot, 'scripts', 'lib', 'failures.mjs');
let workDir: string;

beforeAll(() => {
	workDir = mkdtempSync(path.join(tmpdir(), 'ollang-failures-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Calls one export of failures.mjs in a child (jest cannot load ES modules) and returns what it returned. */
function callFailures(fn: string, ...args: unknown[]): unknown {
	const child = spawnSync(
		process.execPath,
		['--input-type=module', '-e', `const m = await import(${JSON.stringify(failuresModule)}); process.stdout.write(JSON.stringify(m.${fn}(...${JSON.stringify(args)})));`],
		{ encoding: 'utf8' },
	);
	if (child.status !== 0) throw new Error(child.stderr);
	return JSON.parse(child.stdout);
}

describe('the failed tests npm test names at its end', () => {
	it('reads the leaf failures of node test runner TAP, named by their suites, the sandbox key masked', () => {
		const testFile = path.join(workDir, 'sample.test.mjs');
		writeFileSync(
			testFile,
			`import test, { describe } from 'node:test';
import assert from 'node:assert';
describe('the Ollang Trigger', () => {
	test('a passing one', () => {});
	describe('after an edit', () => {
		test('emits every event once', () => assert.strictEqual(5, 8, 'expected 8, emitted 5 (key sbx_owner_0123abcd)'));
	});
});
test('a top-level failure', () => { throw new Error('first line\\nsecond line'); });
`,
		);
		const tap = path.join(workDir, 'sample.tap');
		const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', `--test-reporter-destination=${tap}`, testFile], { encoding: 'utf8' });
		expect(run.status).not.toBe(0);

		const failures = callFailures('failuresOfTap', tap) as Array<{ name: string; error: string }>;
		expect(failures.map((failure) => failure.name.replace(/^.*sample\.test\.mjs > /, ''))).toEqual(['the Ollang Trigger > after an edit > emits every event once', 'a top-level failure']);
		expect(failures[1].error).toBe('first line\nsecond line');

		const printed = callFailures('describeFailures', 'end-to-end', failures) as string;
		expect(printed).toContain('✖ end-to-end: ');
		expect(printed).toContain('expected 8, emitted 5 (key sbx_owner_***)');
		expect(printed).not.toContain('0123abcd');
		expect(printed).not.toContain('a passing one');
	});

	it('reads failed assertions and suites that could not run from a jest JSON report', () => {
		const suiteDir = path.join(workDir, 'jest');
		rmSync(suiteDir, { recursive: true, force: true });
		mkdirSync(suiteDir, { recursive: true });
		writeFileSync(path.join(suiteDir, 'counts.test.js'), `describe('counts', () => { it('adds', () => expect(1 + 1).toBe(3)); it('holds', () => expect(1).toBe(1)); });\n`);
		writeFileSync(path.join(suiteDir, 'broken.test.js'), `require('./does-not-exist');\n`);
		writeFileSync(path.join(suiteDir, 'jest.config.js'), `module.exports = { testEnvironment: 'node' };\n`);
		const report = path.join(workDir, 'jest.json');
		const run = spawnSync(path.join(repoRoot, 'node_modules', '.bin', 'jest'), ['--ci', '--config', path.join(suiteDir, 'jest.config.js'), '--json', `--outputFile=${report}`], { encoding: 'utf8', cwd: suiteDir });
		expect(run.status).not.toBe(0);

		const failures = callFailures('failuresOfJest', report) as Array<{ name: string; error: string }>;
		const byName = Object.fromEntries(failures.map((failure) => [path.basename(failure.name.split(' > ')[0]), failure]));
		expect(Object.keys(byName).sort()).toEqual(['broken.test.js', 'counts.test.js']);
		// Exactly the failed assertion and the suite that could not load: the passing `holds` is not reported.
		expect(failures).toHaveLength(2);
		expect(failures.some((failure) => failure.name.endsWith('counts holds'))).toBe(false);
		expect(byName['counts.test.js'].name).toMatch(/ > counts adds$/);
		expect(byName['counts.test.js'].error).toContain('Expected: 3');
		expect(byName['broken.test.js'].error).toContain('does-not-exist');
	});
});
