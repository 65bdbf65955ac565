import { FAIL_IMPORT_MARKER, FAIL_VECTORIZATION_MARKER, type Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeB, useSandbox } from './helpers.cts';

const MEMORY_KEYS = ['createdAt', 'id', 'memoryItemsCount', 'title', 'updatedAt'];

function units(count: number, prefix = 'Unit', extra: Partial<Record<'sourceText' | 'targetText', string>> = {}) {
	return Array.from({ length: count }, (_, i) => ({ sourceLanguage: 'en', targetLanguage: i % 2 ? 'de' : 'fr', sourceText: `${prefix} ${i}`, targetText: `${prefix} ${i} translated`, ...extra }));
}

async function createMemory(sandbox: Sandbox, title: string): Promise<string> {
	const response = await call(sandbox, 'POST', '/integration/memories', { body: { title } });
	expect(response.status).toBe(201);
	return response.body.id;
}

const importItems = (sandbox: Sandbox, memoryId: string, items: unknown) => call(sandbox, 'POST', `/integration/memories/${memoryId}/items/import`, { body: { items } });
const getJob = async (sandbox: Sandbox, jobId: string) => (await call(sandbox, 'GET', `/integration/memories/import-jobs/${jobId}`)).body;
const getMemory = async (sandbox: Sandbox, memoryId: string) => (await call(sandbox, 'GET', `/integration/memories/${memoryId}`)).body;

describe('translation memories', () => {
	const sandbox = useSandbox();

	it('lists the memories as a plain array', async () => {
		const response = await call(sandbox(), 'GET', '/integration/memories');
		expect(response.status).toBe(200);
		expect(response.body.map((memory: any) => memory.id)).toEqual(sandbox().fixtures.memories);
		for (const memory of response.body) {
			expect(Object.keys(memory).sort()).toEqual(MEMORY_KEYS);
			expect(memory.memoryItemsCount).toBe(20);
		}
	});

	it('creates (201), gets, renames and deletes a memory', async () => {
		const id = await createMemory(sandbox(), 'Release notes EN-JA');
		const created = await getMemory(sandbox(), id);
		expect(created).toEqual({ id, title: 'Release notes EN-JA', memoryItemsCount: 0, createdAt: sandbox().clock.now().toISOString(), updatedAt: created.createdAt });
		expect((await call(sandbox(), 'GET', '/integration/memories')).body.map((memory: any) => memory.id)).toContain(id);

		sandbox().clock.advance(1);
		const renamed = await call(sandbox(), 'PATCH', `/integration/memories/${id}`, { body: { title: 'Release notes (JA)' } });
		expect(renamed.status).toBe(200);
		expect(renamed.body).toEqual({ ...created, title: 'Release notes (JA)', updatedAt: sandbox().clock.now().toISOString() });

		const deleted = await call(sandbox(), 'DELETE', `/integration/memories/${id}`);
		expect(deleted.status).toBe(204);
		expect(deleted.text).toBe('');
		expect((await call(sandbox(), 'GET', `/integration/memories/${id}`)).status).toBe(404);
		expect((await call(sandbox(), 'GET', '/integration/memories')).body.map((memory: any) => memory.id)).not.toContain(id);
	});

	it('deleting removes the stored units, and renaming keeps them', async () => {
		const id = sandbox().fixtures.memories[0];
		const stored = sandbox().state.memories.get(id)!;
		expect((await call(sandbox(), 'PATCH', `/integration/memories/${id}`, { body: { title: 'Renamed' } })).body.memoryItemsCount).toBe(20);
		const items = stored.items;
		expect((await call(sandbox(), 'DELETE', `/integration/memories/${id}`)).status).toBe(204);
		expect(items.size).toBe(0);
		expect(sandbox().state.memories.has(id)).toBe(false);
	});

	it('answers 404 shape B for an unknown memory on get, rename, delete and import', async () => {
		const unknown = 'ffffffffffffffffffffffff';
		for (const [method, path, body] of [
			['GET', `/integration/memories/${unknown}`, undefined],
			['PATCH', `/integration/memories/${unknown}`, { title: 'x' }],
			['DELETE', `/integration/memories/${unknown}`, undefined],
			['POST', `/integration/memories/${unknown}/items/import`, { items: units(1) }],
		] as const) {
			const response = await call(sandbox(), method, path, { body });
			expect(response.status).toBe(404);
			expectShapeB(response.body, 404, 'Not Found');
		}
	});

	it('validates titles (400 shape B)', async () => {
		const empty = await call(sandbox(), 'POST', '/integration/memories', { body: { title: '  ' } });
		expect(empty.status).toBe(400);
		expect(empty.body).toEqual({ statusCode: 400, message: ['title should not be empty'], error: 'Bad Request' });
		const missing = await call(sandbox(), 'PATCH', `/integration/memories/${sandbox().fixtures.memories[1]}`, { body: {} });
		expect(missing.body.message).toEqual(['title should not be empty']);
		const wrongType = await call(sandbox(), 'POST', '/integration/memories', { body: { title: 5 } });
		expect(wrongType.body.message).toEqual(['title must be a string']);
	});
});

