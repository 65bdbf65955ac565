// The workflows of the end-to-end suites: every resource's operations in a few multi-step workflows (a Manual
// Trigger and the steps), the failures a user meets, and the memory example as a user sets it up. Shared by the
// suite that runs them with `n8n execute` (resources) and the one that runs them on queue-mode workers (queue).
import { randomUUID } from 'node:crypto';
import path from 'node:path';

import {
	byId,
	exampleNode,
	ollang,
	OLLANG_NODE,
	readExample,
	SANDBOX_CREDENTIALS,
	stepsWorkflow,
	WRONG_KEY_CREDENTIAL,
	type Fixtures,
	type WorkflowJson,
} from './harness.mts';

export const WORKFLOW_IDS = {
	orders: 'e2eOrders0000001',
	account: 'e2eAccount000001',
	memory: 'e2eMemory0000001',
	wrongKey: 'e2eErrWrongKey01',
	memberConsumption: 'e2eErrMember0001',
	notEligible: 'e2eErrNotElig001',
	growingListings: 'e2eGrowingList01',
	downloads: 'e2eDownloads0001',
	createAndWait: 'e2eCreateWait001',
};
export const CONSUMPTION_EXAMPLE = 'scheduled-consumption-report.json';
export const MEMORY_EXAMPLE = 'memory-import-with-wait.json';
export const MEMORY_EXAMPLE_UNITS = 'translation-memory-units.csv';

export const XLSX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const UNITS_FOR_CONTENT = [
	{ sourceText: 'Play', targetText: 'Abspielen', elementId: 'player.play', type: 'ui' },
	{ sourceText: 'Pause', targetText: 'Pause', elementId: 'player.pause', type: 'ui' },
];
export const UNITS_FOR_MEMORY = [
	{ sourceLanguage: 'en', targetLanguage: 'de', sourceText: 'Welcome back', targetText: 'Willkommen zurück' },
	{ sourceLanguage: 'en', targetLanguage: 'de', sourceText: 'Sign out', targetText: 'Abmelden' },
	{ sourceLanguage: 'en', targetLanguage: 'fr', sourceText: 'Sign out', targetText: 'Se déconnecter' },
];

export function ordersWorkflow(fixtures: Fixtures): WorkflowJson {
	const { orders } = fixtures;
	return stepsWorkflow(WORKFLOW_IDS.orders, 'E2E: orders', [
		ollang('Get order', 'order', 'get', { orderId: byId(orders.deliveredLevel0), simplify: false }),
		ollang('Get many orders', 'order', 'getMany', {
			returnAll: true,
			filters: { type: 'subtitle', statuses: ['completed', 'delivered'] },
			// Small pages, so that Return All has to follow several.
			options: { pageSize: 3 },
		}),
		ollang('Request human review', 'order', 'requestHumanReview', { orderId: byId(orders.completedLevel0) }),
		ollang('Cancel human review', 'order', 'cancelHumanReview', { orderId: byId(orders.completedLevel0) }),
		ollang('Get review info', 'order', 'getReviewInfo', { orderId: byId(orders.byStatus.qualityCheck) }),
		ollang('Export XLSX', 'order', 'exportXlsx', { orderId: byId(orders.subtitleCompleted), binaryPropertyName: 'sheet' }),
		ollang('Request subtitle embedding', 'order', 'requestSubtitleEmbedding', { orderId: byId(orders.subtitleCompleted) }),
	]);
}

/**
 * Order > Create and Wait on its own: one order, its defaults but Check Every one minute, so the run goes on whether
 * or not the order's callback reaches n8n: resumed by the callback, or by n8n's next check (test/e2e/trigger.test.mts).
 */
export function createAndWaitWorkflow(fixtures: Fixtures): WorkflowJson {
	return stepsWorkflow(WORKFLOW_IDS.createAndWait, 'E2E: create and wait', [
		ollang('Create and wait', 'order', 'createAndWait', {
			projectId: fixtures.projects.writable,
			orderType: 'document',
			level: 0,
			targetLanguages: { language: [{ code: 'de', isRush: false }] },
			options: { checkEvery: 1 },
		}),
	]);
}

