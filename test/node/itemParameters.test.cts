// Unit fields and IDs given as `={{ $json.<field> }}` (the defaults) or as fixed values are read straight from
// the item, without n8n's expression engine; any other expression still goes through it. Both ways must give the
// same requests, the same output and the same errors: each case runs once with the plain reference and once with
// an expression that reads the same field the general way (`$json["field"]`, `$json.field + ''`).
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { byId, failure, run, startStub, useSandbox } from './setup.cts';
import type { Run, Stub } from './setup.cts';

const sandbox = useSandbox();

/** The general-path twin of a plain field reference: the same field, read in a way the fast path does not take. */
const general = (field: string) => `={{ $json["${field}"] }}`;
const plain = (field: string) => `={{ $json.${field} }}`;

interface Sent {
	run: Run;
	requests: Array<{ path: string; body: unknown }>;
}

/** Runs the node against a server that accepts everything, and returns what it sent and output. */
async function sendTo(stub: Stub, parameters: INodeParameters, items: INodeExecutionData[], continueOnFail = false): Promise<Sent> {
	stub.requests.length = 0;
	const result = await run(sandbox(), parameters, { items, baseUrl: stub.baseUrl, continueOnFail });
	const requests = stub.requests.map((request) => ({ path: request.url, body: JSON.parse(request.body.toString('utf8')) as unknown }));
	return { run: result, requests };
}

let stub: Stub;
beforeAll(async () => {
	let jobs = 0;
	stub = await startStub((req, res) => {
		const answer = req.url?.includes('/items/import') ? { jobId: `job-${jobs++}`, status: 'pending' } : { success: true, imported: 1 };
		res.writeHead(201, { 'content-type': 'application/json' });
		res.end(JSON.stringify(answer));
	});
});
afterAll(async () => {
	await stub.close();
});

const contentItems: INodeExecutionData[] = [
	{ json: { sourceText: '  Save ', targetText: ' Speichern  ', elementId: ' button.save ', type: 'ui', language: 'de' } },
	{ json: { sourceText: 42, targetText: 'zweiundvierzig', language: 'de' } },
	{ json: { sourceText: 'Cancel', targetText: 'Abbrechen', elementId: '', type: null, language: ' fr ' } },
];

describe('Content > Import: plain references and the general path give the same', () => {
	const parameters = (read: (field: string) => string): INodeParameters => ({
		resource: 'content',
		operation: 'import',
		targetLanguage: read('language'),
		sourceText: read('sourceText'),
		targetText: read('targetText'),
		elementId: read('elementId'),
		type: read('type'),
	});

	it('requests and output, with spaces, numbers, empty and missing optional fields', async () => {
		const fast = await sendTo(stub, parameters(plain), contentItems);
		const slow = await sendTo(stub, parameters(general), contentItems);

		expect(fast.run.error).toBeUndefined();
		expect(fast.requests).toEqual(slow.requests);
		expect(fast.run.json).toEqual(slow.run.json);
		expect(fast.requests).toEqual([
			{
				path: '/integration/content/import',
				body: {
					targetLanguage: 'de',
					translations: [
						{ sourceText: '  Save ', targetText: ' Speichern  ', elementId: 'button.save', type: 'ui' },
						{ sourceText: '42', targetText: 'zweiundvierzig' },
					],
				},
			},
			{ path: '/integration/content/import', body: { targetLanguage: 'fr', translations: [{ sourceText: 'Cancel', targetText: 'Abbrechen' }] } },
		]);
	});

	it("the same as an expression that computes the text (`$json.sourceText + ''`)", async () => {
		const items = contentItems.slice(0, 2);
		const computed = { ...parameters(plain), sourceText: "={{ $json.sourceText + '' }}" };

		const fast = await sendTo(stub, parameters(plain), items);
		const slow = await sendTo(stub, computed, items);

		expect(fast.requests).toEqual(slow.requests);
		expect(fast.run.json).toEqual(slow.run.json);
	});

	it.each([
		['missing', { targetText: 'B', language: 'de' }, 'Invalid Source Text (item 1): must not be empty'],
		['empty', { sourceText: '', targetText: 'B', language: 'de' }, 'Invalid Source Text (item 1): must not be empty'],
		['only spaces', { sourceText: '   ', targetText: 'B', language: 'de' }, 'Invalid Source Text (item 1): must not be empty'],
		['an object', { sourceText: { text: 'A' }, targetText: 'B', language: 'de' }, 'Invalid Source Text (item 1): must be text, got an object'],
		['a list', { sourceText: ['A'], targetText: 'B', language: 'de' }, 'Invalid Source Text (item 1): must be text, got a list'],
		['a missing target language', { sourceText: 'A', targetText: 'B' }, 'Invalid Target Language (item 1): must not be empty'],
	])('a field that is %s fails the same way, naming the field and the item, before any request', async (_what, json, message) => {
		const items = [contentItems[0], { json }];

		const fast = await sendTo(stub, parameters(plain), items);
		const slow = await sendTo(stub, parameters(general), items);

		expect(failure(fast.run).message).toBe(message);
		expect(failure(slow.run).message).toBe(message);
		expect(failure(fast.run).itemIndex).toBe(1);
		expect(fast.requests).toEqual([]);
	});

	it('with Continue On Fail, the same error items in the same places', async () => {
		const items = [contentItems[0], { json: { targetText: 'B', language: 'de' } }, contentItems[2]];

		const fast = await sendTo(stub, parameters(plain), items, true);
		const slow = await sendTo(stub, parameters(general), items, true);

		expect(fast.run.json).toEqual(slow.run.json);
		expect(fast.run.json[1]).toMatchObject({ error: 'Invalid Source Text (item 1): must not be empty' });
		expect(fast.requests).toEqual(slow.requests);
	});
});

