// The Memory Import Job Finished event through the real poll() against the sandbox.
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { FAIL_IMPORT_MARKER, FAIL_VECTORIZATION_MARKER } from '../../sandbox/index.cts';
import { call, itemsOf, startImport, triggerRunner, useSandbox } from './helpers.cts';

const sandbox = useSandbox({ seed: 5 });

let memoryId: string;

beforeAll(async () => {
	const created = await call(sandbox(), 'POST', '/integration/memories', { body: { title: 'Trigger test memory' } });
	expect(created.status).toBe(201);
	memoryId = created.body.id;
});

function jobParameters(jobIds: string | string[], extra: INodeParameters = {}): INodeParameters {
	return { event: 'importJobFinished', jobIds, ...extra };
}

function jobIdsOf(items: IDataObject[]): string[] {
	return items.map((item) => String(item.jobId)).sort();
}

it('emits each watched job once when it completes, with the job fields and its memory', async () => {
	const quick = await startImport(sandbox(), memoryId, 10);
	const slow = await startImport(sandbox(), memoryId, 900);
	const runner = triggerRunner(sandbox(), jobParameters(`${memoryId}:${quick}, ${slow}`));
	expect(await runner.poll()).toBeNull();
	sandbox().clock.advance(2);
	const [first] = itemsOf(await runner.poll());
	expect(first).toMatchObject({
		jobId: quick,
		status: 'completed',
		progress: 100,
		itemsCount: 10,
		outcome: 'completed',
		memoryId,
		memory: { id: memoryId, title: 'Trigger test memory' },
	});
	expect(first.completedAt).toEqual(expect.any(String));
	expect(await runner.poll()).toBeNull();
	sandbox().clock.advance(10);
	const [second] = itemsOf(await runner.poll());
	expect(second).toMatchObject({ jobId: slow, outcome: 'completed', itemsCount: 900, memoryId: null, memory: null });
	sandbox().clock.advance(10);
	expect(await runner.poll()).toBeNull();
	expect(runner.staticData.finishedJobs).toEqual(expect.arrayContaining([quick, slow]));
});

it('a job that finished before activation is history, unless existing ones are emitted once', async () => {
	const done = await startImport(sandbox(), memoryId, 5);
	sandbox().clock.advance(3);
	const fromNow = triggerRunner(sandbox(), jobParameters(done));
	expect(await fromNow.poll()).toBeNull();
	expect(await fromNow.poll()).toBeNull();
	const withExisting = triggerRunner(sandbox(), jobParameters(done, { options: { emitExisting: true } }));
	expect(jobIdsOf(itemsOf(await withExisting.poll()))).toEqual([done]);
	expect(await withExisting.poll()).toBeNull();
});

it('failed jobs start the workflow only with "Include Failed Jobs"', async () => {
	const failing = await startImport(sandbox(), memoryId, 300, FAIL_IMPORT_MARKER);
	const fine = await startImport(sandbox(), memoryId, 300);
	const onlyCompleted = triggerRunner(sandbox(), jobParameters([failing, fine]));
	const withFailed = triggerRunner(sandbox(), jobParameters([failing, fine], { includeFailed: true }));
	await onlyCompleted.poll();
	await withFailed.poll();
	sandbox().clock.advance(5);
	expect(jobIdsOf(itemsOf(await onlyCompleted.poll()))).toEqual([fine]);
	const items = itemsOf(await withFailed.poll());
	expect(jobIdsOf(items)).toEqual([failing, fine].sort());
	expect(items.find((item) => item.jobId === failing)).toMatchObject({ status: 'failed', outcome: 'failed', error: expect.any(String) });
	expect(await onlyCompleted.poll()).toBeNull();
	expect(await withFailed.poll()).toBeNull();
});

