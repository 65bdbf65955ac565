// Every operation of the Ollang node, each with parameters and a way to make an input item that succeeds against
// the sandbox. Parameters read the item's json, so several items (each with its own marker) share one node.
// Actions (requests sent at most once) also say how often the service applied the action of an item, read from
// the sandbox's own state.
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';
import type { Sandbox } from '../../sandbox/index.cts';
import { binaryInputItem } from '../harness/engine.cts';
import { byId } from '../node/setup.cts';
import { call } from '../sandbox/helpers.cts';

export type OperationKind = 'read' | 'idempotentWrite' | 'action';

export interface OperationCase {
	/** resource.operation */
	name: string;
	kind: OperationKind;
	parameters(sandbox: Sandbox): INodeParameters;
	/** An input item that succeeds; what it creates carries the marker. May prepare the sandbox (a fresh order). */
	item(sandbox: Sandbox, marker: string): Promise<INodeExecutionData>;
	/**
	 * Actions: how many times the service applied the action of this item, from the sandbox's state, or where the
	 * state keeps no count, from `reachedService(path)`: the requests to that path the service's handler ran for.
	 */
	applied?(sandbox: Sandbox, json: IDataObject, reachedService: (path: string) => number): number;
	/** The endpoint needs no key (GET /health): a wrong key does not fail it. */
	public?: boolean;
}

const fromJson = (field: string) => `={{ $json.${field} }}`;

function node(resource: string, operation: string, extra: INodeParameters = {}): INodeParameters {
	return { resource, operation, ...extra };
}

const jsonItem = async (json: IDataObject): Promise<INodeExecutionData> => ({ json });

/** Makes a project of its own for an item, so the orders made in it are that item's. */
export async function createProject(sandbox: Sandbox, name: string): Promise<string> {
	const response = await call(sandbox, 'POST', '/integration/project/create-by-url', {
		body: { url: `https://media.example.com/${name}.mp4`, name, sourceLanguage: 'en' },
	});
	if (response.status !== 201) throw new Error(`could not create a project: ${response.text}`);
	return String((JSON.parse(response.text) as IDataObject).projectId);
}

/** Makes a memory through the API, for operations that change or remove one. */
export async function createMemory(sandbox: Sandbox, title: string): Promise<string> {
	const response = await call(sandbox, 'POST', '/integration/memories', { body: { title } });
	if (response.status !== 201) throw new Error(`could not create a memory: ${response.text}`);
	return String(response.body.id);
}

/** Queues an import job through the API and returns its id. */
export async function createImportJob(sandbox: Sandbox, memoryId: string, sourceText: string): Promise<string> {
	const response = await call(sandbox, 'POST', `/integration/memories/${memoryId}/items/import`, {
		body: { items: [{ sourceLanguage: 'en', targetLanguage: 'fr', sourceText, targetText: `${sourceText} (fr)` }] },
	});
	if (response.status !== 201) throw new Error(`could not queue an import job: ${response.text}`);
	return String(response.body.jobId);
}

/** Attaches a folder document through the API and returns its id. */
export async function createFolderDocument(sandbox: Sandbox, name: string): Promise<string> {
	const folderId = sandbox.fixtures.folders.writable;
	const response = await call(sandbox, 'POST', `/integration/folder/${folderId}/docs`, {
		body: { url: `https://docs.example.com/${name}.pdf`, type: 'guideline', name },
	});
	if (response.status !== 201) throw new Error(`could not attach a folder document: ${response.text}`);
	return String(response.body.id);
}

/** An operation's parameters with more Options (Retry Protection and Idempotency Key are among a paid write's Options). */
export function withOptions(parameters: INodeParameters, options: IDataObject): INodeParameters {
	return { ...parameters, options: { ...((parameters.options as IDataObject | undefined) ?? {}), ...options } as INodeParameters };
}

/** A completed order that stays put (delivered now, so inside the revision window). */
export function completedOrder(sandbox: Sandbox): string {
	return sandbox.simulate.createOrders(1, { type: 'subtitle', level: 0, status: 'completed', progress: false })[0].id;
}

