import { FAIL_IMPORT_MARKER, FAIL_VECTORIZATION_MARKER } from '../../sandbox/index.cts';
import { byId, failure, pairedIndexes, run, useSandbox, sentInThisProcess } from './setup.cts';

const MISSING = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const memory = (operation: string, extra: Record<string, unknown> = {}) => ({ resource: 'memory', operation, ...extra });

describe('memory operations on a sandbox the tests drive', () => {
	const sandbox = useSandbox();

	describe('Memory > Create', () => {
		it('creates an empty memory', async () => {
			const result = await run(sandbox(), memory('create', { title: 'Support macros' }));

			expect(result.json[0]).toMatchObject({ title: 'Support macros', memoryItemsCount: 0, id: expect.any(String) });
			expect(sandbox().state.memories.get(String(result.json[0].id))?.title).toBe('Support macros');
		});

		it('refuses an empty title before any request', async () => {
			const error = failure(await run(sandbox(), memory('create', { title: '={{ $json.title }}' })));

			expect(error.message).toBe('Invalid Title (item 0): must not be empty');
			expect(sandbox().requests.count()).toBe(0);
		});
	});

	describe('Memory > Get', () => {
		it('returns the memory', async () => {
			const memoryId = sandbox().fixtures.memories[1];

			const result = await run(sandbox(), memory('get', { memoryId: byId(memoryId) }));

			expect(result.json).toEqual([expect.objectContaining({ id: memoryId, title: sandbox().state.memories.get(memoryId)?.title })]);
		});

		it('404 (shape B) for an unknown memory', async () => {
			const error = failure(await run(sandbox(), memory('get', { memoryId: byId(MISSING) })));

			expect(error.message).toBe(`The Ollang API answered 404 Not Found: Translation memory ${MISSING} not found`);
		});
	});

	describe('Memory > Get Many', () => {
		it('Return All gives every memory; Limit the first ones', async () => {
			const all = await run(sandbox(), memory('getMany', { returnAll: true }));
			const two = await run(sandbox(), memory('getMany', { returnAll: false, limit: 2 }));

			expect(all.json.map((row) => row.id).sort()).toEqual([...sandbox().state.memories.keys()].sort());
			expect(two.json).toEqual(all.json.slice(0, 2));
		});

		it('filters by title, case-insensitively', async () => {
			const result = await run(sandbox(), memory('getMany', { returnAll: true, filters: { title: 'legal' } }));

			expect(result.json.map((row) => row.title)).toEqual(['Legal Glossary']);
		});
	});

	describe('Memory > Rename', () => {
		it('changes the title', async () => {
			const memoryId = sandbox().fixtures.memories[2];

			const result = await run(sandbox(), memory('rename', { memoryId: byId(memoryId), title: 'UI Strings v2' }));

			expect(result.json[0]).toMatchObject({ id: memoryId, title: 'UI Strings v2' });
			expect(sandbox().state.memories.get(memoryId)?.title).toBe('UI Strings v2');
		});

		it('404 for an unknown memory', async () => {
			expect(failure(await run(sandbox(), memory('rename', { memoryId: byId(MISSING), title: 'x' }))).httpCode).toBe('404');
		});
	});

	describe('Memory > Delete', () => {
		it("turns the 204 into a useful item; its answer lost, n8n's Retry (404, and a read finds it gone) reads as already applied", async () => {
			const created = await run(sandbox(), memory('create', { title: 'Short-lived' }));
			const memoryId = String(created.json[0].id);
			sandbox().faults.add({ method: 'DELETE', kind: 'drop', when: 'after', times: 1 });

			const lost = await run(sandbox(), memory('delete', { memoryId: byId(memoryId) }), { staticData: {} });
			sandbox().requests.reset();
			const retried = await run(sandbox(), memory('delete', { memoryId: byId(memoryId) }), { retryOf: lost, staticData: {} });

			expect(failure(lost).description).toContain('may have been applied');
			expect(sandbox().state.memories.has(memoryId)).toBe(false);
			expect(retried.json).toEqual([{ success: true, memoryId, deleted: true, alreadyApplied: true, ...sentInThisProcess() }]);
			expect(sandbox().requests.log.map((record) => `${record.method} ${record.status}`)).toEqual(['DELETE 404', 'GET 404']);
		});

		it('a delete of a memory already gone, in a new execution, is the API\'s 404 (a mistyped ID is not "done")', async () => {
			const created = await run(sandbox(), memory('create', { title: 'Deleted twice' }));
			const memoryId = String(created.json[0].id);

			const result = await run(sandbox(), memory('delete', { memoryId: byId(memoryId) }));
			const again = await run(sandbox(), memory('delete', { memoryId: byId(memoryId) }));

			expect(result.json).toEqual([{ success: true, memoryId, deleted: true }]);
			expect(failure(again).httpCode).toBe('404');
		});
	});

	describe('Memory > Import Items', () => {
		const languagesFromItem = { sourceLanguage: '={{ $json.sourceLanguage }}', targetLanguage: '={{ $json.targetLanguage }}' };
		const importItems = (extra: Record<string, unknown>) =>
			memory('importItems', { memoryId: byId(sandbox().fixtures.memories[0]), ...languagesFromItem, ...extra });
		const unitItem = (index: number) => ({ json: { sourceLanguage: 'en', targetLanguage: 'fr', sourceText: `Hello ${index}`, targetText: `Bonjour ${index}` } });
		const importRequests = () => sandbox().requests.count({ method: 'POST', path: '/integration/memories/:memoryId/items/import' });

		it('sends the units of all items as one job and pairs the job with every item', async () => {
			const result = await run(sandbox(), importItems({}), { items: [unitItem(1), unitItem(2), unitItem(3)] });

			expect(importRequests()).toBe(1);
			expect(result.json).toEqual([
				expect.objectContaining({ memoryId: sandbox().fixtures.memories[0], jobId: expect.any(String), status: 'pending', unitsSent: 3 }),
			]);
			expect(pairedIndexes(result)).toEqual([[0, 1, 2]]);
			expect(sandbox().state.importJobs.get(String(result.json[0].jobId))?.pendingItems).toHaveLength(3);
		});

		it('splits any number of units into requests of at most 1000: one item per job', async () => {
			const units = Array.from({ length: 2500 }, (_, index) => ({ sourceText: `Line ${index}`, targetText: `Ligne ${index}` }));

			const result = await run(
				sandbox(),
				importItems({ unitsSource: 'field', units: '={{ $json.units }}', sourceLanguage: 'en', targetLanguage: 'fr' }),
				{ items: [{ json: { units } }] },
			);

			expect(importRequests()).toBe(3);
			expect(result.json.map((job) => job.unitsSent)).toEqual([1000, 1000, 500]);
			expect(pairedIndexes(result)).toEqual([0, 0, 0]);
		});

		it('groups by memory and by the chosen request size', async () => {
			const [first, second] = sandbox().fixtures.memories;
			const items = [0, 1, 2].map((index) => ({ json: { ...unitItem(index).json, memory: first } }));
			items.push({ json: { ...unitItem(9).json, memory: second } });

			const result = await run(
				sandbox(),
				importItems({ memoryId: byId('={{ $json.memory }}'), options: { unitsPerRequest: 2 } }),
				{ items },
			);

			expect(result.json.map((job) => [job.memoryId, job.unitsSent])).toEqual([
				[first, 2],
				[first, 1],
				[second, 1],
			]);
			expect(pairedIndexes(result)).toEqual([[0, 1], 2, 3]);
		});

		it.each([
			[{ json: { sourceLanguage: 'en', targetLanguage: 'fr', targetText: 'Bonjour' } }, 'Invalid Source Text (item 0): must not be empty'],
			[{ json: { sourceLanguage: 'en', sourceText: 'Hello', targetText: 'Bonjour' } }, 'Invalid Target Language (item 0): must not be empty'],
		])('refuses a unit missing a field before any request: %j', async (item, message) => {
			const error = failure(await run(sandbox(), importItems({}), { items: [item] }));

			expect(error.message).toBe(message);
			expect(sandbox().requests.count()).toBe(0);
		});

		it('takes missing unit languages from the fields, and refuses a unit without targetText', async () => {
			const error = failure(
				await run(
					sandbox(),
					importItems({ unitsSource: 'field', units: '={{ $json.units }}', sourceLanguage: 'en', targetLanguage: 'fr' }),
					{ items: [{ json: { units: [{ sourceText: 'A', targetText: 'B' }, { sourceText: 'C' }] } }] },
				),
			);

			expect(error.message).toBe('Invalid Units > unit 2 targetText (item 0): must not be empty');
			expect(sandbox().requests.count()).toBe(0);
		});

		it('404 for an unknown memory', async () => {
			const error = failure(await run(sandbox(), importItems({ memoryId: byId(MISSING) }), { items: [unitItem(1)] }));

			expect(error.httpCode).toBe('404');
			expect(error.description).toContain('did not act on this request');
		});

		it('waits within the timeout, then reports the job that did not finish', async () => {
			const error = failure(
				await run(sandbox(), importItems({ waitForCompletion: true, options: { timeoutSeconds: 1, pollIntervalSeconds: 0.5 } }), {
					items: [unitItem(1)],
				}),
			);

			expect(error.message).toMatch(/^Memory import job \w+ did not finish within 1 s: the job is pending \(0%\)$/);
			expect(error.description).toContain('Get Import Job');
		});
	});

	describe('Memory > Get Import Job', () => {
		it('returns the job of an import', async () => {
			const imported = await run(
				sandbox(),
				memory('importItems', { memoryId: byId(sandbox().fixtures.memories[0]), sourceLanguage: 'en', targetLanguage: 'de' }),
				{ items: [{ json: { sourceText: 'Yes', targetText: 'Ja' } }] },
			);
			const jobId = String(imported.json[0].jobId);
			sandbox().clock.advance(30);

			const result = await run(sandbox(), memory('getImportJob', { jobId }));

			expect(result.json[0]).toMatchObject({ jobId, status: 'completed', progress: 100, itemsCount: 1 });
		});

		it('404 for an unknown job', async () => {
			const error = failure(await run(sandbox(), memory('getImportJob', { jobId: MISSING })));

			expect(error.message).toBe(`The Ollang API answered 404 Not Found: Import job ${MISSING} not found`);
		});
	});
});

