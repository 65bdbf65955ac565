// The Ollang node in a real n8n: the packed package installed into a fresh user folder as a community package,
// workflows imported and run with `n8n execute --id`, against the sandbox as a separate process. Each workflow runs
// several operations (every `n8n execute` costs seconds of start-up); the outputs are checked against what the
// sandbox's API says. Then the failures a user meets, two example workflows, and a scan for the API keys.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';

import type { InstalledPackage, N8nRun } from '../../scripts/n8n/runtime.mjs';
import {
	assertNoKeyLeft,
	EXAMPLES_DIR,
	filesUnder,
	jsonOf,
	N8nUserFolder,
	OLLANG_NODE_TYPES,
	outputOf,
	readBinary,
	readExample,
	readFirstSheet,
	SandboxClient,
	singleJson,
	testCredentials,
	waitFor,
	WRONG_KEY,
	type Fixtures,
} from './harness.mts';
import {
	WORKFLOW_IDS,
	CONSUMPTION_EXAMPLE,
	MEMORY_EXAMPLE,
	MEMORY_EXAMPLE_UNITS,
	XLSX_MIME_TYPE,
	UNITS_FOR_CONTENT,
	UNITS_FOR_MEMORY,
	ordersWorkflow,
	accountWorkflow,
	growingListingsWorkflow,
	downloadsWorkflow,
	DOWNLOAD_STEPS,
	memoryWorkflow,
	errorWorkflows,
	memoryExample,
	publicApiWorkflow,
	PUBLIC_API_WORKFLOW_ID,
	type PublicApiInputs,
} from './workflows.mts';

type Json = Record<string, unknown>;

function ids(rows: Json[]): string[] {
	return rows.map((row) => String(row.id)).sort();
}

/** Every `require()` a JavaScript file makes. */
function requiredModules(source: string): string[] {
	return [...source.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1]);
}