/** The steps of the downloads workflow, each an order and a filter: every kind, then a filter that matches nothing. */
export const DOWNLOAD_STEPS = [
	{ name: 'Download dubbing files', order: 'aiDubbing', kind: 'all', kinds: ['source', 'dubbedAudio', 'subtitles'] },
	{ name: 'Download translated document', order: 'document', kind: 'translatedDocument', kinds: ['translatedDocument'] },
	{ name: 'Download embedded video', order: 'studioDubbing', kind: 'embeddedVideo', kinds: ['embeddedVideo'] },
	// Last: a node that outputs no item ends its branch.
	{ name: 'Download nothing', order: 'subtitle', kind: 'translatedDocument', kinds: [] },
] as const;

/** Order > Download Files: every kind of file, from orders of each type, and an empty filter. */
export function downloadsWorkflow(fixtures: Fixtures): WorkflowJson {
	return stepsWorkflow(
		WORKFLOW_IDS.downloads,
		'E2E: order files',
		DOWNLOAD_STEPS.map((step) => ollang(step.name, 'order', 'downloadFiles', { orderId: byId(fixtures.orders.byType[step.order]), kind: step.kind, binaryPropertyName: 'data' })),
	);
}

/** Consumption, wallet, suggestions, content, folder documents, uploads and orders created on the uploads. */
export function accountWorkflow(fixtures: Fixtures): WorkflowJson {
	const folder = byId(fixtures.folders.writable);
	return stepsWorkflow(WORKFLOW_IDS.account, 'E2E: account, content, folders and uploads', [
		ollang('Get consumption', 'consumption', 'getMany', { returnAll: true, filters: {}, options: {} }),
		ollang('Get credit wallet', 'creditWallet', 'get'),
		ollang('Get suggestions', 'customInstruction', 'getSuggestions'),
		ollang('Import content', 'content', 'import', {
			targetLanguage: 'de',
			unitsSource: 'field',
			units: JSON.stringify(UNITS_FOR_CONTENT),
		}),
		ollang('Unassign translator', 'folder', 'unassignTranslator', { folderId: folder, filters: {} }),
		ollang('Attach document', 'folder', 'attachDocument', {
			folderId: folder,
			url: 'https://example.com/guides/e2e-style-guide.pdf',
			documentType: 'guideline',
			additionalFields: { name: 'E2E style guide', language: 'de' },
		}),
		{
			name: 'Glossary text',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: {
				mode: 'manual',
				assignments: { assignments: [{ id: 'glossary', name: 'text', value: 'term,translation\nsubtitle,Untertitel\n', type: 'string' }] },
				options: {},
			},
		},
		{
			name: 'Glossary file',
			type: 'n8n-nodes-base.convertToFile',
			typeVersion: 1.1,
			parameters: { operation: 'toText', sourceProperty: 'text', binaryPropertyName: 'data', options: { fileName: 'e2e-glossary.txt' } },
		},
		// Two branches from the file: n8n runs the upper one first.
		ollang('Upload document', 'folder', 'uploadDocument', {
			folderId: folder,
			binaryPropertyName: 'data',
			documentType: 'glossary',
			additionalFields: { name: 'E2E glossary', language: 'de' },
		}),
		ollang('Remove document', 'folder', 'removeDocument', {
			folderId: folder,
			documentId: "={{ $('Attach document').first().json.id }}",
		}),
		ollang('List documents', 'folder', 'listDocuments', { folderId: folder, returnAll: true }),
		ollang('Upload file', 'upload', 'uploadFile', { binaryPropertyName: 'data', sourceLanguage: 'en', additionalFields: {} }, { after: ['Glossary file'] }),
		ollang('Upload from URL', 'upload', 'uploadFromUrl', {
			url: 'https://example.com/media/e2e-episode-01.mp4',
			size: 73_400_320,
			sourceLanguage: 'en',
			additionalFields: { folderId: fixtures.folders.writable },
		}),
		ollang('Create document order', 'order', 'create', {
			projectId: "={{ $('Upload file').first().json.projectId }}",
			orderType: 'document',
			level: 0,
			targetLanguages: { language: [{ code: 'de', isRush: false }] },
			additionalFields: {},
		}),
		ollang('Create subtitle orders', 'order', 'create', {
			projectId: "={{ $('Upload from URL').first().json.projectId }}",
			orderType: 'subtitle',
			level: 0,
			targetLanguages: { language: [{ code: 'fr', isRush: false }, { code: 'es', isRush: true }] },
			additionalFields: {},
		}),
	]);
}