/** Creates a revision request on a fresh completed order through the API. */
export async function createRevision(sandbox: Sandbox, description: string): Promise<{ orderId: string; revisionId: string }> {
	const orderId = completedOrder(sandbox);
	const response = await call(sandbox, 'POST', `/integration/revision/${orderId}`, { body: { type: 'other', time: '00:00:10', description } });
	if (response.status !== 201) throw new Error(`could not create a revision: ${response.text}`);
	return { orderId, revisionId: String(response.body.id) };
}

/** Makes a custom instruction through the API and returns its id. */
export async function createInstruction(sandbox: Sandbox, key: string): Promise<string> {
	const response = await call(sandbox, 'POST', '/integration/custom-instructions', { body: { key, value: `Instruction ${key}` } });
	if (response.status !== 201) throw new Error(`could not create a custom instruction: ${response.text}`);
	return String(response.body.id);
}

/** A machine id (instruction key) or Figma file key made of a marker, which may hold spaces and dashes. */
export const keyOf = (prefix: string, marker: string) => `${prefix}_${marker.replace(/[^A-Za-z0-9]+/g, '_')}`;

export const figmaUrl = (fileKey: string) => `https://www.figma.com/design/${fileKey}/Reliability-File`;

/** Makes Figma orders (German) through the API and returns the first order's id. */
export async function createFigmaOrder(sandbox: Sandbox, fileKey: string): Promise<string> {
	const response = await call(sandbox, 'POST', '/integration/orders/figma/create', {
		body: { fileKey, fileUrl: figmaUrl(fileKey), sourceLanguage: 'en', targetLanguages: ['de'] },
	});
	if (response.status !== 201) throw new Error(`could not create a Figma order: ${response.text}`);
	return String(response.body.orders[0].orderId);
}

function ledgerCount(sandbox: Sandbox, orderId: unknown, kind: 'humanReview' | 'humanReviewRefund' | 'qcEvaluation'): number {
	return sandbox.state.wallet.ledger.filter((entry) => entry.orderId === orderId && entry.kind === kind).length;
}

function count<T>(values: Iterable<T>, test: (value: T) => boolean): number {
	let total = 0;
	for (const value of values) if (test(value)) total++;
	return total;
}

const orderById = { orderId: byId(fromJson('orderId')) };
/** Two folders the owner may write, one per item of a run. */
const assignFolders = (sandbox: Sandbox) => [sandbox.fixtures.folders.writable, sandbox.fixtures.folders.all[3]];
const writableFolder = (sandbox: Sandbox) => byId(sandbox.fixtures.folders.writable);