describe('memory item import and import jobs', () => {
	const sandbox = useSandbox();

	it('queues 1 to 1000 units (201 { jobId, status: pending }) and refuses 0 or 1001 (400)', async () => {
		const memoryId = sandbox().fixtures.memories[0];
		const accepted = await importItems(sandbox(), memoryId, units(1000));
		expect(accepted.status).toBe(201);
		expect(accepted.body).toEqual({ jobId: expect.stringMatching(/^[0-9a-f]{24}$/), status: 'pending' });
		const tooMany = await importItems(sandbox(), memoryId, units(1001));
		expect(tooMany.status).toBe(400);
		expect(tooMany.body).toEqual({ statusCode: 400, message: ['items must contain no more than 1000 elements'], error: 'Bad Request' });
		const none = await importItems(sandbox(), memoryId, []);
		expect(none.body.message).toEqual(['items should not be empty']);
		const broken = await importItems(sandbox(), memoryId, [{ sourceLanguage: 'en', sourceText: 'Hi' }]);
		expect(broken.body.message).toEqual(['items.0.targetLanguage should not be empty', 'items.0.targetText should not be empty']);
	});

	it('runs pending -> processing (rising progress) -> completed, then vectorization to completed', async () => {
		const memoryId = await createMemory(sandbox(), 'Job timeline');
		const { jobId } = (await importItems(sandbox(), memoryId, units(600))).body;
		const snapshots = [await getJob(sandbox(), jobId)];
		for (let minute = 1; minute <= 8; minute++) {
			sandbox().clock.advance(1);
			snapshots.push(await getJob(sandbox(), jobId));
		}
		expect(snapshots[0]).toEqual({
			jobId,
			status: 'pending',
			progress: 0,
			itemsCount: null,
			error: null,
			completedAt: null,
			vectorizationStatus: null,
			vectorizationProgress: null,
			vectorizationError: null,
			vectorizationCompletedAt: null,
		});
		expect(snapshots.map((job) => [job.status, job.progress])).toEqual([
			['pending', 0],
			['processing', 0],
			['processing', 33],
			['processing', 67],
			['completed', 100],
			['completed', 100],
			['completed', 100],
			['completed', 100],
			['completed', 100],
		]);
		expect(snapshots.slice(3).map((job) => [job.vectorizationStatus, job.vectorizationProgress])).toEqual([
			[null, null],
			['pending', 0],
			['processing', 0],
			['processing', 50],
			['completed', 100],
			['completed', 100],
		]);
		const done = snapshots[8];
		expect(done.itemsCount).toBe(600);
		expect(Date.parse(done.completedAt)).toBeLessThan(Date.parse(done.vectorizationCompletedAt));
		// Units become visible to the memory when the job completes, not before.
		expect(snapshots[3].itemsCount).toBeNull();
		expect((await getMemory(sandbox(), memoryId)).memoryItemsCount).toBe(600);
	});

	it('re-importing the same units updates them instead of adding copies', async () => {
		const memoryId = await createMemory(sandbox(), 'Upsert');
		await importItems(sandbox(), memoryId, units(10));
		sandbox().clock.advance(5);
		const second = await importItems(sandbox(), memoryId, units(10).map((unit) => ({ ...unit, targetText: `${unit.targetText} v2` })));
		sandbox().clock.advance(5);
		expect((await getJob(sandbox(), second.body.jobId)).itemsCount).toBe(10);
		expect((await getMemory(sandbox(), memoryId)).memoryItemsCount).toBe(10);
		const stored = [...sandbox().state.memories.get(memoryId)!.items.values()];
		expect(stored.every((item) => item.targetText.endsWith(' v2'))).toBe(true);
	});

	it('fails a job whose units carry the failure marker, with an error and nothing stored', async () => {
		const memoryId = await createMemory(sandbox(), 'Failing');
		const items = units(4);
		items[2].sourceText = `Broken ${FAIL_IMPORT_MARKER}`;
		const { jobId } = (await importItems(sandbox(), memoryId, items)).body;
		sandbox().clock.advance(10);
		const job = await getJob(sandbox(), jobId);
		expect(job).toEqual(expect.objectContaining({ status: 'failed', itemsCount: null, completedAt: null, vectorizationStatus: null }));
		expect(job.error).toMatch(/unit 3/);
		expect((await getMemory(sandbox(), memoryId)).memoryItemsCount).toBe(0);
	});

	it('fails vectorization on its marker after the import completed', async () => {
		const memoryId = await createMemory(sandbox(), 'Vector failure');
		const { jobId } = (await importItems(sandbox(), memoryId, units(3, 'Vec', { targetText: `text ${FAIL_VECTORIZATION_MARKER}` }))).body;
		sandbox().clock.advance(10);
		const job = await getJob(sandbox(), jobId);
		expect(job).toEqual(expect.objectContaining({ status: 'completed', itemsCount: 3, vectorizationStatus: 'failed', vectorizationCompletedAt: null }));
		expect(job.vectorizationError).toEqual(expect.any(String));
	});

	it('fails jobs at the configured failure rate, from the seeded RNG', async () => {
		const memoryId = await createMemory(sandbox(), 'Rates');
		sandbox().simulate.setJobFailureRate(0.5);
		const jobIds: string[] = [];
		for (let i = 0; i < 30; i++) jobIds.push((await importItems(sandbox(), memoryId, units(2, `Rate${i}`))).body.jobId);
		sandbox().clock.advance(10);
		const statuses = await Promise.all(jobIds.map(async (jobId) => (await getJob(sandbox(), jobId)).status));
		expect(statuses.filter((status) => status === 'failed').length).toBeGreaterThan(5);
		expect(statuses.filter((status) => status === 'completed').length).toBeGreaterThan(5);
		expect(new Set(statuses)).toEqual(new Set(['failed', 'completed']));
		sandbox().simulate.setJobFailureRate(0);
		expect(() => sandbox().simulate.setJobFailureRate(2)).toThrow(/between 0 and 1/);
	});

	it('fails a running job when its memory is deleted', async () => {
		const memoryId = await createMemory(sandbox(), 'Deleted mid-import');
		const { jobId } = (await importItems(sandbox(), memoryId, units(800))).body;
		sandbox().clock.advance(2);
		expect((await getJob(sandbox(), jobId)).status).toBe('processing');
		await call(sandbox(), 'DELETE', `/integration/memories/${memoryId}`);
		sandbox().clock.advance(10);
		expect(await getJob(sandbox(), jobId)).toEqual(expect.objectContaining({ status: 'failed', error: expect.stringMatching(/deleted/) }));
	});

	it('answers 404 shape B for an unknown job', async () => {
		const response = await call(sandbox(), 'GET', '/integration/memories/import-jobs/ffffffffffffffffffffffff');
		expect(response.status).toBe(404);
		expectShapeB(response.body, 404, 'Not Found');
		expect(response.body.message).toMatch(/not found/);
	});
});