describe('the Ollang node in a real n8n (n8n execute)', { timeout: 20 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let n8n: N8nUserFolder;
	let installed: InstalledPackage;
	let fixtures: Fixtures;
	let memoryForExample: string;
	let ongoingOrderId: string;
	let publicApi: PublicApiInputs;
	let growingFrom: string;

	before(async () => {
		sandbox = await SandboxClient.start();
		n8n = N8nUserFolder.create('resources');
		installed = await n8n.install();
		fixtures = await sandbox.fixtures();
		memoryForExample = (await sandbox.call<Json>('POST', '/integration/memories', { body: { title: 'E2E spreadsheet import' } })).body.id as string;
		// Tests move the clock on; this order stays ongoing (not eligible for human review) whatever they do.
		[{ orderId: ongoingOrderId }] = await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count: 1, type: 'subtitle', level: 0, status: 'ongoing', progress: false });
		const freshOrders = async (status: string, count: number) =>
			(await sandbox.admin<Array<{ orderId: string }>>('POST', 'orders', { count, type: 'subtitle', level: 0, status, progress: false })).map((row) => row.orderId);
		const [pendingOrderId] = await freshOrders('pending', 1);
		const [rerunOrderId, qcOrderId, revisionOrderId] = await freshOrders('completed', 3);
		const [translator] = await sandbox.admin<Array<{ id: string }>>('GET', 'translators');
		publicApi = { pendingOrderId, rerunOrderId, qcOrderId, revisionOrderId, translatorId: translator.id };
		copyFileSync(path.join(EXAMPLES_DIR, MEMORY_EXAMPLE_UNITS), path.join(n8n.filesDir, MEMORY_EXAMPLE_UNITS));
		// A range with most of the seeded lines: Return All reads it in some 20 pages of 10.
		growingFrom = (await sandbox.getAllPages<Json>('/integration/consumption', { 'pageOptions[orderBy]': 'occurredAt', 'pageOptions[orderDirection]': 'asc' }))[80].occurredAt as string;
		await n8n.importCredentials(testCredentials(sandbox));
		await n8n.importWorkflows([
			ordersWorkflow(fixtures),
			accountWorkflow(fixtures),
			memoryWorkflow(),
			publicApiWorkflow(fixtures, publicApi),
			...errorWorkflows(ongoingOrderId),
			readExample(CONSUMPTION_EXAMPLE),
			memoryExample(n8n.filesDir, memoryForExample),
			growingListingsWorkflow(growingFrom),
			downloadsWorkflow(fixtures),
		]);
	});

	after(async () => {
		await sandbox?.stop();
		n8n?.remove();
	});

	/**
	 * Runs a workflow whose node waits for a memory import: the sandbox's clock stands still, so once the import
	 * request has arrived it is moved on far enough for the import and its vectorization to finish.
	 */
	async function executeWithImportFinishing(workflowId: string): Promise<N8nRun> {
		await sandbox.clearRequests();
		const execution = n8n.execute(workflowId);
		let settled = false;
		void execution.finally(() => {
			settled = true;
		}).catch(() => undefined);
		await waitFor(
			'the memory import request',
			async () => settled || (await sandbox.requests()).some((request) => request.method === 'POST' && /\/items\/import$/.test(request.path)),
			{ timeoutMs: 120_000 },
		);
		// (A run that ended before its import request has failed: its error is what the caller sees.)
		if (!settled) await sandbox.advanceClock(60);
		return await execution;
	}

	it('loads from where n8n installs community packages, with everything it requires resolvable there', () => {
		assert.deepEqual([...installed.nodeTypes].sort(), OLLANG_NODE_TYPES);
		assert.deepEqual(installed.credentialTypes, ['ollangApi']);
		assert.ok(installed.packageDir.startsWith(path.join(n8n.dir, '.n8n', 'nodes', 'node_modules')), installed.packageDir);
		// n8n itself provides the peer dependency; everything else must resolve from the installed files.
		const providedByN8n = new Set(['n8n-workflow']);
		const files = filesUnder(path.join(installed.packageDir, 'dist')).filter((file) => file.endsWith('.js'));
		assert.ok(files.length > 10, `the installed package has only ${files.length} JavaScript files`);
		const unresolved: string[] = [];
		for (const file of files) {
			const requireFromFile = createRequire(file);
			for (const name of requiredModules(readFileSync(file, 'utf8'))) {
				if (providedByN8n.has(name)) continue;
				try {
					requireFromFile.resolve(name);
				} catch {
					unresolved.push(`${path.relative(installed.packageDir, file)}: ${name}`);
				}
			}
		}
		assert.deepEqual(unresolved, []);
	});

	it('orders: get, get many, human review and its cancellation, review info, XLSX export, subtitle embedding', async () => {
		const { orders } = fixtures;
		const expectedOrder = await sandbox.get<Json>(`/integration/orders/${orders.deliveredLevel0}`);
		const expectedList = await sandbox.getAllPages<Json>('/integration/orders', { 'filter[type]': 'subtitle', 'filter[status]': 'completed,delivered' });
		const expectedReviewInfo = await sandbox.get<Json>(`/v1/api/client/orders/${orders.byStatus.qualityCheck}/review/info`);
		const exportAnswer = await sandbox.call<Buffer>('GET', `/integration/orders/${orders.subtitleCompleted}/export-xlsx`);
		const exportedOrder = await sandbox.get<Json>(`/integration/orders/${orders.subtitleCompleted}`);
		await sandbox.clearRequests();

		const run = await n8n.execute(WORKFLOW_IDS.orders);

		assert.deepEqual(singleJson(run, 'Get order'), expectedOrder);
		const listed = jsonOf(run, 'Get many orders');
		assert.ok(listed.length > 3, `only ${listed.length} orders listed: the filter should match several pages of 3`);
		assert.deepEqual(ids(listed), ids(expectedList));

		assert.deepEqual(singleJson(run, 'Request human review'), { success: true, orderId: orders.completedLevel0, humanReviewRequested: true });
		const cancelled = singleJson(run, 'Cancel human review');
		assert.equal(cancelled.success, true);
		assert.equal(cancelled.orderId, orders.completedLevel0);
		const calls = (await sandbox.requests()).filter((request) => request.path.startsWith(`/integration/orders/${orders.completedLevel0}/`));
		assert.deepEqual(
			calls.map((request) => `${request.method} ${request.path.split('/').pop()} ${request.status}`),
			['POST human-review 204', 'POST cancel-human-review 200'],
		);
		// The cancellation put the order back as it was: level 0, completed.
		const reviewed = await sandbox.get<Json>(`/integration/orders/${orders.completedLevel0}`);
		assert.deepEqual([reviewed.level, reviewed.status], [0, 'completed']);

		assert.deepEqual(singleJson(run, 'Get review info'), { orderId: orders.byStatus.qualityCheck, ...expectedReviewInfo });
		assert.equal(expectedReviewInfo.inReview, true);

		// The XLSX file: the same sheet as the API's own export, columns as the spec says.
		const [exported] = outputOf(run, 'Export XLSX');
		const file = readBinary(n8n, exported, 'sheet');
		const fileName = /filename="([^"]+)"/.exec(exportAnswer.headers.get('content-disposition') ?? '')?.[1];
		// Each export is written anew (the XLSX zip carries its own timestamps): compare sizes with this file.
		assert.deepEqual(exported.json, { orderId: orders.subtitleCompleted, fileName, mimeType: XLSX_MIME_TYPE, fileSize: file.length });
		assert.deepEqual([exported.binary?.sheet.fileName, exported.binary?.sheet.mimeType], [fileName, XLSX_MIME_TYPE]);
		const sheet = await readFirstSheet(file);
		const expectedSheet = await readFirstSheet(exportAnswer.body);
		assert.deepEqual(sheet.rows[0], ['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES', exportedOrder.targetLanguage]);
		assert.ok(sheet.rows.length > 2, `the export has ${sheet.rows.length - 1} segment rows`);
		assert.deepEqual(sheet.rows, expectedSheet.rows);
		assert.deepEqual(
			sheet.rows.slice(1).map((row) => row[0]),
			sheet.rows.slice(1).map((_, index) => index + 1),
		);

		const embedding = singleJson(run, 'Request subtitle embedding');
		assert.equal(embedding.success, true);
		assert.equal(embedding.orderId, orders.subtitleCompleted);
		// The service adds the embedded video five simulated minutes after the request.
		await sandbox.advanceClock(5);
		const embedded = await sandbox.get<{ orderDocs: Json[] }>(`/integration/orders/${orders.subtitleCompleted}`);
		assert.ok(embedded.orderDocs.some((doc) => doc.type === 'created_subtitle_embedded_video'), 'no embedded video on the order');
	});

	it('consumption (Return All), credit wallet, custom instructions, content import, folder documents, uploads', async () => {
		const writable = fixtures.folders.writable;
		const expectedConsumption = await sandbox.getAllPages<Json>('/integration/consumption');
		const expectedWallet = await sandbox.get<Json>('/integration/credits');
		const expectedSuggestions = await sandbox.get<Json[]>('/integration/custom-instructions/suggestions');
		// An order with a translator assigned, in the folder, so that there is something to unassign.
		const assigned = await sandbox.get<Json>(`/integration/orders/${fixtures.orders.level1Ongoing}`);
		assert.deepEqual([assigned.folderId, assigned.status, assigned.level], [writable, 'ongoing', 1]);
		await sandbox.clearRequests();

		const run = await n8n.execute(WORKFLOW_IDS.account);

		const consumption = jsonOf(run, 'Get consumption');
		assert.ok(consumption.length > 50, `only ${consumption.length} consumption lines: Return All should page past 50`);
		assert.deepEqual(ids(consumption), ids(expectedConsumption));
		assert.deepEqual(singleJson(run, 'Get credit wallet'), expectedWallet);
		assert.deepEqual(jsonOf(run, 'Get suggestions'), expectedSuggestions);

		assert.deepEqual(singleJson(run, 'Import content'), { success: true, targetLanguage: 'de', unitsContributed: UNITS_FOR_CONTENT.length, requests: 1 });
		const requests = await sandbox.requests();
		assert.deepEqual(
			requests.filter((request) => request.path === '/integration/content/import').map((request) => `${request.method} ${request.status}`),
			['POST 201'],
		);

		const unassigned = singleJson(run, 'Unassign translator');
		assert.equal(unassigned.folderId, writable);
		assert.ok(Number(unassigned.unassignedCount) >= 1, `unassignedCount ${unassigned.unassignedCount}`);
		// Nothing is left to unassign: the node's request did it.
		assert.deepEqual((await sandbox.call('POST', `/integration/folder/${writable}/unassign-translator-from-orders`, { body: {} })).body, { unassignedCount: 0 });

		const attached = singleJson(run, 'Attach document');
		const uploaded = singleJson(run, 'Upload document');
		assert.deepEqual([attached.success, attached.name, attached.type, attached.language], [true, 'E2E style guide', 'guideline', 'de']);
		assert.deepEqual([uploaded.success, uploaded.name, uploaded.type, uploaded.fileName], [true, 'E2E glossary', 'glossary', 'e2e-glossary.txt']);
		assert.deepEqual(singleJson(run, 'Remove document'), { success: true, folderId: writable, documentId: attached.id, removed: true });
		const documents = jsonOf(run, 'List documents');
		assert.deepEqual(documents, await sandbox.get<Json[]>(`/integration/folder/${writable}/docs`));
		assert.ok(documents.some((doc) => doc.id === uploaded.id), 'the uploaded document is not listed');
		assert.ok(!documents.some((doc) => doc.id === attached.id), 'the removed document is still listed');

		// Each upload made a project that an order could be created on.
		const fileProject = singleJson(run, 'Upload file');
		const urlProject = singleJson(run, 'Upload from URL');
		assert.equal(fileProject.fileName, 'e2e-glossary.txt');
		assert.equal(urlProject.fileName, 'e2e-episode-01.mp4');
		const created = [...jsonOf(run, 'Create document order'), ...jsonOf(run, 'Create subtitle orders')];
		assert.equal(created.length, 3);
		const createdOrders = await Promise.all(created.map((row) => sandbox.get<Json>(`/integration/orders/${String(row.orderId)}`)));
		assert.deepEqual(
			createdOrders.map((order) => [order.projectId, order.type, order.level, order.targetLanguage]),
			[
				[fileProject.projectId, 'document', 0, 'de'],
				[urlProject.projectId, 'subtitle', 0, 'fr'],
				[urlProject.projectId, 'subtitle', 0, 'es'],
			],
		);
	});

	it('the rest of the public API: cancel, rerun, QC, revisions, projects, folders, VTT upload, custom instructions, content export, locales, Figma, health', async () => {
		const writable = fixtures.folders.writable;
		const expectedProjects = await sandbox.getAllPages<Json>('/integration/project', {}, 'owner', 'flat');
		const expectedProject = await sandbox.get<Json>(`/integration/project/${fixtures.projects.writable}`);
		const expectedFolders = await sandbox.getAllPages<Json>('/integration/folder', {}, 'owner', 'flat');
		const expectedPairs = await sandbox.get<{ pairs: Json[] }>(`/integration/folder/${writable}/order-language-pairs`, { query: { status: 'unassigned' } });
		const walletBefore = await sandbox.get<{ usedCredits: number }>('/integration/credits');
		await sandbox.clearRequests();

		const run = await n8n.execute(PUBLIC_API_WORKFLOW_ID);

		// Each action reached the service once, and its order shows it.
		const requests = await sandbox.requests();
		const posts = (suffix: string) => requests.filter((request) => request.method === 'POST' && request.path.endsWith(suffix)).map((request) => request.status);
		assert.deepEqual(posts(`/orders/cancel/${publicApi.pendingOrderId}`), [204]);
		assert.deepEqual(posts(`/${publicApi.rerunOrderId}/rerun`), [200]);
		assert.deepEqual(posts(`/${publicApi.qcOrderId}/qc`), [200]);
		assert.deepEqual(posts(`/revision/${publicApi.revisionOrderId}`), [201]);
		assert.equal((await sandbox.get<Json>(`/integration/orders/${publicApi.pendingOrderId}`)).status, 'cancelled');
		assert.equal((await sandbox.get<Json>(`/integration/orders/${publicApi.rerunOrderId}`)).status, 'ongoing');
		const rerun = singleJson(run, 'Rerun order');
		assert.deepEqual([rerun.success, rerun.orderId], [true, publicApi.rerunOrderId]);
		const qc = singleJson(run, 'Run QC evaluation');
		assert.equal(qc.isProcessing, true);
		const evaluated = await sandbox.get<{ latestEvaluation: Json }>(`/integration/orders/${publicApi.qcOrderId}`);
		assert.deepEqual([evaluated.latestEvaluation.isLoading, evaluated.latestEvaluation.orderId], [true, publicApi.qcOrderId]);
		const walletAfter = await sandbox.get<{ usedCredits: number }>('/integration/credits');
		assert.ok(walletAfter.usedCredits > walletBefore.usedCredits, 'the rerun and the QC evaluation spent no credits');

		// The revision was created, listed, then deleted.
		const revision = singleJson(run, 'Create revision');
		assert.deepEqual([revision.type, revision.time, revision.description, revision.orderId], ['syncError', '00:01:02', 'E2E: subtitles late', publicApi.revisionOrderId]);
		assert.ok(jsonOf(run, 'Get revisions').some((row) => row.id === revision.id), 'the new revision is not listed');
		assert.deepEqual(await sandbox.get<Json[]>(`/integration/revision/${publicApi.revisionOrderId}`), []);

		assert.deepEqual(ids(jsonOf(run, 'Get many projects')), ids(expectedProjects));
		assert.deepEqual(singleJson(run, 'Get project'), expectedProject);
		const created = singleJson(run, 'Create project from URL');
		assert.equal(created.name, (await sandbox.get<Json>(`/integration/project/${String(created.projectId)}`)).name);

		assert.deepEqual(ids(jsonOf(run, 'Get many folders')), ids(expectedFolders));
		const pairs = jsonOf(run, 'Get language pairs');
		assert.ok(expectedPairs.pairs.length > 0, 'the folder has no unassigned language pair to show');
		assert.deepEqual(
			pairs.map((pair) => `${String(pair.sourceLanguage)}>${String(pair.targetLanguage)}`).sort(),
			expectedPairs.pairs.map((pair) => `${String(pair.sourceLanguage)}>${String(pair.targetLanguage)}`).sort(),
		);
		const assigned = singleJson(run, 'Assign translator');
		assert.ok(Number(assigned.assignedCount) >= 1, `assignedCount ${String(assigned.assignedCount)}`);
		// Nothing is left to assign in that folder: the node's request did it.
		assert.deepEqual(
			(await sandbox.get<{ pairs: Json[] }>(`/integration/folder/${writable}/order-language-pairs`, { query: { status: 'unassigned' } })).pairs,
			[],
		);

		const [exported] = outputOf(run, 'Export folders');
		const workbook = readBinary(n8n, exported, 'sheet');
		assert.equal(exported.binary?.sheet.mimeType, XLSX_MIME_TYPE);
		const sheet = await readFirstSheet(workbook);
		// One sheet per order and language, named "{order name} - {language}" cut to Excel's 31 characters.
		assert.ok(sheet.name.includes(' - ') && sheet.name.length <= 31, `sheet name ${sheet.name}`);
		assert.deepEqual(sheet.rows[0].slice(0, 4), ['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES']);

		// Custom instruction: created, updated, read, listed, deleted.
		const instruction = singleJson(run, 'Create instruction');
		assert.deepEqual([instruction.key, instruction.value, instruction.active], ['e2e_tone', 'Keep a friendly tone.', true]);
		assert.equal(singleJson(run, 'Update instruction').active, false);
		assert.deepEqual([singleJson(run, 'Get instruction').id, singleJson(run, 'Get instruction').active], [instruction.id, false]);
		assert.ok(jsonOf(run, 'Get many instructions').some((row) => row.id === instruction.id), 'the new instruction is not listed');
		assert.ok(!(await sandbox.get<Json[]>('/integration/custom-instructions')).some((row) => row.id === instruction.id), 'the instruction was not deleted');

		// Content export: one item per entry, as the API's map says.
		const exportedMap = await sandbox.get<Record<string, string>>('/integration/content/export', { query: { targetLanguage: 'de' } });
		const entries = jsonOf(run, 'Export content');
		assert.ok(entries.length > 0, 'no content exported');
		assert.deepEqual(
			Object.fromEntries(entries.map((entry) => [String(entry.sourceText), String(entry.targetText)])),
			exportedMap,
		);

		assert.deepEqual(jsonOf(run, 'Get languages').map((row) => row.code), (await sandbox.get<Json[]>('/integration/locales/languages')).map((row) => row.code));
		assert.ok(jsonOf(run, 'Search languages').some((row) => String(row.name).startsWith('Portug')), 'no Portuguese found');
		assert.equal(singleJson(run, 'Validate language tag').valid, true);

		const figma = singleJson(run, 'Create Figma orders');
		const figmaOrders = figma.orders as Array<{ orderId: string; targetLanguage: string }>;
		assert.deepEqual(figmaOrders.map((order) => order.targetLanguage).sort(), ['de', 'fr']);
		const listedFigma = jsonOf(run, 'Get Figma orders');
		assert.deepEqual(listedFigma.map((row) => row.id).sort(), figmaOrders.map((order) => order.orderId).sort());
		assert.equal(singleJson(run, 'Get Figma order status').completedAt ?? null, null);
		assert.equal(singleJson(run, 'Check health').status, 'OK');

		const vtt = singleJson(run, 'Upload VTT');
		assert.equal(vtt.projectId, fixtures.projects.writable);
		const withVtt = await sandbox.get<{ projectDocs: Json[] }>(`/integration/project/${fixtures.projects.writable}`);
		assert.ok(withVtt.projectDocs.length > (expectedProject.projectDocs as Json[]).length, 'the VTT file is not among the project documents');
	});

	it('memory: create, rename, import items waiting for import and vectorization, get import job, get, get many, delete', async () => {
		const run = await executeWithImportFinishing(WORKFLOW_IDS.memory);

		const created = singleJson(run, 'Create memory');
		const memoryId = String(created.id);
		assert.deepEqual([created.title, created.memoryItemsCount], ['E2E memory', 0]);
		assert.deepEqual([singleJson(run, 'Rename memory').id, singleJson(run, 'Rename memory').title], [memoryId, 'E2E memory (renamed)']);

		const imported = singleJson(run, 'Import items');
		const job = await sandbox.get<Json>(`/integration/memories/import-jobs/${String(imported.jobId)}`);
		assert.deepEqual(imported, { memoryId, unitsSent: UNITS_FOR_MEMORY.length, ...job });
		assert.deepEqual([job.status, job.itemsCount, job.vectorizationStatus], ['completed', UNITS_FOR_MEMORY.length, 'completed']);
		assert.deepEqual(singleJson(run, 'Get import job'), job);

		const memory = singleJson(run, 'Get memory');
		assert.deepEqual([memory.id, memory.title, memory.memoryItemsCount], [memoryId, 'E2E memory (renamed)', UNITS_FOR_MEMORY.length]);
		const listed = jsonOf(run, 'Get many memories');
		assert.ok(listed.some((entry) => entry.id === memoryId && entry.title === 'E2E memory (renamed)'), 'the memory is not listed');
		assert.ok(fixtures.memories.every((id) => listed.some((entry) => entry.id === id)), 'a seeded memory is not listed');

		assert.deepEqual(singleJson(run, 'Delete memory'), { success: true, memoryId, deleted: true });
		assert.equal((await sandbox.call('GET', `/integration/memories/${memoryId}`)).status, 404);
	});

	describe('failures reach n8n as failed executions, in the API\'s words', () => {
		async function assertFailsWith(workflowId: string, nodeName: string, apiAnswer: { status: number; body: unknown }): Promise<void> {
			const apiMessage = (apiAnswer.body as { message?: unknown }).message;
			assert.equal(typeof apiMessage, 'string', `the API answered ${JSON.stringify(apiAnswer.body)}`);
			const run = await n8n.executeFailing(workflowId);
			assert.equal(run.status, 'error');
			const { error, lastNodeExecuted } = run.data.resultData;
			assert.equal(lastNodeExecuted, nodeName);
			assert.ok(error, 'the run carries no error');
			assert.ok(error.message.includes(apiMessage as string), `"${error.message}" does not contain the API's message "${apiMessage}"`);
			assert.equal(String(error.httpCode), String(apiAnswer.status));
		}

		it('a wrong API key', async () => {
			await assertFailsWith(WORKFLOW_IDS.wrongKey, 'Get credit wallet', await sandbox.call('GET', '/integration/credits', { key: { raw: WRONG_KEY } }));
		});

		it('a key without a billing role reading consumption', async () => {
			const answer = await sandbox.call('GET', '/integration/consumption', { key: 'member' });
			assert.equal(answer.status, 403);
			await assertFailsWith(WORKFLOW_IDS.memberConsumption, 'Get consumption', answer);
		});

		it('human review of an order that is not eligible', async () => {
			const answer = await sandbox.call('POST', `/integration/orders/${ongoingOrderId}/human-review`);
			assert.equal((answer.body as Json).code, 'ORDER_NOT_ELIGIBLE');
			await assertFailsWith(WORKFLOW_IDS.notEligible, 'Request human review', answer);
		});
	});

	it('example "weekly consumption report": sums of the last 7 days by provider, order type and requestor, as XLSX', async () => {
		const workflow = readExample(CONSUMPTION_EXAMPLE);
		const run = await n8n.execute(String(workflow.id));

		const window = singleJson(run, 'Last 7 days') as { from: string; to: string };
		// Two readings of n8n's clock, milliseconds apart.
		const windowMs = Date.parse(window.to) - Date.parse(window.from);
		assert.ok(Math.abs(windowMs - 7 * 86_400_000) < 1000, `window ${window.from} .. ${window.to}`);
		const lines = await sandbox.getAllPages<Json & { createdBy: { name: string } }>('/integration/consumption', {
			'filter[from]': window.from,
			'filter[to]': window.to,
		});
		assert.ok(lines.length > 0, 'the sandbox has no consumption in the last 7 days');
		// Summed in the API's order, as the Summarize node does, and rounded as n8n's round(2) does.
		const groups = new Map<string, { provider: string; orderType: string; requestor: string; lines: number; credits: number; usd: number }>();
		for (const line of lines) {
			const key = JSON.stringify([line.provider, line.orderType, line.createdBy.name]);
			const group = groups.get(key) ?? { provider: String(line.provider), orderType: String(line.orderType), requestor: line.createdBy.name, lines: 0, credits: 0, usd: 0 };
			group.lines += 1;
			group.credits += Number(line.creditsUsed);
			group.usd += Number(line.usdEquivalent);
			groups.set(key, group);
		}
		const expectedRows = [...groups.values()]
			.map((group) => [group.provider, group.orderType, group.requestor, group.lines, group.credits, Number(group.usd.toFixed(2)), window.from, window.to])
			.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

		const [file] = outputOf(run, 'Spreadsheet');
		const binary = file.binary?.data;
		assert.equal(binary?.mimeType, XLSX_MIME_TYPE);
		assert.match(binary?.fileName ?? '', /^ollang-consumption-\d{4}-\d{2}-\d{2}\.xlsx$/);
		const sheet = await readFirstSheet(readBinary(n8n, file));
		assert.equal(sheet.name, 'Consumption');
		assert.deepEqual(sheet.rows[0], ['Provider', 'Order type', 'Requestor', 'Lines', 'Credits', 'USD', 'From', 'To']);
		const rows = sheet.rows.slice(1).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
		assert.deepEqual(rows, expectedRows);
	});

	it('example "import a spreadsheet into a translation memory": rows of a CSV file imported, waited for, reported', async () => {
		const csvRows = readFileSync(path.join(EXAMPLES_DIR, MEMORY_EXAMPLE_UNITS), 'utf8').trim().split('\n').slice(1);
		const run = await executeWithImportFinishing(String(readExample(MEMORY_EXAMPLE).id));

		assert.equal(jsonOf(run, 'Rows').length, csvRows.length);
		const report = singleJson(run, 'Import report');
		const job = await sandbox.get<Json>(`/integration/memories/import-jobs/${String(report.jobId)}`);
		assert.deepEqual(report, {
			memoryId: memoryForExample,
			jobId: job.jobId,
			status: 'completed',
			unitsSent: csvRows.length,
			itemsCount: csvRows.length,
			completedAt: job.completedAt,
			vectorizationStatus: 'completed',
			vectorizationCompletedAt: job.vectorizationCompletedAt,
		});
		const memory = await sandbox.get<Json>(`/integration/memories/${memoryForExample}`);
		assert.equal(memory.memoryItemsCount, csvRows.length);
	});

	it('Return All while the listings grow: every consumption line and order as of page 1 once, nothing else, no extra request', async () => {
		const expectedLines = ids(await sandbox.getAllPages<Json>('/integration/consumption', { 'filter[from]': growingFrom }));
		const expectedOrders = ids(await sandbox.getAllPages<Json>('/integration/orders'));
		// After each answered page: 3 new lines (consumption) or 2 new orders (orders), a second later on the clock.
		await sandbox.admin('PUT', 'growth', { consumption: 3, orders: 2, clockStepMs: 1000 });
		await sandbox.clearRequests();
		let run: N8nRun;
		try {
			run = await n8n.execute(WORKFLOW_IDS.growingListings);
		} finally {
			await sandbox.admin('PUT', 'growth', { consumption: 0, orders: 0 });
		}

		const requests = await sandbox.requests();
		const pageReads = (listing: string) => requests.filter((request) => request.method === 'GET' && request.path === listing).length;
		const count = (out: string[], expected: string[]) => {
			const wanted = new Set(expected);
			const seen = new Set(out);
			return {
				expected: expected.length,
				out: out.length,
				duplicated: out.length - seen.size,
				missing: expected.filter((id) => !seen.has(id)).length,
				unexpected: [...seen].filter((id) => !wanted.has(id)).length,
			};
		};
		const lines = ids(jsonOf(run, 'Get consumption'));
		const orders = ids(jsonOf(run, 'Get orders'));
		const table = {
			consumption: { ...count(lines, expectedLines), extraRequests: pageReads('/integration/consumption') - Math.ceil(expectedLines.length / 10) },
			orders: { ...count(orders, expectedOrders), extraRequests: pageReads('/integration/orders') - Math.ceil(expectedOrders.length / 10) },
		};
		console.log(`Return All while the listings grow, in n8n ${process.env.OLLANG_N8N_VERSION ?? ''}:\n${JSON.stringify(table, null, 2)}`);
		assert.ok(expectedLines.length > 100, `only ${expectedLines.length} lines in the range`);
		assert.ok((await sandbox.getAllPages<Json>('/integration/consumption', { 'filter[from]': growingFrom })).length > expectedLines.length, 'no line arrived during the read');
		for (const listing of [table.consumption, table.orders]) {
			assert.deepEqual(listing, { expected: listing.expected, out: listing.expected, duplicated: 0, missing: 0, unexpected: 0, extraRequests: 0 });
		}
	});

	it('order files: every kind stored as the storage host served it, an expired link refreshed, an empty filter a hint, the key never at the storage host', async () => {
		const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
		// What the storage host serves, fetched as a client without the key would: name -> hash and type.
		const served = new Map<string, { sha256: string; mimeType: string; size: number }>();
		for (const step of DOWNLOAD_STEPS) {
			const order = await sandbox.get<{ orderDocs: Array<{ name: string; url: string }> }>(`/integration/orders/${fixtures.orders.byType[step.order]}`);
			for (const doc of order.orderDocs.filter((entry) => entry.url.startsWith(sandbox.info.filesOrigin))) {
				const answer = await fetch(doc.url);
				const bytes = Buffer.from(await answer.arrayBuffer());
				served.set(doc.name, { sha256: sha256(bytes), mimeType: answer.headers.get('content-type') ?? '', size: bytes.length });
			}
		}
		await sandbox.admin('DELETE', 'files/requests');
		// The first order read hands out links that have expired: the node reads the order again.
		await sandbox.admin('PUT', 'files/settings', { expireNextReads: 1 });
		await sandbox.clearRequests();

		const run = await n8n.execute(WORKFLOW_IDS.downloads);

		for (const step of DOWNLOAD_STEPS) {
			const items = outputOf(run, step.name);
			assert.deepEqual(items.map((item) => item.json.kind), [...step.kinds], step.name);
			for (const item of items) {
				const name = String(item.json.fileName);
				const expected = served.get(name);
				assert.ok(expected, `${step.name}: the sandbox serves no ${name}`);
				assert.deepEqual(
					{ sha256: sha256(readBinary(n8n, item)), fileName: item.binary?.data.fileName, mimeType: item.binary?.data.mimeType, size: item.json.fileSize, orderId: item.json.orderId },
					{ sha256: expected.sha256, fileName: name, mimeType: expected.mimeType, size: expected.size, orderId: fixtures.orders.byType[step.order] },
				);
			}
		}
		const hints = (run.data.resultData.runData['Download nothing'][0].hints ?? []).map((hint) => hint.message);
		assert.equal(hints.length, 1);
		assert.match(hints[0], /has no file of the kind "Translated Document"/);

		const firstOrder = fixtures.orders.byType[DOWNLOAD_STEPS[0].order];
		const orderReads = (await sandbox.requests()).filter((request) => request.method === 'GET' && request.path === `/integration/orders/${firstOrder}`);
		assert.equal(orderReads.length, 2, 'the order was not read again for fresh links');
		const storage = await sandbox.admin<Array<{ status: number; apiKeySent: boolean }>>('GET', 'files/requests');
		assert.deepEqual(storage.map((request) => request.status), [403, 200, 200, 200, 200, 200]);
		assert.deepEqual(storage.filter((request) => request.apiKeySent), []);
	});

	it('leaves no API key in n8n\'s database, user folder or output', () => {
		assertNoKeyLeft(n8n, sandbox.info.keys);
		assert.ok(n8n.transcripts.length >= 9, `only ${n8n.transcripts.length} n8n commands were scanned`);
	});
});