/** Return All over consumption (From only, To left empty) and orders, 10 rows a page: run while the listings grow. */
export function growingListingsWorkflow(from: string): WorkflowJson {
	return stepsWorkflow(WORKFLOW_IDS.growingListings, 'E2E: Return All while the listings grow', [
		ollang('Get consumption', 'consumption', 'getMany', { returnAll: true, filters: { from }, options: { pageSize: 10 } }),
		ollang('Get orders', 'order', 'getMany', { returnAll: true, filters: {}, options: { pageSize: 10, orderBy: 'createdAt' } }),
	]);
}

export function memoryWorkflow(): WorkflowJson {
	const memory = byId("={{ $('Create memory').first().json.id }}");
	return stepsWorkflow(WORKFLOW_IDS.memory, 'E2E: memory', [
		ollang('Create memory', 'memory', 'create', { title: 'E2E memory' }),
		ollang('Rename memory', 'memory', 'rename', { memoryId: memory, title: 'E2E memory (renamed)' }),
		ollang('Import items', 'memory', 'importItems', {
			memoryId: memory,
			unitsSource: 'field',
			units: JSON.stringify(UNITS_FOR_MEMORY),
			waitForCompletion: true,
			waitForVectorization: true,
			options: { pollIntervalSeconds: 0.5, timeoutSeconds: 120 },
		}),
		ollang('Get import job', 'memory', 'getImportJob', { jobId: "={{ $('Import items').first().json.jobId }}" }),
		ollang('Get memory', 'memory', 'get', { memoryId: memory }),
		ollang('Get many memories', 'memory', 'getMany', { returnAll: true, filters: {} }),
		ollang('Delete memory', 'memory', 'delete', { memoryId: memory }),
	]);
}

export function errorWorkflows(ongoingOrderId: string): WorkflowJson[] {
	return [
		stepsWorkflow(WORKFLOW_IDS.wrongKey, 'E2E: wrong API key', [ollang('Get credit wallet', 'creditWallet', 'get', {}, { credential: WRONG_KEY_CREDENTIAL })]),
		stepsWorkflow(WORKFLOW_IDS.memberConsumption, 'E2E: consumption with a member key', [
			ollang('Get consumption', 'consumption', 'getMany', { returnAll: false, limit: 5, filters: {}, options: {} }, { credential: SANDBOX_CREDENTIALS.member }),
		]),
		stepsWorkflow(WORKFLOW_IDS.notEligible, 'E2E: human review of an ongoing order', [
			ollang('Request human review', 'order', 'requestHumanReview', { orderId: byId(ongoingOrderId) }),
		]),
	];
}

export function memoryExample(filesDir: string, memoryId: string): WorkflowJson {
	const workflow = readExample(MEMORY_EXAMPLE);
	// The two settings a user makes: where the spreadsheet is, and which memory.
	exampleNode(workflow, 'Read spreadsheet').parameters.fileSelector = path.join(filesDir, MEMORY_EXAMPLE_UNITS);
	exampleNode(workflow, 'Import into memory').parameters.memoryId = byId(memoryId);
	return workflow;
}