it('with "Wait for Vectorization", a job counts once vectorization has completed (or failed, if failures are included)', async () => {
	const vectorized = await startImport(sandbox(), memoryId, 1000);
	const vectorFails = await startImport(sandbox(), memoryId, 1000, FAIL_VECTORIZATION_MARKER);
	const runner = triggerRunner(sandbox(), jobParameters([vectorized, vectorFails], { waitForVectorization: true, includeFailed: true }));
	await runner.poll();
	// Import: 1 + 4 minutes; vectorization: 1 + 2 minutes after that.
	sandbox().clock.advance(6);
	expect(sandbox().state.importJobs.get(vectorized)?.status).toBe('completed');
	expect(await runner.poll()).toBeNull();
	sandbox().clock.advance(4);
	const items = itemsOf(await runner.poll());
	expect(items.find((item) => item.jobId === vectorized)).toMatchObject({ outcome: 'completed', vectorizationStatus: 'completed' });
	expect(items.find((item) => item.jobId === vectorFails)).toMatchObject({ outcome: 'vectorizationFailed', vectorizationStatus: 'failed' });
	expect(await runner.poll()).toBeNull();
});

it('a job id added later is watched from the last poll: a job that ended before it is history, one ending after it is emitted', async () => {
	const watched = await startImport(sandbox(), memoryId, 5);
	const runner = triggerRunner(sandbox(), jobParameters(watched));
	await runner.poll();
	const since = runner.staticData.since;
	const endedBefore = await startImport(sandbox(), memoryId, 5);
	sandbox().clock.advance(3);
	expect(jobIdsOf(itemsOf(await runner.poll()))).toEqual([watched]);
	// Ended after the last poll, before its id was added (as a workflow storing job ids would add it).
	const endedBetween = await startImport(sandbox(), memoryId, 5);
	sandbox().clock.advance(3);
	runner.setParameters(jobParameters([watched, endedBefore, endedBetween]));
	expect(jobIdsOf(itemsOf(await runner.poll()))).toEqual([endedBetween]);
	expect(runner.staticData.since).toBe(since);
	runner.setParameters(jobParameters([endedBetween]));
	expect(await runner.poll()).toBeNull();
	// Removed ones are remembered (a while), so one given again is not emitted again.
	runner.setParameters(jobParameters([endedBetween, watched]));
	expect(await runner.poll()).toBeNull();
	expect([...(runner.staticData.finishedJobs as string[])].sort()).toEqual([watched, endedBefore, endedBetween].sort());
});

it('an unknown job id is a clear error naming it; a malformed entry is refused before anything is sent', async () => {
	const known = await startImport(sandbox(), memoryId, 5);
	const unknown = 'aaaaaaaaaaaaaaaaaaaaaaaa';
	const runner = triggerRunner(sandbox(), jobParameters([known]));
	await runner.poll();
	runner.setParameters(jobParameters([known, unknown]));
	await expect(runner.poll()).rejects.toThrow(`Invalid Import Job IDs: ${unknown}`);
	const malformed = triggerRunner(sandbox(), jobParameters('good-id, bad/id'));
	sandbox().requests.reset();
	await expect(malformed.poll()).rejects.toThrow(`Invalid Import Job IDs: entry 2 ("bad/id") must not contain '/'`);
	expect(sandbox().requests.count()).toBe(0);
});

it('Fetch Test Event returns the job that finished last and moves nothing', async () => {
	const earlier = await startImport(sandbox(), memoryId, 5);
	sandbox().clock.advance(3);
	const later = await startImport(sandbox(), memoryId, 5);
	const running = await startImport(sandbox(), memoryId, 1000);
	sandbox().clock.advance(3);
	const runner = triggerRunner(sandbox(), jobParameters([earlier, later, running]));
	await runner.poll();
	const active = JSON.stringify(runner.staticData);
	runner.setMode('manual');
	const [sample] = itemsOf(await runner.poll());
	expect(sample).toMatchObject({ jobId: later, outcome: 'completed' });
	expect(JSON.stringify(runner.staticData)).toBe(active);

	const none = triggerRunner(sandbox(), jobParameters([running]), { mode: 'manual' });
	await expect(none.poll()).rejects.toThrow('None of the 1 watched import jobs has finished successfully yet');
});