export const READS: OperationCase[] = [
	{
		name: 'order.get',
		kind: 'read',
		parameters: () => node('order', 'get', orderById),
		item: async (sandbox) => ({ json: { orderId: sandbox.fixtures.orders.byStatus.completed } }),
	},
	{
		name: 'order.getMany',
		kind: 'read',
		// Six pages of ten, four at a time: faults land on page 1 and on the concurrent pages.
		parameters: () => node('order', 'getMany', { returnAll: true, options: { pageSize: 10 } }),
		item: () => jsonItem({}),
	},
	{
		name: 'order.exportXlsx',
		kind: 'read',
		parameters: () => node('order', 'exportXlsx', orderById),
		item: async (sandbox) => ({ json: { orderId: sandbox.fixtures.orders.subtitleCompleted } }),
	},
	{
		name: 'order.downloadFiles',
		kind: 'read',
		parameters: () => node('order', 'downloadFiles', { ...orderById, kind: 'all' }),
		item: async (sandbox) => ({ json: { orderId: sandbox.fixtures.orders.byType.aiDubbing } }),
	},
	{
		name: 'order.getReviewInfo',
		kind: 'read',
		parameters: () => node('order', 'getReviewInfo', orderById),
		item: async (sandbox) => ({ json: { orderId: sandbox.fixtures.orders.byStatus.qualityCheck } }),
	},
	{
		name: 'consumption.getMany',
		kind: 'read',
		parameters: () => node('consumption', 'getMany', { returnAll: true, options: { pageSize: 50 } }),
		item: () => jsonItem({}),
	},
	{
		name: 'creditWallet.get',
		kind: 'read',
		parameters: () => node('creditWallet', 'get'),
		item: () => jsonItem({}),
	},
	{
		name: 'customInstruction.getSuggestions',
		kind: 'read',
		parameters: () => node('customInstruction', 'getSuggestions'),
		item: () => jsonItem({}),
	},
	{
		name: 'memory.get',
		kind: 'read',
		parameters: () => node('memory', 'get', { memoryId: byId(fromJson('memoryId')) }),
		item: async (sandbox) => ({ json: { memoryId: sandbox.fixtures.memories[0] } }),
	},
	{
		name: 'memory.getMany',
		kind: 'read',
		parameters: () => node('memory', 'getMany', { returnAll: true }),
		item: () => jsonItem({}),
	},
	{
		name: 'memory.getImportJob',
		kind: 'read',
		parameters: () => node('memory', 'getImportJob', { jobId: fromJson('jobId') }),
		item: async (sandbox, marker) => ({
			json: { jobId: await createImportJob(sandbox, sandbox.fixtures.memories[0], marker) },
		}),
	},
	{
		name: 'revision.getMany',
		kind: 'read',
		parameters: () => node('revision', 'getMany', { ...orderById, returnAll: true }),
		item: async (sandbox, marker) => ({ json: { orderId: (await createRevision(sandbox, `Listed ${marker}`)).orderId } }),
	},
	{
		name: 'customInstruction.getMany',
		kind: 'read',
		parameters: () => node('customInstruction', 'getMany', { returnAll: true }),
		item: async (sandbox, marker) => {
			await createInstruction(sandbox, keyOf('listed', marker));
			return { json: {} };
		},
	},
	{
		name: 'customInstruction.get',
		kind: 'read',
		parameters: () => node('customInstruction', 'get', { instructionId: fromJson('instructionId') }),
		item: async (sandbox, marker) => ({ json: { instructionId: await createInstruction(sandbox, keyOf('got', marker)) } }),
	},
	{
		name: 'content.export',
		kind: 'read',
		parameters: () => node('content', 'export', { targetLanguages: 'de, fr' }),
		item: () => jsonItem({}),
	},
	{
		name: 'locale.getLanguages',
		kind: 'read',
		parameters: () => node('locale', 'getLanguages', { flattenVariants: true }),
		item: () => jsonItem({}),
	},
	{
		name: 'locale.search',
		kind: 'read',
		parameters: () => node('locale', 'search', { query: 'chinese' }),
		item: () => jsonItem({}),
	},
	{
		name: 'locale.validateTag',
		kind: 'read',
		parameters: () => node('locale', 'validateTag', { tag: 'pt-BR' }),
		item: () => jsonItem({}),
	},
	{
		name: 'figmaOrder.getManyByFile',
		kind: 'read',
		parameters: () => node('figmaOrder', 'getManyByFile', { fileKey: fromJson('fileKey'), returnAll: true }),
		item: async (sandbox, marker) => {
			const fileKey = keyOf('listed', marker);
			await createFigmaOrder(sandbox, fileKey);
			return { json: { fileKey } };
		},
	},
	{
		name: 'figmaOrder.getStatus',
		kind: 'read',
		parameters: () => node('figmaOrder', 'getStatus', orderById),
		item: async (sandbox, marker) => ({ json: { orderId: await createFigmaOrder(sandbox, keyOf('status', marker)) } }),
	},
	{
		name: 'health.check',
		kind: 'read',
		parameters: () => node('health', 'check'),
		item: () => jsonItem({}),
		public: true,
	},
	{
		name: 'folder.listDocuments',
		kind: 'read',
		parameters: (sandbox) => node('folder', 'listDocuments', { folderId: writableFolder(sandbox), returnAll: true }),
		item: () => jsonItem({}),
	},
	{
		name: 'folder.getMany',
		kind: 'read',
		// Three pages of two, flat paging: faults land on page 1 and on the concurrent pages.
		parameters: () => node('folder', 'getMany', { returnAll: true, options: { pageSize: 2 } }),
		item: () => jsonItem({}),
	},
	{
		name: 'folder.getOrderLanguagePairs',
		kind: 'read',
		parameters: (sandbox) => node('folder', 'getOrderLanguagePairs', { folderId: writableFolder(sandbox), status: 'unassigned' }),
		item: () => jsonItem({}),
	},
	{
		name: 'folder.exportXlsx',
		kind: 'read',
		parameters: (sandbox) => node('folder', 'exportXlsx', { folderIds: [sandbox.fixtures.folders.readOnlyForMember], targetLanguages: ['fr', 'de', 'es'] }),
		item: () => jsonItem({}),
	},
	{
		name: 'project.getMany',
		kind: 'read',
		parameters: () => node('project', 'getMany', { returnAll: true, options: { pageSize: 5 } }),
		item: () => jsonItem({}),
	},
	{
		name: 'project.get',
		kind: 'read',
		parameters: () => node('project', 'get', { projectId: byId(fromJson('projectId')) }),
		item: async (sandbox) => ({ json: { projectId: sandbox.fixtures.projects.writable } }),
	},
];