/** Orders the public-API workflow acts on, made fresh for it (each action changes its order for good). */
export interface PublicApiInputs {
	pendingOrderId: string;
	rerunOrderId: string;
	qcOrderId: string;
	revisionOrderId: string;
	translatorId: string;
}

export const PUBLIC_API_WORKFLOW_ID = 'e2ePublicApi0001';
export const VTT_TEXT = 'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nE2E subtitle line\n';

/**
 * The endpoints beyond the integration document (public docs and SDKs): order cancel, rerun and QC, revisions,
 * projects, the folder catalogue, assignment and bulk export, and the VTT upload. Independent steps hang off the
 * start, so one that outputs no item stops nothing after it.
 */
export function publicApiWorkflow(fixtures: Fixtures, inputs: PublicApiInputs): WorkflowJson {
	const folder = byId(fixtures.folders.writable);
	const revisionOrder = byId(inputs.revisionOrderId);
	const fromStart = { after: ['Start'] };
	return stepsWorkflow(PUBLIC_API_WORKFLOW_ID, 'E2E: the rest of the public API', [
		ollang('Cancel order', 'order', 'cancel', { orderId: byId(inputs.pendingOrderId) }),
		ollang('Rerun order', 'order', 'rerun', { orderId: byId(inputs.rerunOrderId), options: {} }, fromStart),
		ollang('Run QC evaluation', 'order', 'runQcEvaluation', { orderId: byId(inputs.qcOrderId), options: {} }, fromStart),
		ollang('Create revision', 'revision', 'create', { orderId: revisionOrder, type: 'syncError', time: '00:01:02', description: 'E2E: subtitles late' }, fromStart),
		ollang('Get revisions', 'revision', 'getMany', { orderId: revisionOrder }),
		ollang('Delete revision', 'revision', 'delete', { orderId: revisionOrder, revisionId: "={{ $('Create revision').first().json.id }}" }),
		ollang('Get many projects', 'project', 'getMany', { returnAll: true, options: { pageSize: 5 } }, fromStart),
		ollang('Get project', 'project', 'get', { projectId: byId(fixtures.projects.writable) }, fromStart),
		ollang('Create project from URL', 'project', 'createFromUrl', {
			url: 'https://media.example.com/e2e/trailer-02.mp4',
			name: 'E2E trailer',
			sourceLanguage: 'en',
			additionalFields: {},
		}, fromStart),
		ollang('Get many folders', 'folder', 'getMany', { returnAll: true, options: {} }, fromStart),
		ollang('Get language pairs', 'folder', 'getOrderLanguagePairs', { folderId: folder, status: 'unassigned' }, fromStart),
		ollang('Assign translator', 'folder', 'assignTranslator', { folderId: folder, translatorId: inputs.translatorId, additionalFields: {} }, fromStart),
		ollang('Export folders', 'folder', 'exportXlsx', {
			folderIds: [fixtures.folders.readOnlyForMember],
			targetLanguages: ['fr', 'de', 'es'],
			binaryPropertyName: 'sheet',
		}, fromStart),
		ollang('Create instruction', 'customInstruction', 'create', { key: 'e2e_tone', value: 'Keep a friendly tone.', additionalFields: { description: 'E2E' } }, fromStart),
		ollang('Update instruction', 'customInstruction', 'update', {
			instructionId: "={{ $('Create instruction').first().json.id }}",
			updateFields: { active: false },
		}),
		ollang('Get instruction', 'customInstruction', 'get', { instructionId: "={{ $('Create instruction').first().json.id }}" }),
		ollang('Get many instructions', 'customInstruction', 'getMany', { returnAll: true }),
		ollang('Delete instruction', 'customInstruction', 'delete', { instructionId: "={{ $('Create instruction').first().json.id }}" }),
		ollang('Export content', 'content', 'export', { targetLanguages: 'de' }, fromStart),
		ollang('Get languages', 'locale', 'getLanguages', {}, fromStart),
		ollang('Search languages', 'locale', 'search', { query: 'portug' }, fromStart),
		ollang('Validate language tag', 'locale', 'validateTag', { tag: 'pt-PT' }, fromStart),
		ollang('Create Figma orders', 'figmaOrder', 'create', {
			fileUrl: 'https://www.figma.com/design/E2eKey01/Landing-Page',
			sourceLanguage: 'en',
			targetLanguages: 'de, fr',
		}, fromStart),
		ollang('Get Figma orders', 'figmaOrder', 'getManyByFile', { fileKey: 'E2eKey01', returnAll: true }),
		ollang('Get Figma order status', 'figmaOrder', 'getStatus', { orderId: byId("={{ $('Create Figma orders').first().json.orders[0].orderId }}") }),
		ollang('Check health', 'health', 'check', {}, fromStart),
		{
			name: 'Subtitle text',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			parameters: { mode: 'manual', assignments: { assignments: [{ id: 'vtt', name: 'text', value: VTT_TEXT, type: 'string' }] }, options: {} },
			after: ['Start'],
		},
		{
			name: 'Subtitle file',
			type: 'n8n-nodes-base.convertToFile',
			typeVersion: 1.1,
			parameters: { operation: 'toText', sourceProperty: 'text', binaryPropertyName: 'data', options: { fileName: 'e2e-subtitles.vtt' } },
		},
		ollang('Upload VTT', 'upload', 'uploadVtt', {
			projectId: byId(fixtures.projects.writable),
			binaryPropertyName: 'data',
			name: 'E2E subtitles',
			additionalFields: { sourceLanguage: 'all' },
		}),
	]);
}

