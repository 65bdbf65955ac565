// Memory Create -> Import Items (into the memory just created, by expression) -> Get Import Job (by the
// job id the import returned), through the real engine; units come from the first node by paired item.
import { memoryItemKey } from '../../sandbox/domain/importJobs.cts';
import { nodeOutput } from '../harness/engine.cts';
import { byId, jsonOf, ollangNode, pairedIndexes, runChain, useSandbox } from './helpers.cts';

const sandbox = useSandbox();

const glossaries = [
	{ json: { title: 'Engine test glossary A', source: 'Save', target: 'Speichern' } },
	{ json: { title: 'Engine test glossary B', source: 'Open file', target: 'Datei öffnen' } },
];

const createMemory = ollangNode('Create Memory', { resource: 'memory', operation: 'create', title: '={{ $json.title }}' });
const importItems = ollangNode('Import Items', {
	resource: 'memory',
	operation: 'importItems',
	memoryId: byId('={{ $json.id }}'),
	unitsSource: 'item',
	sourceLanguage: 'en',
	targetLanguage: 'de',
	sourceText: "={{ $('Test Items').item.json.source }}",
	targetText: "={{ $('Test Items').item.json.target }}",
});
const getImportJob = ollangNode('Get Import Job', { resource: 'memory', operation: 'getImportJob', jobId: '={{ $json.jobId }}' });

describe('Memory Create -> Import Items -> Get Import Job', () => {
	it('creates the memories, imports each item into its own memory, and reads each job back', async () => {
		const run = await runChain(sandbox(), glossaries, [createMemory, importItems, getImportJob]);

		const created = jsonOf(nodeOutput(run, 'Create Memory'));
		const imported = nodeOutput(run, 'Import Items');
		const jobs = nodeOutput(run, 'Get Import Job');
		const state = sandbox().state;

		expect(run.status).toBe('success');
		expect(created.map((memory) => state.memories.get(String(memory.id))?.title)).toEqual(
			glossaries.map((item) => item.json.title),
		);
		// One job per memory, in item order, each for the memory its item created.
		expect(jsonOf(imported).map((job) => job.memoryId)).toEqual(created.map((memory) => memory.id));
		expect(pairedIndexes(imported)).toEqual([0, 1]);
		expect(jsonOf(imported).map((job) => state.importJobs.get(String(job.jobId))?.memoryId)).toEqual(
			created.map((memory) => memory.id),
		);
		expect(jsonOf(jobs)).toEqual(
			jsonOf(imported).map((job) =>
				expect.objectContaining({ jobId: job.jobId, status: state.importJobs.get(String(job.jobId))?.status }),
			),
		);
		expect(pairedIndexes(jobs)).toEqual([0, 1]);
	});

	it('the units that reached each memory are the ones its input item named', async () => {
		const run = await runChain(sandbox(), glossaries, [createMemory, importItems]);
		const created = jsonOf(nodeOutput(run, 'Create Memory'));

		// Jobs take simulated minutes: let them finish.
		sandbox().clock.advance(10);

		created.forEach((memory, index) => {
			const { source, target } = glossaries[index].json;
			const items = sandbox().state.memories.get(String(memory.id))?.items;
			const key = memoryItemKey({ sourceLanguage: 'en', targetLanguage: 'de', sourceText: source });
			expect(items?.size).toBe(1);
			expect(items?.get(key)).toMatchObject({ sourceText: source, targetText: target });
		});
	});
});
