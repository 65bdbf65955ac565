// Scenario 11's goals (bench/bursts-report.mjs): per set-up and settings, the Callback Trigger answers at least 0.9x
// the 2xx n8n's Webhook node answers at every burst (issue 41), and every completion is emitted once.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const reportModule = pathToFileURL(path.resolve(__dirname, '..', '..', 'bench', 'bursts-report.mjs')).href;

type Goal = { scenario: string; goal: string; figure: string; met: boolean; why: string };
type Side = { answered2xx: number; emittedOnce?: number; emittedTwice?: number; missed?: number };

/** burstsGoals for a result, run by plain Node as the bench runs it (the module is ESM). */
function goalsOf(result: unknown): Goal[] {
	const source = `import { burstsGoals } from ${JSON.stringify(reportModule)}; console.log(JSON.stringify(burstsGoals(${JSON.stringify(result)})));`;
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8' });
	expect(run.stderr).toBe('');
	return JSON.parse(run.stdout) as Goal[];
}

const burst = (size: number, webhook: number, trigger: number, { twice = 0, missed = 0 } = {}) => ({
	size,
	retries: 'none',
	webhook: { answered2xx: webhook } satisfies Side,
	trigger: { answered2xx: trigger, emittedOnce: size - twice - missed, emittedTwice: twice, missed } satisfies Side,
});

describe('bench scenario 11: its goals', () => {
	it('meets capacity per set-up and settings only when every burst reaches 0.9x the Webhook node (a Webhook node answering none asks nothing)', () => {
		const goals = goalsOf({
			topologies: [
				{ topology: 'main', bursts: [burst(200, 200, 180), burst(400, 0, 0)] },
				{ topology: 'webhooks', settings: 'lazy isolate', bursts: [burst(200, 200, 200), burst(400, 400, 359)] },
			],
		});
		expect(goals.map((goal) => [goal.scenario, goal.met])).toEqual([
			['11. Bursts (one main, n8n defaults)', true],
			['11. Bursts (two webhook processes, lazy isolate)', false],
			['11. Bursts (every row)', true],
		]);
		expect(goals[1].figure).toBe('200/none: 200 of 200 (1.00x); 400/none: 359 of 400 (0.90x)');
		expect(goals[1].why).toContain('Short at 400/none: 359 of 400');
		expect(goals[2].figure).toBe('1200 emitted once, 0 twice, 0 missed, over 4 bursts');
	});

	it('misses "each completion once" on any completion emitted twice or missed, in any row', () => {
		const [, everyRow] = goalsOf({ topologies: [{ topology: 'main', bursts: [burst(200, 200, 200, { twice: 1 }), burst(50, 50, 50, { missed: 2 })] }] });
		expect(everyRow.met).toBe(false);
		expect(everyRow.figure).toBe('247 emitted once, 1 twice, 2 missed, over 2 bursts');
	});
});