export const IDEMPOTENT_WRITES: OperationCase[] = [
	{
		name: 'memory.rename',
		kind: 'idempotentWrite',
		parameters: () => node('memory', 'rename', { memoryId: byId(fromJson('memoryId')), title: fromJson('title') }),
		item: async (sandbox, marker) => ({ json: { memoryId: sandbox.fixtures.memories[1], title: `Renamed ${marker}` } }),
	},
	{
		name: 'folder.unassignTranslator',
		kind: 'idempotentWrite',
		parameters: (sandbox) => node('folder', 'unassignTranslator', { folderId: writableFolder(sandbox) }),
		item: () => jsonItem({}),
	},
	{
		name: 'content.import',
		kind: 'idempotentWrite',
		parameters: () =>
			node('content', 'import', { targetLanguage: 'de', sourceText: fromJson('sourceText'), targetText: fromJson('targetText') }),
		item: async (_sandbox, marker) => ({ json: { sourceText: `Save ${marker}`, targetText: `Speichern ${marker}` } }),
	},
	{
		name: 'customInstruction.update',
		kind: 'idempotentWrite',
		parameters: () =>
			node('customInstruction', 'update', { instructionId: fromJson('instructionId'), updateFields: { value: fromJson('value'), active: false } }),
		item: async (sandbox, marker) => ({
			json: { instructionId: await createInstruction(sandbox, keyOf('updated', marker)), value: `Updated ${marker}` },
		}),
	},
];

/** Protected writes that read the API's state before sending (one request), to settle a lost answer on a retry. */
export const READS_BEFORE_SENDING = new Set([
	'order.create',
	'order.createAndWait',
	'revision.create',
	'memory.create',
	'folder.attachDocument',
	'folder.uploadDocument',
	'project.createFromUrl',
	'upload.uploadFile',
	'upload.uploadFromUrl',
	'upload.uploadVtt',
	'figmaOrder.create',
]);

