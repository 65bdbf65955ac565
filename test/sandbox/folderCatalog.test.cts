import ExcelJS from 'exceljs';
import type { OrderRecord, Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeB, expectShapeC, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const MISSING = 'eeeeeeeeeeeeeeeeeeeeeeee';
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const ordersIn = (s: Sandbox, folderId: string, test: (order: OrderRecord) => boolean) =>
	[...s.state.orders.values()].filter((order) => order.folderId === folderId && test(order));
const assignable = (order: OrderRecord) => order.status === 'completed' && order.translatorId === null;
const unassignable = (order: OrderRecord) => order.status === 'ongoing' && order.translatorId !== null;

describe('GET /integration/folder (flat paging)', () => {
	it('answers every folder the key can read with hexColor, type and projectCount', async () => {
		const response = await call(sandbox(), 'GET', '/integration/folder', { query: { take: 50 } });
		const folders = [...sandbox().state.folders.values()];

		expect(response.status).toBe(200);
		expect(response.body.meta).toEqual({ page: 1, take: 50, itemCount: folders.length, pageCount: 1, hasPreviousPage: false, hasNextPage: false });
		for (const row of response.body.data) {
			const projects = [...sandbox().state.projects.values()].filter((project) => project.folderId === row.id).length;
			expect(row).toEqual({ id: row.id, name: expect.any(String), hexColor: expect.stringMatching(/^#[0-9A-F]{6}$/), type: expect.stringMatching(/^(default|api)$/), createdAt: expect.any(String), projectCount: projects });
		}
		expect(response.body.data.find((row: any) => row.id === sandbox().fixtures.folders.writable).projectCount).toBeGreaterThan(0);
		expect(response.body.data.filter((row: any) => row.type === 'api').map((row: any) => row.name)).toEqual(['API Uploads']);
	});

	it('search (case-insensitive, partial), sort by name and paging', async () => {
		const search = await call(sandbox(), 'GET', '/integration/folder', { query: { search: 'GENER' } });
		expect(search.body.data.map((row: any) => row.id)).toEqual([sandbox().fixtures.folders.writable]);

		const names: string[] = [];
		for (let page = 1; page <= 3; page++) {
			const response = await call(sandbox(), 'GET', '/integration/folder', { query: { page, take: 2, orderBy: 'name', orderDirection: 'asc' } });
			names.push(...response.body.data.map((row: any) => row.name));
			expect(response.body.meta).toMatchObject({ page, take: 2, hasPreviousPage: page > 1 });
		}
		expect(names).toEqual([...sandbox().state.folders.values()].map((folder) => folder.name).sort());
	});

	it('the member does not see the folder hidden from it', async () => {
		const { fixtures, keys } = sandbox();
		const response = await call(sandbox(), 'GET', '/integration/folder', { key: keys.member, query: { take: 50 } });
		const ids = response.body.data.map((row: any) => row.id);
		expect(ids).not.toContain(fixtures.folders.hiddenFromMember);
		expect(ids).toContain(fixtures.folders.readOnlyForMember);
	});

	it('400 for orderBy projectCount, take 0 and an unknown key; 401 shape C without a key', async () => {
		const bad = await call(sandbox(), 'GET', '/integration/folder', { query: { orderBy: 'projectCount', take: 0, colour: 'red' } });
		expectShapeB(bad.body, 400, 'Bad Request');
		expect(bad.body.message).toEqual(
			expect.arrayContaining(['orderBy must be one of the following values: id, name, createdAt', 'take must not be less than 1', 'property colour should not exist']),
		);
		const anonymous = await call(sandbox(), 'GET', '/integration/folder', { key: null });
		expect(anonymous.status).toBe(401);
		expectShapeC(anonymous.body, 'UNAUTHORIZED');
	});
});

describe('order language pairs, assign and unassign translator', () => {
	const pairsPath = (folderId: string) => `/integration/folder/${folderId}/order-language-pairs`;
	const assignPath = (folderId: string) => `/integration/folder/${folderId}/assign-translator-to-orders`;

	it('pairs (default unassigned) are those of the completed orders without a translator, with counts', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		sandbox().simulate.createOrders(2, { status: 'completed', level: 0, targetLanguage: 'pl', progress: false });
		const response = await call(sandbox(), 'GET', pairsPath(folderId));

		expect(response.status).toBe(200);
		const expected = new Map<string, number>();
		for (const order of ordersIn(sandbox(), folderId, assignable)) {
			const key = `${order.sourceLanguage}>${order.targetLanguage}`;
			expected.set(key, (expected.get(key) ?? 0) + 1);
		}
		expect(Object.keys(response.body)).toEqual(['pairs']);
		expect(new Map(response.body.pairs.map((pair: any) => [`${pair.sourceLanguage}>${pair.targetLanguage}`, pair.ordersCount]))).toEqual(expected);
		expect(expected.get(`${sandbox().state.projects.get(sandbox().fixtures.projects.writable)!.sourceLanguage}>pl`)).toBeGreaterThanOrEqual(2);
	});

	it('assigns the translator to the eligible orders matching the filters; they become assigned pairs; unassign takes them back', async () => {
		const s = sandbox();
		const folderId = s.fixtures.folders.writable;
		const translatorId = s.state.translators[1].id;
		const created = s.simulate.createOrders(3, { status: 'completed', level: 0, targetLanguage: 'nl', progress: false });
		const eligible = ordersIn(s, folderId, (order) => assignable(order) && order.targetLanguage === 'nl');
		const otherEligible = ordersIn(s, folderId, assignable).length - eligible.length;

		const response = await call(s, 'POST', assignPath(folderId), { body: { translatorId, targetLanguage: 'nl', deadline: '2026-11-20T17:00:00+01:00' } });

		expect(response.status).toBe(200);
		expect(response.body).toEqual({ assignedCount: eligible.length });
		expect(eligible.length).toBeGreaterThanOrEqual(3);
		for (const order of eligible) {
			expect(order).toMatchObject({ translatorId, status: 'ongoing', translatorDeadline: '2026-11-20T16:00:00.000Z', level: 0 });
		}
		expect(ordersIn(s, folderId, assignable)).toHaveLength(otherEligible);
		const assigned = await call(s, 'GET', pairsPath(folderId), { query: { status: 'assigned' } });
		const assignedNl = ordersIn(s, folderId, (order) => unassignable(order) && order.targetLanguage === 'nl');
		expect(assignedNl.length).toBeGreaterThanOrEqual(eligible.length);
		expect(assigned.body.pairs.filter((pair: any) => pair.targetLanguage === 'nl').reduce((sum: number, pair: any) => sum + pair.ordersCount, 0)).toBe(assignedNl.length);

		// Assigning again finds nothing left to assign.
		expect((await call(s, 'POST', assignPath(folderId), { body: { translatorId, targetLanguage: 'nl' } })).body).toEqual({ assignedCount: 0 });

		// The translator delivers 120 minutes later: the order passes the review gate, then completes.
		s.clock.advance(121);
		expect(created[0].status).toBe('qualityCheck');
		expect(created[0].deliveryEvents.at(-1)).toMatchObject({ type: 'translator_delivered', actorId: translatorId });

		const [again] = s.simulate.createOrders(1, { status: 'completed', level: 0, targetLanguage: 'it', progress: false });
		await call(s, 'POST', assignPath(folderId), { body: { translatorId, targetLanguage: 'it' } });
		const unassign = await call(s, 'POST', `/integration/folder/${folderId}/unassign-translator-from-orders`, { body: { targetLanguage: 'it' } });
		expect(unassign.body.unassignedCount).toBeGreaterThanOrEqual(1);
		expect(again).toMatchObject({ translatorId: null, translatorDeadline: null });
	});

	it('without filters, covers the whole folder and only that folder', async () => {
		const s = sandbox();
		const folderId = s.fixtures.folders.writable;
		const elsewhere = ordersIn(s, s.fixtures.folders.readOnlyForMember, assignable).length;
		const here = ordersIn(s, folderId, assignable).length;

		const response = await call(s, 'POST', assignPath(folderId), { body: { translatorId: s.state.translators[0].id } });

		expect(response.body).toEqual({ assignedCount: here });
		expect(ordersIn(s, folderId, assignable)).toHaveLength(0);
		expect(ordersIn(s, s.fixtures.folders.readOnlyForMember, assignable)).toHaveLength(elsewhere);
		expect((await call(s, 'GET', pairsPath(folderId))).body).toEqual({ pairs: [] });
	});

	it('400: translatorId missing or unknown, a deadline that is not ISO 8601, a status that is not assigned/unassigned', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const missing = await call(sandbox(), 'POST', assignPath(folderId), { body: { deadline: 'next friday' } });
		expectShapeB(missing.body, 400, 'Bad Request');
		expect(missing.body.message).toEqual(['translatorId should not be empty', 'deadline must be a valid ISO 8601 date string']);

		const unknown = await call(sandbox(), 'POST', assignPath(folderId), { body: { translatorId: MISSING } });
		expect(unknown.body.message).toEqual(['translatorId must reference an existing translator']);

		const status = await call(sandbox(), 'GET', pairsPath(folderId), { query: { status: 'completed' } });
		expect(status.body.message).toEqual(['status must be one of the following values: unassigned, assigned (unassigned: completed orders without a translator; assigned: ongoing orders with one)']);
	});

	it('403 without write access (assign), 403 without read access (pairs), 404 for an unknown folder', async () => {
		const { fixtures, keys, state } = sandbox();
		const body = { translatorId: state.translators[0].id };
		expect((await call(sandbox(), 'POST', assignPath(fixtures.folders.readOnlyForMember), { body, key: keys.member })).status).toBe(403);
		expect((await call(sandbox(), 'GET', pairsPath(fixtures.folders.readOnlyForMember), { key: keys.member })).status).toBe(200);
		expect((await call(sandbox(), 'GET', pairsPath(fixtures.folders.hiddenFromMember), { key: keys.member })).status).toBe(403);
		const unknown = await call(sandbox(), 'POST', assignPath(MISSING), { body });
		expect(unknown.status).toBe(404);
		expect(unknown.body.message).toBe('Folder not found');
	});
});

describe('POST /integration/folder/export-xlsx', () => {
	async function exportFolders(s: Sandbox, body: unknown, key = s.keys.owner) {
		const response = await fetch(new URL('/integration/folder/export-xlsx', s.baseUrl), {
			method: 'POST',
			headers: { 'x-api-key': key, 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		return { response, data: Buffer.from(await response.arrayBuffer()) };
	}

	it('one sheet per order and language, named "{OrderName} - {lang}" (at most 31 characters, the language kept), filename bulk_export_{date}.xlsx', async () => {
		const s = sandbox();
		const folderId = s.fixtures.folders.readOnlyForMember;
		const languages = ['fr', 'de', 'es', 'it', 'pt', 'ja'];
		const orders = ordersIn(s, folderId, (order) => order.segmentCount > 0 && languages.includes(order.targetLanguage)).sort((a, b) => (a.id < b.id ? -1 : 1));

		const { response, data } = await exportFolders(s, { folderIds: [folderId], targetLanguages: languages });

		expect(response.status).toBe(200);
		expect(response.headers.get('content-type')).toBe(XLSX_TYPE);
		expect(response.headers.get('content-disposition')).toContain(`filename="bulk_export_${s.clock.now().toISOString().slice(0, 10)}.xlsx"`);
		const workbook = new ExcelJS.Workbook();
		await workbook.xlsx.load(data as unknown as ArrayBuffer);
		expect(orders.length).toBeGreaterThan(1);
		expect(workbook.worksheets).toHaveLength(orders.length);
		const names = workbook.worksheets.map((sheet) => sheet.name);
		expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(names.length);
		workbook.worksheets.forEach((sheet, index) => {
			const order = orders[index];
			expect(sheet.name.length).toBeLessThanOrEqual(31);
			expect(sheet.name.endsWith(` - ${order.targetLanguage}`)).toBe(true);
			expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES', order.targetLanguage]);
			expect(sheet.rowCount).toBe(order.segmentCount + 1);
		});
	});

	it('an empty targetLanguages list exports every language; the member may export a folder it reads', async () => {
		const s = sandbox();
		const folderId = s.fixtures.folders.readOnlyForMember;
		const { response, data } = await exportFolders(s, { folderIds: [folderId], targetLanguages: [] }, s.keys.member);
		expect(response.status).toBe(200);
		const workbook = new ExcelJS.Workbook();
		await workbook.xlsx.load(data as unknown as ArrayBuffer);
		expect(workbook.worksheets).toHaveLength(ordersIn(s, folderId, (order) => order.segmentCount > 0).length);
	});

	it('400 for empty folderIds or a missing targetLanguages; 403 for a folder the key cannot see; 404 for an unknown one', async () => {
		const s = sandbox();
		const empty = await exportFolders(s, { folderIds: [], targetLanguages: ['fr'] });
		expect(empty.response.status).toBe(400);
		expect(JSON.parse(empty.data.toString()).message).toEqual(['folderIds should not be empty']);
		const noLanguages = await exportFolders(s, { folderIds: [s.fixtures.folders.writable] });
		expect(JSON.parse(noLanguages.data.toString()).message).toEqual(['targetLanguages should not be empty']);
		const hidden = await exportFolders(s, { folderIds: [s.fixtures.folders.readOnlyForMember, s.fixtures.folders.hiddenFromMember], targetLanguages: [] }, s.keys.member);
		expect(hidden.response.status).toBe(403);
		expect((await exportFolders(s, { folderIds: [MISSING], targetLanguages: [] })).response.status).toBe(404);
	});

	it('500 shape B when no order of the folders has segment data in those languages', async () => {
		const s = sandbox();
		const { response, data } = await exportFolders(s, { folderIds: [s.fixtures.folders.writable], targetLanguages: ['xx'] });
		expect(response.status).toBe(500);
		const body = JSON.parse(data.toString());
		expectShapeB(body, 500);
		expect(body.message).toMatch(/^No segment data found for folders /);
	});
});

describe('order language pairs: the statuses the API takes', () => {
	it('takes unassigned (the default) and assigned, the values of the public guide; completed (the SDK tests\' free string) is a 400 that says what each value means', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		for (const status of ['unassigned', 'assigned']) {
			expect((await call(sandbox(), 'GET', `/integration/folder/${folderId}/order-language-pairs`, { query: { status } })).status).toBe(200);
		}
		const completed = await call(sandbox(), 'GET', `/integration/folder/${folderId}/order-language-pairs`, { query: { status: 'completed' } });
		expect(completed.status).toBe(400);
		expectShapeB(completed.body, 400, 'Bad Request');
		expect(completed.body.message).toEqual([
			'status must be one of the following values: unassigned, assigned (unassigned: completed orders without a translator; assigned: ongoing orders with one)',
		]);
	});
});

describe('folder XLSX sheet names with long folder and order names', () => {
	/** A project with a long name (order names are "{project} - {LANG}"), completed orders in the given languages. */
	async function longNamedOrders(name: string, languages: string[]): Promise<OrderRecord[]> {
		const s = sandbox();
		const project = await call(s, 'POST', '/integration/project/create-by-url', { body: { url: 'https://cdn.example.com/trailer.mp4', name, sourceLanguage: 'en', folderId: s.fixtures.folders.hiddenFromMember } });
		expect(project.status).toBe(201);
		const orders: OrderRecord[] = [];
		for (const language of languages) {
			const created = await call(s, 'POST', '/integration/orders/create', { body: { orderType: 'document', level: 0, projectId: project.body.projectId, targetLanguageConfigs: [{ language }] } });
			expect(created.status).toBe(201);
			orders.push(s.simulate.advanceOrderTo(created.body[0].orderId, 'completed'));
		}
		return orders;
	}

	it('every sheet name keeps its language, is unique, at most 31 characters, without doubled or edge spaces', async () => {
		const s = sandbox();
		const orders = [
			...(await longNamedOrders('Season Trailer General 1  Extended  Director\'s Cut: Part [A]', ['de', 'pt-PT', 'de', 'zh-Hant', 'de'])),
			...(await longNamedOrders('Season Trailer General 1  Extended  Director\'s Cut: Part [B]', ['de', 'es-MX'])),
		];
		for (const order of orders) expect(order.segmentCount).toBeGreaterThan(0);
		const response = await fetch(new URL('/integration/folder/export-xlsx', s.baseUrl), {
			method: 'POST',
			headers: { 'x-api-key': s.keys.owner, 'content-type': 'application/json' },
			body: JSON.stringify({ folderIds: [s.fixtures.folders.hiddenFromMember], targetLanguages: ['de', 'pt-PT', 'zh-Hant', 'es-MX'] }),
		});
		expect(response.status).toBe(200);
		const workbook = new ExcelJS.Workbook();
		await workbook.xlsx.load(Buffer.from(await response.arrayBuffer()) as unknown as ArrayBuffer);
		const names = workbook.worksheets.map((sheet) => sheet.name);
		const ours = workbook.worksheets.filter((sheet) => /^Season Trailer/.test(sheet.name));
		expect(ours).toHaveLength(orders.length);
		expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(names.length);
		ours.forEach((sheet, index) => {
			const order = orders[index];
			expect(sheet.name.length).toBeLessThanOrEqual(31);
			expect(sheet.name).toMatch(new RegExp(` - ${order.targetLanguage}$`));
			expect(sheet.name).not.toMatch(/\s{2}|^\s|\s$|[:\\/?*[\]]/);
			expect(sheet.getRow(1).getCell(5).value).toBe(order.targetLanguage);
		});
		// Sheets of the same language are told apart by a counter before the language, not by a cut-off name.
		expect(ours.map((sheet) => sheet.name).filter((name) => name.endsWith(' - de'))).toEqual([
			"Season Trailer General 1 - de",
			"Season Trailer General (2) - de",
			"Season Trailer General (3) - de",
			"Season Trailer General (4) - de",
		]);
	});
});
