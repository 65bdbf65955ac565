// Memory > Import Items with "Wait for Completion": one run queues jobs that complete, fail and outlast the
// timeout. Each job that fails or does not finish is an error on its own items; the other jobs keep their results;
// the polling reads survive faults. The sandbox's clock is moved by the test once the jobs are queued, so which job
// is where when the node looks is decided by the test, not by wall time.
import type { INodeExecutionData } from 'n8n-workflow';
import { FAIL_IMPORT_MARKER } from '../../sandbox/index.cts';
import type { Sandbox } from '../../sandbox/index.cts';
import { byId, failure, pairedIndexes, run, useSandbox } from '../node/setup.cts';
import type { Run } from '../node/setup.cts';
import { Figures } from './helpers.cts';
import { createMemory } from './operations.cts';

const sandbox = useSandbox();
const figures = new Figures('Reliability: Import Items waiting for its jobs');

const IMPORT_ROUTE = '/integration/memories/:memoryId/items/import';
const JOB_ROUTE = '/integration/memories/import-jobs/:jobId';
const TIMEOUT_SECONDS = 2;

const parameters = {
	resource: 'memory',
	operation: 'importItems',
	memoryId: byId('={{ $json.memoryId }}'),
	unitsSource: 'field',
	units: '={{ $json.units }}',
	sourceLanguage: 'en',
	targetLanguage: 'fr',
	waitForCompletion: true,
	options: { timeoutSeconds: TIMEOUT_SECONDS, pollIntervalSeconds: 0.5 },
};

const units = (texts: string[]) => texts.map((text) => ({ sourceText: text, targetText: `${text} (fr)` }));

interface Jobs {
	items: INodeExecutionData[];
	memories: { quick: string; failing: string; slow: string };
}

/**
 * Items 0 and 3 share a memory (one quick job), item 1's job fails on its marked unit, item 2's 1,000 units take
 * longer than the test lets the clock run.
 */
async function threeJobs(s: Sandbox, label: string): Promise<Jobs> {
	const memories = {
		quick: await createMemory(s, `${label} quick`),
		failing: await createMemory(s, `${label} failing`),
		slow: await createMemory(s, `${label} slow`),
	};
	const many = units(Array.from({ length: 1000 }, (_, index) => `${label} line ${index}`));
	const items = [
		{ json: { memoryId: memories.quick, units: units([`${label} hello`]) } },
		{ json: { memoryId: memories.failing, units: units([`${label} ${FAIL_IMPORT_MARKER}`]) } },
		{ json: { memoryId: memories.slow, units: many } },
		{ json: { memoryId: memories.quick, units: units([`${label} goodbye`]) } },
	];
	s.requests.reset();
	return { items, memories };
}

/** Once all jobs are queued, moves the service's clock so the quick job completes, one fails, the slow one does not. */
async function runWhileJobsMove(s: Sandbox, jobs: Jobs, continueOnFail: boolean): Promise<Run> {
	let watching = true;
	const mover = (async () => {
		while (watching && s.requests.count({ method: 'POST', path: IMPORT_ROUTE }) < 3) {
			await new Promise((resolve) => setTimeout(resolve, 2));
		}
		s.clock.advance(3);
	})();
	try {
		return await run(s, parameters, { items: jobs.items, continueOnFail });
	} finally {
		watching = false;
		await mover;
	}
}

describe('Import Items waiting for three jobs: one completes, one fails, one outlasts the timeout', () => {
	it('continue on fail: the completed job is output, each other job is an error on its own items', async () => {
		const s = sandbox();
		const jobs = await threeJobs(s, 'cof');

		const result = await runWhileJobsMove(s, jobs, true);

		expect(result.error).toBeUndefined();
		expect(pairedIndexes(result)).toEqual([[0, 3], 1, 2]);
		expect(result.json[0]).toMatchObject({ memoryId: jobs.memories.quick, status: 'completed', itemsCount: 2, unitsSent: 2 });
		expect(String(result.json[1].error)).toMatch(/^Memory import job \w+ failed: Import failed at unit 1/);
		expect(String(result.json[2].error)).toMatch(
			new RegExp(`^Memory import job \\w+ did not finish within ${TIMEOUT_SECONDS} s: the job is processing \\(\\d+%\\)$`),
		);
		expect(JSON.stringify(result.json[2].details)).toContain('Get Import Job');
		// The completed job's units are in the memory; the service has them, whatever the other jobs did.
		expect(s.state.memories.get(jobs.memories.quick)?.items.size).toBe(2);
		figures.add('runs');
		figures.add('jobs completed and output', 1);
		figures.add('jobs failed, reported on their items', 1);
		figures.add('jobs timed out, reported on their items', 1);
	});

	it(`the same under 30% faults on the job reads, which are retried`, async () => {
		const s = sandbox();
		const jobs = await threeJobs(s, 'faults');
		s.faults.add({ method: 'GET', path: JOB_ROUTE, kind: 'status', status: 503, retryAfterSeconds: 0, probability: 0.3 });

		const result = await runWhileJobsMove(s, jobs, true);

		const faulted = s.requests.log.filter((record) => record.route === JOB_ROUTE && record.fault !== undefined).length;
		expect(faulted).toBeGreaterThan(0);
		expect(pairedIndexes(result)).toEqual([[0, 3], 1, 2]);
		expect(result.json[0]).toMatchObject({ status: 'completed', itemsCount: 2 });
		expect(String(result.json[1].error)).toContain('failed: Import failed at unit 1');
		expect(String(result.json[2].error)).toContain(`did not finish within ${TIMEOUT_SECONDS} s`);
		figures.add('runs');
		figures.add('job reads that met a fault', faulted);
	});

	it('without continue on fail: the node fails on the first failed job and names what became of the others', async () => {
		const s = sandbox();
		const jobs = await threeJobs(s, 'stop');

		const error = failure(await runWhileJobsMove(s, jobs, false));

		expect(error.itemIndex).toBe(1);
		expect(error.message).toMatch(/^Memory import job \w+ failed: Import failed at unit 1/);
		// The completed job and the one still running are named, so nothing needs importing twice to find out.
		expect(error.description).toMatch(/completed: job \w+ \(items 0, 3\)/);
		expect(error.description).toMatch(/still running: job \w+ \(item 2\)/);
		figures.add('runs');
	});

	it('without continue on fail, a queueing request that fails stops the node at once: no waiting for the queued jobs', async () => {
		const s = sandbox();
		const jobs = await threeJobs(s, 'queue');
		// The second job's request is answered 500 after the service queued it.
		s.faults.add({ method: 'POST', path: `/integration/memories/${jobs.memories.failing}/items/import`, kind: 'status', status: 500, when: 'after' });

		const error = failure(await run(s, parameters, { items: jobs.items }));

		expect(error.itemIndex).toBe(1);
		expect(error.description).toContain('may have been applied');
		// The other two requests went out with it (a few at a time): both jobs are named.
		expect(error.description).toMatch(/Jobs already queued by this run: \w+ \(memory \w+\), \w+ \(memory \w+\)\./);
		expect(s.requests.count({ method: 'GET', path: JOB_ROUTE })).toBe(0);
		figures.add('runs');
	});
});