/** The workflows that together run every one of the Ollang node's operations (the queue suite checks it). */
export function everyOperationWorkflows(fixtures: Fixtures, inputs: PublicApiInputs): WorkflowJson[] {
	return [
		ordersWorkflow(fixtures),
		accountWorkflow(fixtures),
		memoryWorkflow(),
		publicApiWorkflow(fixtures, inputs),
		downloadsWorkflow(fixtures),
		createAndWaitWorkflow(fixtures),
	];
}

/**
 * The workflow with its Manual Trigger ("Start") replaced by a Webhook at `<label>-<id>`: it can be published, and a
 * request to it is a production execution (in queue mode, run by a worker).
 */
export function asWebhookWorkflow(workflow: WorkflowJson, label: string): { workflow: WorkflowJson; path: string } {
	const path = `${label}-${workflow.id}`;
	const nodes = workflow.nodes.map((node) =>
		node.name === 'Start'
			? { ...node, type: 'n8n-nodes-base.webhook', typeVersion: 2, webhookId: randomUUID(), parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} } }
			: node,
	);
	const suffix = label.slice(0, 4).padEnd(4, '0');
	return { workflow: { ...workflow, id: `${workflow.id.slice(0, 12)}${suffix}`, name: `${workflow.name} (${label})`, nodes }, path };
}

/**
 * Webhook (its JSON body's `items`) -> Split Out (one item each) -> the Ollang node with these parameters: a
 * production workflow whose items a test chooses per call.
 */
export function itemsWorkflow(id: string, name: string, parameters: Record<string, unknown>, { retryOnFail = false } = {}): { workflow: WorkflowJson; path: string } {
	const path = `items-${id}`;
	const workflow: WorkflowJson = {
		id,
		name,
		nodes: [
			{ id: `${id}-hook`, name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, webhookId: randomUUID(), position: [0, 0], parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} } },
			{ id: `${id}-split`, name: 'Split Out', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [240, 0], parameters: { fieldToSplitOut: 'body.items', options: {} } },
			{
				id: `${id}-ollang`,
				name: 'Ollang',
				type: OLLANG_NODE,
				typeVersion: 1,
				position: [480, 0],
				parameters,
				credentials: { ollangApi: SANDBOX_CREDENTIALS.owner },
				...(retryOnFail ? { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } : {}),
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
			'Split Out': { main: [[{ node: 'Ollang', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
		active: false,
		pinData: {},
	};
	return { workflow, path };
}
