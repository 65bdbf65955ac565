// The bench's load check (bench/load.mjs): a plain `npm run bench` writes RESULTS.md, so above a load average of 2
// it refuses unless --force; any other run (options, the smoke npm test runs) warns and goes on.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const loadModule = pathToFileURL(path.resolve(__dirname, '..', '..', 'bench', 'load.mjs')).href;

type Verdict = { action: string; message: string };

/** loadVerdict for each case, run by plain Node as the bench runs it (the module is ESM). */
function verdicts(cases: Array<[number, { writesResults: boolean; force: boolean }]>): Verdict[] {
	const source = `import { loadVerdict } from ${JSON.stringify(loadModule)}; console.log(JSON.stringify(${JSON.stringify(cases)}.map(([load, options]) => loadVerdict(load, options))));`;
	const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8' });
	expect(result.stderr).toBe('');
	return JSON.parse(result.stdout) as Verdict[];
}

describe('bench/load.mjs: the load average at the bench\'s start', () => {
	it('runs at or under 2, refuses a plain run above it unless --force, and only warns for any other run', () => {
		const [quiet, atLimit, busyPlain, busyForced, busySmoke] = verdicts([
			[0.4, { writesResults: true, force: false }],
			[2, { writesResults: true, force: false }],
			[11, { writesResults: true, force: false }],
			[11, { writesResults: true, force: true }],
			[3.2, { writesResults: false, force: false }],
		]);
		expect([quiet.action, atLimit.action, busyPlain.action, busyForced.action, busySmoke.action]).toEqual(['run', 'run', 'refuse', 'warn', 'warn']);
		expect(quiet.message).toBe('load average at start: 0.40 (1 minute; limit 2)');
		expect(busyPlain.message).toContain('load average at start: 11.00');
		expect(busyPlain.message).toContain('--force');
		expect(busySmoke.message).toContain('WARNING');
	});
});