describe('Memory > Import Items: plain references and the general path give the same', () => {
	const memoryItems: INodeExecutionData[] = [
		{ json: { memory: 'memory-a', units: [{ sourceText: 'Yes', targetText: 'Oui' }, { sourceText: 'No', targetText: 'Non', targetLanguage: 'fr-CA' }] } },
		{ json: { memory: 'memory-b', units: [{ sourceText: ' Hi ', targetText: ' Salut ' }] } },
	];
	const parameters = (read: (field: string) => string, source: string): INodeParameters => ({
		resource: 'memory',
		operation: 'importItems',
		memoryId: byId(read('memory')),
		unitsSource: source,
		units: read('units'),
		sourceLanguage: 'en',
		targetLanguage: 'fr',
	});

	it('units from a field, the memory ID from the item, and a fixed Units Source', async () => {
		const fast = await sendTo(stub, parameters(plain, 'field'), memoryItems);
		const slow = await sendTo(stub, parameters(general, '={{ "field" }}'), memoryItems);

		expect(fast.run.error).toBeUndefined();
		expect(fast.requests).toEqual(slow.requests);
		expect(fast.run.json.map(({ jobId: _jobId, ...job }) => job)).toEqual(slow.run.json.map(({ jobId: _jobId, ...job }) => job));
		expect(fast.requests).toEqual([
			{
				path: '/integration/memories/memory-a/items/import',
				body: {
					items: [
						{ sourceLanguage: 'en', targetLanguage: 'fr', sourceText: 'Yes', targetText: 'Oui' },
						{ sourceLanguage: 'en', targetLanguage: 'fr-CA', sourceText: 'No', targetText: 'Non' },
					],
				},
			},
			{ path: '/integration/memories/memory-b/items/import', body: { items: [{ sourceLanguage: 'en', targetLanguage: 'fr', sourceText: ' Hi ', targetText: ' Salut ' }] } },
		]);
	});

	it('a fixed memory ID is used as given, as the general path gives it', async () => {
		const fixed = { ...parameters(plain, 'field'), memoryId: byId('memory-c') };
		const picked = { ...fixed, memoryId: { __rl: true, mode: 'list', value: 'memory-c', cachedResultName: 'C' } };
		const computed = { ...fixed, memoryId: byId('={{ "memory-" + "c" }}') };

		const results = [await sendTo(stub, fixed, memoryItems), await sendTo(stub, picked, memoryItems), await sendTo(stub, computed, memoryItems)];

		for (const result of results) expect(result.requests.map((request) => request.path)).toEqual(['/integration/memories/memory-c/items/import']);
	});

	it.each([
		['missing', {}, 'Invalid Memory (item 1): the ID must not be empty'],
		['empty', { memory: '' }, 'Invalid Memory (item 1): the ID must not be empty'],
		['a path', { memory: '../x' }, "Invalid Memory (item 1): the ID must not contain '/'"],
	])('a memory ID that is %s fails the same way on both paths', async (_what, json, message) => {
		const items = [memoryItems[0], { json: { ...json, units: [{ sourceText: 'A', targetText: 'B' }] } }];

		const fast = await sendTo(stub, parameters(plain, 'field'), items);
		const slow = await sendTo(stub, parameters(general, 'field'), items);

		expect(failure(fast.run).message).toBe(message);
		expect(failure(slow.run).message).toBe(message);
		expect(fast.requests).toEqual([]);
	});

	it.each([
		['missing', {}, 'Invalid Units (item 1): must be a list of units, got an empty value'],
		['not JSON', { units: 'no' }, 'Invalid Units (item 1): must be a list of units (JSON array), got text that is not JSON'],
		['a list with a unit without text', { units: [{ sourceText: 'A' }] }, 'Invalid Units > unit 1 targetText (item 1): must not be empty'],
	])('units that are %s fail the same way on both paths', async (_what, json, message) => {
		const items = [memoryItems[0], { json: { memory: 'memory-a', ...json } }];

		const fast = await sendTo(stub, parameters(plain, 'field'), items);
		const slow = await sendTo(stub, parameters(general, 'field'), items);

		expect(failure(slow.run).message).toBe(message);
		expect(failure(fast.run).message).toBe(message);
		expect(fast.requests).toEqual([]);
	});
});