describe('Memory > Import Items, waiting, on a sandbox whose clock runs 1200 times faster than wall time', () => {
	const sandbox = useSandbox({ realtime: { speed: 1200 } });
	const waitParams = (extra: Record<string, unknown> = {}) => ({
		resource: 'memory',
		operation: 'importItems',
		memoryId: byId('={{ $json.memory }}'),
		sourceLanguage: 'en',
		targetLanguage: 'es',
		waitForCompletion: true,
		options: { pollIntervalSeconds: 0.5, timeoutSeconds: 30 },
		...extra,
	});
	const unit = (memory: string, sourceText: string) => ({ json: { memory, sourceText, targetText: `${sourceText} (es)` } });

	it('waits until each job completes and outputs the finished job', async () => {
		const memoryId = sandbox().fixtures.memories[0];
		const params = waitParams();

		const result = await run(sandbox(), params, { items: [unit(memoryId, 'Good morning'), unit(memoryId, 'Good night')] });

		expect(result.error).toBeUndefined();
		expect(result.json).toEqual([expect.objectContaining({ status: 'completed', itemsCount: 2, progress: 100, unitsSent: 2 })]);
		expect(sandbox().requests.count({ method: 'GET', path: '/integration/memories/import-jobs/:jobId' })).toBeGreaterThan(0);
	});

	it('optionally waits for vectorization too', async () => {
		const memoryId = sandbox().fixtures.memories[1];
		const params = waitParams({ waitForVectorization: true });

		const result = await run(sandbox(), params, { items: [unit(memoryId, 'Thanks')] });

		expect(result.json).toEqual([expect.objectContaining({ status: 'completed', vectorizationStatus: 'completed' })]);
	});

	it('a failed job becomes an error on its items; the other jobs keep their results (continue on fail)', async () => {
		const [good, bad] = sandbox().fixtures.memories;
		const params = waitParams();

		const result = await run(sandbox(), params, {
			items: [unit(good, 'Fine'), unit(bad, `Broken ${FAIL_IMPORT_MARKER}`), unit(good, 'Also fine')],
			continueOnFail: true,
		});

		expect(result.json).toHaveLength(2);
		expect(result.json[0]).toMatchObject({ memoryId: good, status: 'completed', unitsSent: 2 });
		expect(String(result.json[1].error)).toMatch(/^Memory import job \w+ failed: Import failed at unit 1/);
		expect(pairedIndexes(result)).toEqual([[0, 2], 1]);
	});

	it('without continue on fail, a failed job fails the node with the service\'s reason', async () => {
		const params = waitParams();

		const error = failure(await run(sandbox(), params, { items: [unit(sandbox().fixtures.memories[2], `x ${FAIL_IMPORT_MARKER}`)] }));

		expect(error.message).toContain('failed: Import failed at unit 1');
		expect(error.description).toContain('were not imported');
	});

	it('a failed vectorization is an error when waiting for it, saying exact lookup works', async () => {
		const params = waitParams({ waitForVectorization: true });

		const error = failure(await run(sandbox(), params, { items: [unit(sandbox().fixtures.memories[0], `v ${FAIL_VECTORIZATION_MARKER}`)] }));

		expect(error.message).toMatch(/^Vectorization of memory import job \w+ failed: /);
		expect(error.description).toContain('available to exact lookup');
	});
});