export const ACTIONS: OperationCase[] = [
	{
		name: 'order.create',
		kind: 'action',
		// The callback URL carries the marker, so the orders an item created can be counted.
		parameters: () =>
			node('order', 'create', {
				projectId: fromJson('projectId'),
				orderType: 'subtitle',
				level: 0,
				targetLanguages: { language: [{ code: 'de', isRush: false }] },
				additionalFields: { callbackUrl: fromJson('callbackUrl') },
			}),
		item: async (sandbox, marker) => ({
			json: { projectId: sandbox.fixtures.projects.writable, callbackUrl: `https://hooks.example.com/${marker}` },
		}),
		applied: (sandbox, json) => count(sandbox.state.orders.values(), (order) => order.options.callbackUrl === json.callbackUrl),
	},
	{
		name: 'order.createAndWait',
		kind: 'action',
		// Its Callback URL is the execution's resume URL: a project per item counts the orders it made.
		parameters: () =>
			node('order', 'createAndWait', {
				projectId: fromJson('projectId'),
				orderType: 'subtitle',
				level: 0,
				targetLanguages: { language: [{ code: 'de', isRush: false }] },
			}),
		item: async (sandbox, marker) => ({ json: { projectId: await createProject(sandbox, marker) } }),
		applied: (sandbox, json) => count(sandbox.state.orders.values(), (order) => order.projectId === json.projectId),
	},
	{
		name: 'order.requestHumanReview',
		kind: 'action',
		parameters: () => node('order', 'requestHumanReview', orderById),
		item: async (sandbox) => {
			const [order] = sandbox.simulate.createOrders(1, { status: 'completed', level: 0, progress: false });
			return { json: { orderId: order.id } };
		},
		applied: (sandbox, json) => ledgerCount(sandbox, json.orderId, 'humanReview'),
	},
	{
		name: 'order.cancelHumanReview',
		kind: 'action',
		parameters: () => node('order', 'cancelHumanReview', orderById),
		item: async (sandbox) => {
			const [order] = sandbox.simulate.createOrders(1, { status: 'ongoing', level: 1, progress: false });
			return { json: { orderId: order.id } };
		},
		applied: (sandbox, json) => ledgerCount(sandbox, json.orderId, 'humanReviewRefund'),
	},
	{
		name: 'order.requestSubtitleEmbedding',
		kind: 'action',
		parameters: () => node('order', 'requestSubtitleEmbedding', orderById),
		item: async (sandbox) => {
			const [order] = sandbox.simulate.createOrders(1, { type: 'subtitle', status: 'completed', progress: false });
			return { json: { orderId: order.id } };
		},
		// The order keeps only the latest request, so the requests its handler ran for are the applications.
		applied: (_sandbox, json, reachedService) => reachedService(`/integration/orders/${String(json.orderId)}/subtitle-embedding`),
	},
	{
		name: 'order.cancel',
		kind: 'action',
		parameters: () => node('order', 'cancel', orderById),
		item: async (sandbox) => {
			const [order] = sandbox.simulate.createOrders(1, { status: 'pending', progress: false });
			return { json: { orderId: order.id } };
		},
		// A cancelled order stays cancelled (a repeat answers 409), so the status tells whether it was applied.
		applied: (sandbox, json) => (sandbox.state.orders.get(String(json.orderId))?.status === 'cancelled' ? 1 : 0),
	},
	{
		name: 'order.rerun',
		kind: 'action',
		parameters: () => node('order', 'rerun', orderById),
		item: async (sandbox) => ({ json: { orderId: completedOrder(sandbox) } }),
		applied: (sandbox, json) => sandbox.state.orders.get(String(json.orderId))?.reruns.length ?? 0,
	},
	{
		name: 'order.runQcEvaluation',
		kind: 'action',
		parameters: () =>
			node('order', 'runQcEvaluation', { ...orderById, options: { customPrompt: fromJson('marker') } }),
		item: async (sandbox) => ({ json: { orderId: completedOrder(sandbox) } }),
		applied: (sandbox, json) => ledgerCount(sandbox, json.orderId, 'qcEvaluation'),
	},
	{
		name: 'revision.create',
		kind: 'action',
		parameters: () =>
			node('revision', 'create', { ...orderById, type: 'syncError', time: '00:02:03', description: fromJson('marker') }),
		item: async (sandbox) => ({ json: { orderId: completedOrder(sandbox) } }),
		applied: (sandbox, json) => count(sandbox.state.revisions.values(), (revision) => revision.description === json.marker),
	},
	{
		name: 'upload.uploadFile',
		kind: 'action',
		parameters: () =>
			node('upload', 'uploadFile', { binaryPropertyName: 'data', sourceLanguage: 'en', additionalFields: { name: fromJson('marker') } }),
		item: async (_sandbox, marker) => binaryInputItem(`video bytes of ${marker}`, { fileName: 'clip.mp4', mimeType: 'video/mp4', json: { marker } }),
		applied: (sandbox, json) => count(sandbox.state.projects.values(), (project) => project.name === json.marker),
	},
	{
		name: 'upload.uploadFromUrl',
		kind: 'action',
		parameters: () => node('upload', 'uploadFromUrl', { url: fromJson('url'), size: 2048, sourceLanguage: 'en' }),
		item: async (_sandbox, marker) => ({ json: { marker, url: `https://media.example.com/${marker}.mp4` } }),
		// The project is named after the file name without its extension.
		applied: (sandbox, json) => count(sandbox.state.projects.values(), (project) => project.name === json.marker),
	},
	{
		name: 'memory.importItems',
		kind: 'action',
		parameters: () =>
			node('memory', 'importItems', {
				memoryId: byId(fromJson('memoryId')),
				sourceLanguage: 'en',
				targetLanguage: 'fr',
				sourceText: fromJson('sourceText'),
				targetText: fromJson('targetText'),
			}),
		// Each item names its own memory, so each is its own job.
		item: async (sandbox, marker) => ({
			json: { memoryId: await createMemory(sandbox, `Import target ${marker}`), sourceText: marker, targetText: `${marker} (fr)` },
		}),
		applied: (sandbox, json) => count(sandbox.state.importJobs.values(), (job) => job.memoryId === json.memoryId),
	},
	{
		name: 'memory.create',
		kind: 'action',
		parameters: () => node('memory', 'create', { title: fromJson('marker') }),
		item: () => jsonItem({}),
		applied: (sandbox, json) => count(sandbox.state.memories.values(), (memory) => memory.title === json.marker),
	},
	{
		name: 'folder.attachDocument',
		kind: 'action',
		parameters: (sandbox) =>
			node('folder', 'attachDocument', {
				folderId: writableFolder(sandbox),
				url: fromJson('url'),
				documentType: 'guideline',
				additionalFields: { name: fromJson('marker') },
			}),
		item: async (_sandbox, marker) => ({ json: { marker, url: `https://docs.example.com/${marker}.pdf` } }),
		applied: (sandbox, json) => count(sandbox.state.folderDocs.values(), (doc) => doc.name === json.marker),
	},
	{
		name: 'folder.uploadDocument',
		kind: 'action',
		parameters: (sandbox) =>
			node('folder', 'uploadDocument', {
				folderId: writableFolder(sandbox),
				binaryPropertyName: 'data',
				documentType: 'glossary',
				additionalFields: { name: fromJson('marker') },
			}),
		item: async (_sandbox, marker) =>
			binaryInputItem(`term;translation\n${marker};${marker}`, { fileName: 'glossary.txt', mimeType: 'text/plain', json: { marker } }),
		applied: (sandbox, json) => count(sandbox.state.folderDocs.values(), (doc) => doc.name === json.marker),
	},
	{
		name: 'project.createFromUrl',
		kind: 'action',
		parameters: () => node('project', 'createFromUrl', { url: fromJson('url'), name: fromJson('marker'), sourceLanguage: 'en' }),
		item: async (_sandbox, marker) => ({ json: { marker, url: `https://media.example.com/${marker}.mp4` } }),
		applied: (sandbox, json) => count(sandbox.state.projects.values(), (project) => project.name === json.marker),
	},
	{
		name: 'upload.uploadVtt',
		kind: 'action',
		parameters: (sandbox) =>
			node('upload', 'uploadVtt', { projectId: byId(sandbox.fixtures.projects.writable), binaryPropertyName: 'data', name: fromJson('marker') }),
		item: async (_sandbox, marker) =>
			binaryInputItem(`WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${marker}\n`, { fileName: 'subtitles.vtt', mimeType: 'text/vtt', json: { marker } }),
		applied: (sandbox, json) => {
			const project = sandbox.state.projects.get(sandbox.fixtures.projects.writable);
			return count(project?.subtitles ?? [], (subtitle) => subtitle.name === json.marker);
		},
	},
	{
		name: 'folder.assignTranslator',
		kind: 'action',
		parameters: (sandbox) =>
			node('folder', 'assignTranslator', {
				folderId: byId(fromJson('folderId')),
				translatorId: sandbox.state.translators[0].id,
				additionalFields: { targetLanguage: fromJson('targetLanguage') },
			}),
		// Each item has its own completed order (a target language of its own) and, within a run, its own folder, so
		// the requests each item's handler ran for can be counted by path.
		item: async (sandbox, marker) => {
			const folderId = assignFolders(sandbox)[/1$/.test(marker) ? 1 : 0];
			const projectId = [...sandbox.state.projects.values()].find((project) => project.folderId === folderId)?.id;
			const targetLanguage = `x-${marker.toLowerCase().replace(/[^a-z0-9]/g, '')}`;
			sandbox.simulate.createOrders(1, { status: 'completed', level: 0, projectId, targetLanguage, progress: false });
			return { json: { folderId, targetLanguage } };
		},
		// Assigned (the order has the translator) once per request its handler ran for.
		applied: (sandbox, json, reachedService) => {
			const assigned = count(sandbox.state.orders.values(), (order) => order.targetLanguage === json.targetLanguage && order.translatorId !== null);
			return assigned === 0 ? 0 : reachedService(`/integration/folder/${String(json.folderId)}/assign-translator-to-orders`);
		},
	},
	{
		name: 'customInstruction.create',
		kind: 'action',
		parameters: () => node('customInstruction', 'create', { key: fromJson('key'), value: fromJson('value') }),
		item: async (_sandbox, marker) => ({ json: { key: keyOf('created', marker), value: `Instruction ${marker}` } }),
		applied: (sandbox, json) => count(sandbox.state.customInstructions.values(), (instruction) => instruction.key === json.key),
	},
	{
		name: 'figmaOrder.create',
		kind: 'action',
		parameters: () => node('figmaOrder', 'create', { fileUrl: fromJson('fileUrl'), sourceLanguage: 'en', targetLanguages: 'de, fr' }),
		item: async (_sandbox, marker) => ({ json: { fileUrl: figmaUrl(keyOf('created', marker)) } }),
		applied: (sandbox, json) =>
			count(sandbox.state.figmaImports.values(), (record) => record.fileUrl === json.fileUrl),
	},
	{
		name: 'customInstruction.delete',
		kind: 'action',
		parameters: () => node('customInstruction', 'delete', { instructionId: fromJson('instructionId') }),
		item: async (sandbox, marker) => ({ json: { instructionId: await createInstruction(sandbox, keyOf('doomed', marker)) } }),
	},
	{
		name: 'memory.delete',
		kind: 'action',
		parameters: () => node('memory', 'delete', { memoryId: byId(fromJson('memoryId')) }),
		item: async (sandbox, marker) => ({ json: { memoryId: await createMemory(sandbox, `Doomed ${marker}`) } }),
	},
	{
		name: 'revision.delete',
		kind: 'action',
		parameters: () => node('revision', 'delete', { ...orderById, revisionId: fromJson('revisionId') }),
		item: async (sandbox, marker) => ({ json: { ...(await createRevision(sandbox, `Doomed ${marker}`)) } }),
	},
	{
		name: 'folder.removeDocument',
		kind: 'action',
		parameters: (sandbox) => node('folder', 'removeDocument', { folderId: writableFolder(sandbox), documentId: fromJson('documentId') }),
		item: async (sandbox, marker) => ({ json: { documentId: await createFolderDocument(sandbox, `Doomed ${marker}`) } }),
	},
];

export const ALL_OPERATIONS: OperationCase[] = [...READS, ...IDEMPOTENT_WRITES, ...ACTIONS];

/** Items with a marker in their json, so applied() can find what each created. */
export async function markedItem(operation: OperationCase, sandbox: Sandbox, marker: string): Promise<INodeExecutionData> {
	const item = await operation.item(sandbox, marker);
	return { ...item, json: { marker, ...item.json } };
}
