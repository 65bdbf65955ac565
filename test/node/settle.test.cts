// A lost answer is settled from the API's state, so n8n's Retry can finish (issue 27, item 8). Each protected write
// whose result the API lets the node read runs on three items; the second item's request is applied by the sandbox
// and its answer lost (a 500, or the connection dropped), so the run stops there. n8n's Retry of that failed
// execution then reads the API's state for the second item instead of stopping or sending it again, and sends the
// third: every item is applied exactly once. When the lost request was not applied (a 500 before the API acted), the
// retry sends it, once.
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import { memoryView } from '../../sandbox/api/memories.cts';
import { revisionView } from '../../sandbox/api/revisions.cts';
import { folderDocView } from '../../sandbox/domain/projects.cts';
import type { Sandbox } from '../../sandbox/index.cts';
import { binaryInputItem, deduplicationStore } from '../harness/engine.cts';
import { recordsOf } from '../../nodes/Ollang/actions/common/writeOnce/records';
import type { Run } from './setup.cts';
import { byId, failure, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();

/** The static data as n8n stores it between executions. */
const saved = (staticData: IDataObject): IDataObject => JSON.parse(JSON.stringify(staticData)) as IDataObject;

/** n8n's Retry of the failed run ("with currently saved workflow": the static data as saved after it). */
const retryOf = (s: Sandbox, failed: Run, parameters: INodeParameters, items: INodeExecutionData[], staticData: IDataObject) =>
	run(s, parameters, { items, staticData, retryOf: failed });

/** What a skipped item adds to the output. */
const repeatMarks = { alreadyApplied: true, appliedAt: expect.any(String), appliedInExecution: expect.any(String) };

/** The output without the repeat marks. */
function unmarked(json: Record<string, unknown>): Record<string, unknown> {
	const { alreadyApplied: _a, appliedAt: _b, appliedInExecution: _c, ...rest } = json;
	return rest;
}

async function apiGet(s: Sandbox, path: string): Promise<IDataObject> {
	const answer = await fetch(`${s.baseUrl}${path}`, { headers: { 'X-Api-Key': s.keys.owner } });
	return (await answer.json()) as IDataObject;
}

let unique = 0;
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHello\n';

interface Case {
	/** Operation as the node names it. */
	name: string;
	/** The POST path whose answer is lost. */
	path: string;
	parameters(): INodeParameters;
	/** Three input items, each asking for something of its own. */
	items(tag: string): INodeExecutionData[];
	/** How many times the API applied each item's request. */
	applied(items: INodeExecutionData[]): number[];
	/** The output of an item whose request the API applied once, as the API's answer would have made it. */
	expected(item: INodeExecutionData): Promise<Record<string, unknown>> | Record<string, unknown>;
}

const completedOrderIds = (count: number): string[] =>
	sandbox()
		.simulate.createOrders(count, { type: 'subtitle', level: 0, status: 'completed', progress: false })
		.map((order) => order.id);

const projectsNamed = (name: unknown) => [...sandbox().state.projects.values()].filter((project) => project.name === name);

const oneProject = async (name: unknown, extra: IDataObject): Promise<Record<string, unknown>> => {
	const [project] = projectsNamed(name);
	return { projectId: project.id, ...extra };
};

const cases: Case[] = [
	{
		name: 'Revision > Create',
		path: '/integration/revision/:orderId',
		parameters: () => ({ resource: 'revision', operation: 'create', orderId: byId('={{ $json.orderId }}'), type: 'syncError', time: '00:01:23' }),
		items: () => completedOrderIds(3).map((orderId) => ({ json: { orderId } })),
		applied: (items) =>
			items.map((item) => [...sandbox().state.revisions.values()].filter((revision) => revision.orderId === item.json.orderId).length),
		expected: (item) => {
			const [revision] = [...sandbox().state.revisions.values()].filter((entry) => entry.orderId === item.json.orderId);
			return revisionView(revision);
		},
	},
	{
		name: 'Memory > Create',
		path: '/integration/memories',
		parameters: () => ({ resource: 'memory', operation: 'create', title: '={{ $json.title }}' }),
		items: (tag) => [1, 2, 3].map((index) => ({ json: { title: `Glossary ${tag}-${index}` } })),
		applied: (items) =>
			items.map((item) => [...sandbox().state.memories.values()].filter((memory) => memory.title === item.json.title).length),
		expected: (item) => memoryView([...sandbox().state.memories.values()].find((memory) => memory.title === item.json.title)!),
	},
	{
		name: 'Folder > Attach Document',
		path: '/integration/folder/:folderId/docs',
		parameters: () => ({
			resource: 'folder',
			operation: 'attachDocument',
			folderId: byId(sandbox().fixtures.folders.writable),
			url: '={{ $json.url }}',
			documentType: 'glossary',
			additionalFields: { name: '={{ $json.name }}' },
		}),
		items: (tag) => [1, 2, 3].map((index) => ({ json: { name: `Terms ${tag}-${index}`, url: `https://example.com/terms-${tag}-${index}.pdf` } })),
		applied: (items) => items.map((item) => [...sandbox().state.folderDocs.values()].filter((doc) => doc.name === item.json.name).length),
		expected: (item) => {
			const doc = [...sandbox().state.folderDocs.values()].find((entry) => entry.name === item.json.name)!;
			return { success: true, ...folderDocView(doc) };
		},
	},
	{
		name: 'Folder > Upload Document',
		path: '/integration/folder/:folderId/docs/upload',
		parameters: () => ({
			resource: 'folder',
			operation: 'uploadDocument',
			folderId: byId(sandbox().fixtures.folders.writable),
			documentType: 'guideline',
			additionalFields: { name: '={{ $json.name }}' },
		}),
		items: (tag) =>
			[1, 2, 3].map((index) => ({
				...binaryInputItem(`guide ${tag} ${index}`, { fileName: `guide-${tag}-${index}.pdf`, mimeType: 'application/pdf' }),
				json: { name: `Guide ${tag}-${index}` },
			})),
		applied: (items) => items.map((item) => [...sandbox().state.folderDocs.values()].filter((doc) => doc.name === item.json.name).length),
		expected: (item) => {
			const doc = [...sandbox().state.folderDocs.values()].find((entry) => entry.name === item.json.name)!;
			return { success: true, ...folderDocView(doc), fileSize: doc.size };
		},
	},
	{
		name: 'Project > Create From URL',
		path: '/integration/project/create-by-url',
		parameters: () => ({ resource: 'project', operation: 'createFromUrl', url: 'https://cdn.example.com/media/launch.mp4', name: '={{ $json.name }}', sourceLanguage: 'en' }),
		items: (tag) => [1, 2, 3].map((index) => ({ json: { name: `Launch ${tag}-${index}` } })),
		applied: (items) => items.map((item) => projectsNamed(item.json.name).length),
		expected: async (item) => {
			const [project] = projectsNamed(item.json.name);
			return { projectId: project.id, ...(await apiGet(sandbox(), `/integration/project/${project.id}`)) };
		},
	},
	{
		name: 'Upload > Upload File',
		path: '/integration/upload/direct',
		parameters: () => ({ resource: 'upload', operation: 'uploadFile', sourceLanguage: 'en' }),
		items: (tag) =>
			[1, 2, 3].map((index) => binaryInputItem(`video ${tag} ${index}`, { fileName: `clip-${tag}-${index}.mp4`, mimeType: 'video/mp4' })),
		applied: (items) => items.map((item) => projectsNamed(item.binary?.data.fileName).length),
		expected: (item) =>
			oneProject(item.binary?.data.fileName, { fileName: item.binary?.data.fileName, fileSize: projectsNamed(item.binary?.data.fileName)[0].source.size, sourceLanguage: 'en' }),
	},
	{
		name: 'Upload > Upload From URL',
		path: '/integration/upload/direct-url',
		parameters: () => ({ resource: 'upload', operation: 'uploadFromUrl', url: '={{ $json.url }}', size: 4096, sourceLanguage: 'de' }),
		items: (tag) => [1, 2, 3].map((index) => ({ json: { url: `https://cdn.example.com/talk-${tag}-${index}.mp3`, name: `talk-${tag}-${index}` } })),
		applied: (items) => items.map((item) => projectsNamed(item.json.name).length),
		expected: (item) => oneProject(item.json.name, { fileName: `${String(item.json.name)}.mp3`, sourceLanguage: 'de' }),
	},
	{
		name: 'Upload > Upload VTT',
		path: '/integration/upload/vtt',
		parameters: () => ({
			resource: 'upload',
			operation: 'uploadVtt',
			projectId: byId(sandbox().fixtures.projects.writable),
			name: '={{ $json.name }}',
		}),
		items: (tag) =>
			[1, 2, 3].map((index) => ({
				...binaryInputItem(VTT, { fileName: `subs-${tag}-${index}.vtt`, mimeType: 'text/vtt' }),
				json: { name: `Subtitles ${tag}-${index}` },
			})),
		applied: (items) => {
			const project = sandbox().state.projects.get(sandbox().fixtures.projects.writable)!;
			return items.map((item) => project.subtitles.filter((subtitle) => subtitle.name === item.json.name).length);
		},
		expected: (item) => ({
			projectId: sandbox().fixtures.projects.writable,
			name: item.json.name,
			fileName: item.binary?.data.fileName,
			fileSize: Buffer.byteLength(VTT),
		}),
	},
	{
		name: 'Figma Order > Create',
		path: '/integration/orders/figma/create',
		parameters: () => ({
			resource: 'figmaOrder',
			operation: 'create',
			fileUrl: '={{ "https://www.figma.com/design/" + $json.fileKey + "/Site" }}',
			sourceLanguage: 'en',
			targetLanguages: 'de, fr',
		}),
		items: (tag) => [1, 2, 3].map((index) => ({ json: { fileKey: `Key${tag}x${index}` } })),
		applied: (items) =>
			items.map((item) => [...sandbox().state.figmaImports.values()].filter((entry) => entry.fileKey === item.json.fileKey).length),
		expected: (item) => {
			const record = [...sandbox().state.figmaImports.values()].find((entry) => entry.fileKey === item.json.fileKey)!;
			const orders = record.orderIds.map((orderId) => sandbox().state.orders.get(orderId)!);
			return {
				projectId: record.projectId,
				importId: record.importId,
				orders: orders.map((order) => ({ orderId: order.id, targetLanguage: order.targetLanguage, status: order.status })),
			};
		},
	},
];

describe.each(cases)('$name: a lost answer settled from the API\'s state', (operation) => {
	// The second item's request: applied and its answer lost (the retry reads it and sends only the third), or not
	// applied (the retry sends the second and the third).
	it.each([
		['a 500 after the API applied it', { kind: 'status', status: 500, when: 'after' } as const, true],
		['the connection dropped after the API applied it', { kind: 'drop', when: 'after' } as const, true],
		['a 500 before the API acted (not applied)', { kind: 'status', status: 500, when: 'before' } as const, false],
	])('%s: the first run stops at that item; n8n\'s Retry finishes, each item applied once', async (_label, fault, applied) => {
		const s = sandbox();
		const items = operation.items(`${++unique}`);
		const staticData: IDataObject = {};
		s.faults.add({ method: 'POST', path: operation.path, ...fault, skip: 1, times: 1 });

		const first = await run(s, operation.parameters(), { items, staticData });

		expect(failure(first).itemIndex).toBe(1);
		expect(operation.applied(items)).toEqual([1, applied ? 1 : 0, 0]);
		s.requests.reset();

		const retried = await retryOf(s, first, operation.parameters(), items, saved(staticData));

		expect(retried.error).toBeUndefined();
		expect(operation.applied(items)).toEqual([1, 1, 1]);
		expect(s.requests.count({ method: 'POST' })).toBe(applied ? 1 : 2);
		expect(retried.json).toHaveLength(3);
		expect(retried.json[0]).toMatchObject({ alreadyApplied: true });
		expect(retried.json[1]).toEqual({ ...(await operation.expected(items[1])), ...(applied ? repeatMarks : {}) });
		expect(retried.json[2].alreadyApplied).toBeUndefined();
		// The settled item has the shape of an answer the API gave.
		expect(Object.keys(unmarked(retried.json[1])).sort()).toEqual(Object.keys(retried.json[2]).sort());
	});
});

describe('Settling reads only what tells this item apart', () => {
	const memory = { resource: 'memory', operation: 'create', title: '={{ $json.title }}' };
	const titled = (title: string) => [...sandbox().state.memories.values()].filter((entry) => entry.title === title);
	/** Runs the items with the second one's answer lost after the API applied it; returns the run and its static data. */
	const runLosingSecond = async (items: INodeExecutionData[]) => {
		sandbox().faults.add({ method: 'POST', path: '/integration/memories', kind: 'status', status: 500, when: 'after', skip: 1, times: 1 });
		const staticData: IDataObject = {};
		const first = await run(sandbox(), memory, { items, staticData });
		return { first, staticData, retry: (saved: IDataObject) => retryOf(sandbox(), first, memory, items, saved) };
	};
	/** Three titles, the second the one given. */
	const around = (title: string) => [{ json: { title: `${title} a` } }, { json: { title } }, { json: { title: `${title} c` } }];

	it('the same request twice in one run on purpose: the lost one settles to the second record, not the first', async () => {
		const title = `Twice ${++unique}`;
		const { staticData, retry } = await runLosingSecond([{ json: { title } }, { json: { title } }, { json: { title: `${title} b` } }]);
		const retried = await retry(saved(staticData));

		expect(retried.error).toBeUndefined();
		const made = titled(title);
		expect(made).toHaveLength(2);
		expect(retried.json.slice(0, 2).map((json) => json.id)).toEqual(made.map((entry) => entry.id));
		expect(titled(`${title} b`)).toHaveLength(1);
	});

	it('another record alike made between the failure and the retry: the item cannot be told apart, so it stops, and nothing is sent', async () => {
		const title = `Contested ${++unique}`;
		const { staticData, retry } = await runLosingSecond(around(title));
		// Someone else creates a memory of the same title before the retry.
		await fetch(`${sandbox().baseUrl}/integration/memories`, {
			method: 'POST',
			headers: { 'X-Api-Key': sandbox().keys.owner, 'content-type': 'application/json' },
			body: JSON.stringify({ title }),
		});
		sandbox().requests.reset();
		const retried = await retry(saved(staticData));

		const error = failure(retried);
		expect(error.itemIndex).toBe(1);
		expect(error.message).toMatch(/^Item 1 was sent in the run this retries .* so it may have been applied$/);
		expect(error.description).toContain('send item 1 alone');
		expect(sandbox().requests.count({ method: 'POST' })).toBe(0);
		expect(titled(title)).toHaveLength(2);
		expect(titled(`${title} c`)).toHaveLength(0);
	});

	it('a record of the send without what was read before it (neither in static data nor in n8n\'s store): the item stops instead of guessing or sending again', async () => {
		const title = `Unread ${++unique}`;
		const { staticData, retry } = await runLosingSecond(around(title));
		const sent = Object.values(recordsOf('harness-workflow', 'node-under-test')).filter((record) => record.state === 'sent');
		expect(sent).toHaveLength(1);
		delete sent[0].baseline;
		deduplicationStore.clear();
		sandbox().requests.reset();
		const retried = await retry(saved(staticData));

		expect(failure(retried).itemIndex).toBe(1);
		expect(sandbox().requests.count({ method: 'POST' })).toBe(0);
		expect(titled(title)).toHaveLength(1);
	});
});

describe('Retry On Fail (the node run again within the execution)', () => {
	it('settles the item whose answer was lost from the API\'s state and goes on: each item applied once', async () => {
		const s = sandbox();
		const title = `On fail ${++unique}`;
		const titles = [`${title} a`, title, `${title} c`];
		s.faults.add({ method: 'POST', path: '/integration/memories', kind: 'drop', when: 'after', skip: 1, times: 1 });

		const result = await run(s, { resource: 'memory', operation: 'create', title: '={{ $json.title }}' }, {
			items: titles.map((entry) => ({ json: { title: entry } })),
			staticData: {},
			retryOnFail: 2,
		});

		expect(result.error).toBeUndefined();
		const made = titles.map((entry) => [...s.state.memories.values()].filter((memory) => memory.title === entry));
		expect(made.map((list) => list.length)).toEqual([1, 1, 1]);
		expect(result.json.map((entry) => entry.id)).toEqual(made.map(([memory]) => memory.id));
		expect(result.json.map((entry) => entry.alreadyApplied === true)).toEqual([true, true, false]);
		expect(s.requests.count({ method: 'POST', path: '/integration/memories' })).toBe(3);
	});
});
