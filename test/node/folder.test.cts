import ExcelJS from 'exceljs';
import { binaryInputItem, readBinary } from '../harness/engine.cts';
import { byId, failure, run, startStub, useSandbox, sentInThisProcess } from './setup.cts';

const sandbox = useSandbox();
const MISSING = 'cccccccccccccccccccccccc';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const folderOp = (operation: string, folderId: string, extra: Record<string, unknown> = {}) => ({
	resource: 'folder',
	operation,
	folderId: byId(folderId),
	...extra,
});
const docsOf = (folderId: string) => [...sandbox().state.folderDocs.values()].filter((doc) => doc.folderId === folderId);

describe('Folder > Unassign Translator', () => {
	const eligible = (folderId: string, targetLanguage?: string) =>
		[...sandbox().state.orders.values()].filter(
			(order) =>
				order.folderId === folderId &&
				order.translatorId !== null &&
				order.status === 'ongoing' &&
				(targetLanguage === undefined || order.targetLanguage === targetLanguage),
		);

	it('with a language filter, unassigns only the matching eligible orders', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		// Arrange: ongoing orders with a translator assigned, in two target languages.
		const translatorId = sandbox().state.translators[0].id;
		const created = [
			...sandbox().simulate.createOrders(2, { status: 'ongoing', level: 1, targetLanguage: 'ja', progress: false }),
			...sandbox().simulate.createOrders(1, { status: 'ongoing', level: 1, targetLanguage: 'ko', progress: false }),
		];
		for (const order of created) order.translatorId = translatorId;
		const japanese = eligible(folderId, 'ja').length;
		const others = eligible(folderId).length - japanese;

		const result = await run(sandbox(), folderOp('unassignTranslator', folderId, { filters: { targetLanguage: 'ja' } }));

		expect(japanese).toBe(2);
		expect(others).toBeGreaterThanOrEqual(1);
		expect(result.json).toEqual([{ folderId, unassignedCount: japanese }]);
		expect(eligible(folderId, 'ja')).toHaveLength(0);
		expect(eligible(folderId)).toHaveLength(others);
	});

	it('without filters, unassigns every eligible order; the folder may be given by URL', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const before = eligible(folderId).length;

		const result = await run(sandbox(), {
			resource: 'folder',
			operation: 'unassignTranslator',
			folderId: { __rl: true, mode: 'url', value: `https://app.ollang.com/folders/${folderId}?tab=orders` },
		});

		expect(before).toBeGreaterThan(0);
		expect(result.json).toEqual([{ folderId, unassignedCount: before }]);
		expect(eligible(folderId)).toHaveLength(0);
	});

	it('403 with the member key on a folder it may only read', async () => {
		const error = failure(await run(sandbox(), folderOp('unassignTranslator', sandbox().fixtures.folders.readOnlyForMember), { key: 'member' }));

		expect(error.httpCode).toBe('403');
		expect(error.message).toContain('write permission');
	});

	it('401 with a wrong key', async () => {
		expect(failure(await run(sandbox(), folderOp('unassignTranslator', MISSING), { key: 'wrong-key-3333333' })).httpCode).toBe('401');
	});
});

describe('Folder > Attach Document by URL', () => {
	it('attaches the document and outputs it', async () => {
		const folderId = sandbox().fixtures.folders.writable;

		const result = await run(
			sandbox(),
			folderOp('attachDocument', folderId, {
				url: 'https://example.com/glossary.pdf',
				documentType: 'glossary',
				additionalFields: { name: 'Brand glossary', language: 'de' },
			}),
		);

		expect(result.json[0]).toMatchObject({ success: true, folderId, type: 'glossary', name: 'Brand glossary', language: 'de', id: expect.any(String) });
		expect(sandbox().state.folderDocs.get(String(result.json[0].id))).toMatchObject({ folderId, type: 'glossary' });
	});

	it('refuses a value that is not a URL before any request', async () => {
		const error = failure(await run(sandbox(), folderOp('attachDocument', sandbox().fixtures.folders.writable, { url: 'glossary.pdf', documentType: 'glossary' })));

		expect(error.message).toBe('Invalid Document URL (item 0): "glossary.pdf" is not a valid URL');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('403 with the member key names the write access needed', async () => {
		const error = failure(
			await run(sandbox(), folderOp('attachDocument', sandbox().fixtures.folders.readOnlyForMember, { url: 'https://example.com/a.pdf', documentType: 'guideline' }), {
				key: 'member',
			}),
		);

		expect(error.message).toBe('The Ollang API answered 403 Forbidden: You do not have write permission on this folder');
		expect(error.description).toContain('write access to the folder');
	});
});

describe('Folder > Get Many Documents', () => {
	it('lists the documents of the folder; Limit keeps the first ones', async () => {
		const folderId = sandbox().fixtures.folders.readOnlyForMember;

		const all = await run(sandbox(), folderOp('listDocuments', folderId, { returnAll: true }), { key: 'member' });
		const one = await run(sandbox(), folderOp('listDocuments', folderId, { returnAll: false, limit: 1 }), { key: 'member' });

		expect(all.json.map((doc) => doc.id).sort()).toEqual(docsOf(folderId).map((doc) => doc.id).sort());
		expect(one.json).toEqual(all.json.slice(0, 1));
	});

	it('404 for an unknown folder', async () => {
		expect(failure(await run(sandbox(), folderOp('listDocuments', MISSING, { returnAll: true }))).httpCode).toBe('404');
	});
});

describe('Folder > Upload Document', () => {
	it('uploads the file of a binary field with its type, name and language', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const content = Buffer.from('%PDF-1.4 style guide');

		const result = await run(
			sandbox(),
			folderOp('uploadDocument', folderId, { binaryPropertyName: 'guide', documentType: 'guideline', additionalFields: { language: 'fr' } }),
			{ items: [binaryInputItem(content, { fileName: 'style-guide.pdf', mimeType: 'application/pdf', propertyName: 'guide' })] },
		);

		expect(result.json[0]).toMatchObject({ success: true, folderId, type: 'guideline', language: 'fr', fileName: 'style-guide.pdf', fileSize: content.length });
		expect(sandbox().state.folderDocs.get(String(result.json[0].id))).toMatchObject({ size: content.length, fileName: 'style-guide.pdf' });
	});

	it('names the missing binary field before any request', async () => {
		const error = failure(
			await run(sandbox(), folderOp('uploadDocument', sandbox().fixtures.folders.writable, { binaryPropertyName: 'file', documentType: 'guideline' }), {
				items: [binaryInputItem('x', { fileName: 'a.pdf', propertyName: 'data' })],
			}),
		);

		expect(error.message).toBe('Invalid Input Binary Field (item 0): the item has no binary field "file" (binary fields present: data)');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('refuses a file over 50 MB before sending', async () => {
		const big = Buffer.alloc(50 * 1024 * 1024 + 1, 1);

		const error = failure(
			await run(sandbox(), folderOp('uploadDocument', sandbox().fixtures.folders.writable, { documentType: 'glossary' }), {
				items: [binaryInputItem(big, { fileName: 'huge.pdf' })],
			}),
		);

		expect(error.message).toBe('Invalid Input Binary Field (item 0): the file "huge.pdf" is 50.0 MB, over the 50.0 MB limit');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('403 with the member key on a read-only folder', async () => {
		const error = failure(
			await run(sandbox(), folderOp('uploadDocument', sandbox().fixtures.folders.readOnlyForMember, { documentType: 'glossary' }), {
				items: [binaryInputItem('terms', { fileName: 'terms.pdf' })],
				key: 'member',
			}),
		);

		expect(error.httpCode).toBe('403');
	});
});

describe('Folder > Delete Document', () => {
	it("removes the document, its answer lost: n8n's Retry (a 404, and the folder no longer lists it) reads as already applied; removing it again in a new execution is the 404", async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const documentId = sandbox().fixtures.folderDocs.writable[0];
		sandbox().faults.add({ method: 'DELETE', kind: 'drop', when: 'after', times: 1 });

		const lost = await run(sandbox(), folderOp('removeDocument', folderId, { documentId }), { staticData: {} });
		const retried = await run(sandbox(), folderOp('removeDocument', folderId, { documentId }), { retryOf: lost, staticData: {} });
		const again = await run(sandbox(), folderOp('removeDocument', folderId, { documentId }));

		expect(failure(lost).description).toContain('may have been applied');
		expect(sandbox().state.folderDocs.has(documentId)).toBe(false);
		expect(retried.json).toEqual([{ success: true, folderId, documentId, removed: true, alreadyApplied: true, ...sentInThisProcess() }]);
		expect(failure(again).httpCode).toBe('404');
	});

	it('a 404 for an unknown folder stays an error in the API\'s words', async () => {
		const error = failure(await run(sandbox(), folderOp('removeDocument', 'aaaaaaaaaaaaaaaaaaaaaaaa', { documentId: sandbox().fixtures.folderDocs.writable[1] })));

		expect(error.httpCode).toBe('404');
	});

	it('403 with the member key on a read-only folder', async () => {
		const error = failure(
			await run(sandbox(), folderOp('removeDocument', sandbox().fixtures.folders.readOnlyForMember, { documentId: sandbox().fixtures.folderDocs.readOnlyForMember[0] }), {
				key: 'member',
			}),
		);

		expect(error.httpCode).toBe('403');
		expect(sandbox().state.folderDocs.has(sandbox().fixtures.folderDocs.readOnlyForMember[0])).toBe(true);
	});

	it('refuses a document ID with "/" before any request', async () => {
		const error = failure(await run(sandbox(), folderOp('removeDocument', sandbox().fixtures.folders.writable, { documentId: '={{ "x/y" }}' })));

		expect(error.message).toBe("Invalid Document (item 0): the ID must not contain '/'");
		expect(sandbox().requests.count()).toBe(0);
	});
});

describe('Folder > Get Many', () => {
	it('Return All lists every folder (flat paging), with colour, type and project count', async () => {
		const s = sandbox();
		const result = await run(s, { resource: 'folder', operation: 'getMany', returnAll: true, options: { pageSize: 2, orderBy: 'name', orderDirection: 'asc' } });

		const names = [...s.state.folders.values()].map((folder) => folder.name).sort();
		expect(result.json.map((row) => row.name)).toEqual(names);
		const general = result.json.find((row) => row.id === s.fixtures.folders.writable);
		expect(general).toEqual({
			id: s.fixtures.folders.writable,
			name: 'General',
			hexColor: expect.stringMatching(/^#/),
			type: 'default',
			createdAt: expect.any(String),
			projectCount: [...s.state.projects.values()].filter((project) => project.folderId === s.fixtures.folders.writable).length,
		});
	});

	it('search by part of the name; the member does not see a folder hidden from it', async () => {
		const s = sandbox();
		const searched = await run(s, { resource: 'folder', operation: 'getMany', returnAll: true, filters: { search: 'api up' } });
		const member = await run(s, { resource: 'folder', operation: 'getMany', returnAll: false, limit: 50 }, { key: 'member' });

		expect(searched.json.map((row) => row.type)).toEqual(['api']);
		expect(member.json.map((row) => row.id)).not.toContain(s.fixtures.folders.hiddenFromMember);
		expect(member.json).toHaveLength(s.state.folders.size - 1);
	});
});

describe('Folder > Get Order Language Pairs and Assign Translator', () => {
	const assignable = (folderId: string) =>
		[...sandbox().state.orders.values()].filter((order) => order.folderId === folderId && order.status === 'completed' && order.translatorId === null);

	it('outputs one item per pair; a bare array answer is read too', async () => {
		const s = sandbox();
		const folderId = s.fixtures.folders.writable;
		s.simulate.createOrders(2, { status: 'completed', level: 0, targetLanguage: 'ko', progress: false });
		const result = await run(s, folderOp('getOrderLanguagePairs', folderId));

		const pairs = new Set(assignable(folderId).map((order) => `${order.sourceLanguage}>${order.targetLanguage}`));
		expect(result.json.map((pair) => `${pair.sourceLanguage}>${pair.targetLanguage}`).sort()).toEqual([...pairs].sort());
		expect(result.json[0]).toMatchObject({ folderId, status: 'unassigned', ordersCount: expect.any(Number) });

		const stub = await startStub((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify([{ sourceLanguage: 'en', targetLanguage: 'fr', ordersCount: 3 }]));
		});
		try {
			const bare = await run(s, folderOp('getOrderLanguagePairs', folderId, { status: 'assigned' }), { baseUrl: stub.baseUrl });
			expect(bare.json).toEqual([{ folderId, status: 'assigned', sourceLanguage: 'en', targetLanguage: 'fr', ordersCount: 3 }]);
			expect(stub.requests[0].url).toBe(`/integration/folder/${folderId}/order-language-pairs?status=assigned`);
		} finally {
			await stub.close();
		}
	});

	it('assigns the translator to the eligible orders of one pair, with a deadline; sent once', async () => {
		const s = sandbox();
		const folderId = s.fixtures.folders.writable;
		const translatorId = s.state.translators[2].id;
		const created = s.simulate.createOrders(2, { status: 'completed', level: 0, targetLanguage: 'tr', progress: false });
		const eligible = assignable(folderId).filter((order) => order.targetLanguage === 'tr');
		s.requests.reset();

		const result = await run(
			s,
			folderOp('assignTranslator', folderId, { translatorId, additionalFields: { targetLanguage: 'tr', deadline: '2026-11-15T18:00:00' } }),
		);

		expect(result.json).toEqual([{ folderId, translatorId, assignedCount: eligible.length }]);
		expect(s.requests.count({ method: 'POST' })).toBe(1);
		for (const order of created) expect(order).toMatchObject({ translatorId, status: 'ongoing', translatorDeadline: '2026-11-15T18:00:00.000Z' });
		// Unassign Translator acts on exactly what Assign Translator set going.
		const unassigned = await run(s, folderOp('unassignTranslator', folderId, { filters: { targetLanguage: 'tr' } }));
		expect(Number(unassigned.json[0].unassignedCount)).toBeGreaterThanOrEqual(created.length);
		for (const order of created) expect(order.translatorId).toBeNull();
	});

	it('refuses an invalid deadline and an empty translator before any request', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		sandbox().requests.reset();
		const deadline = failure(await run(sandbox(), folderOp('assignTranslator', folderId, { translatorId: 'abc', additionalFields: { deadline: 'next Friday' } })));
		expect(deadline.message).toBe('Invalid Deadline (item 0): "next Friday" is not a valid ISO 8601 date (e.g. 2026-01-31 or 2026-01-31T12:00:00Z)');
		// By expression: n8n itself stops a required field left empty in the editor.
		const translator = failure(await run(sandbox(), folderOp('assignTranslator', folderId, { translatorId: '={{ " " }}' })));
		expect(translator.message).toBe('Invalid Translator ID (item 0): must not be empty');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('the API\'s 400 for an unknown translator, in its words', async () => {
		const error = failure(await run(sandbox(), folderOp('assignTranslator', sandbox().fixtures.folders.writable, { translatorId: MISSING })));
		expect(error.httpCode).toBe('400');
		expect(error.message).toContain('translatorId must reference an existing translator');
	});
});

describe('Folder > Export XLSX', () => {
	it('downloads one workbook with a sheet per order and language; read back with exceljs', async () => {
		const s = sandbox();
		const folderId = s.fixtures.folders.readOnlyForMember;
		const orders = [...s.state.orders.values()]
			.filter((order) => order.folderId === folderId && order.segmentCount > 0)
			.sort((a, b) => (a.id < b.id ? -1 : 1));

		const result = await run(s, { resource: 'folder', operation: 'exportXlsx', folderIds: [folderId], targetLanguages: [], binaryPropertyName: 'sheet' }, { key: 'member' });

		const fileName = `bulk_export_${s.clock.now().toISOString().slice(0, 10)}.xlsx`;
		expect(result.json[0]).toMatchObject({ folderIds: [folderId], targetLanguages: [], fileName, mimeType: XLSX });
		const bytes = await readBinary(result.items[0], 'sheet');
		expect(result.json[0].fileSize).toBe(bytes.length);
		const workbook = new ExcelJS.Workbook();
		await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
		expect(orders.length).toBeGreaterThan(1);
		expect(workbook.worksheets.map((sheet) => sheet.name)).toHaveLength(orders.length);
		workbook.worksheets.forEach((sheet, index) => {
			expect(sheet.name.length).toBeLessThanOrEqual(31);
			// `{OrderName} - {lang}`: the order name shortened to fit, a counter before the language for a repeat.
			expect(sheet.name.endsWith(` - ${orders[index].targetLanguage}`)).toBe(true);
			const head = sheet.name.slice(0, -` - ${orders[index].targetLanguage}`.length).replace(/ \(\d+\)$/, '');
			expect(orders[index].name.startsWith(head)).toBe(true);
			expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual(['SR NO', 'TCR', 'SPEAKER', 'DIALOGUES', orders[index].targetLanguage]);
			expect(sheet.rowCount).toBe(orders[index].segmentCount + 1);
		});
	});

	it('folder IDs and languages may come comma-separated from an expression; only those languages are exported', async () => {
		const s = sandbox();
		const folders = [s.fixtures.folders.readOnlyForMember, s.fixtures.folders.hiddenFromMember];
		const orders = [...s.state.orders.values()].filter((order) => folders.includes(order.folderId) && order.segmentCount > 0 && ['fr', 'de'].includes(order.targetLanguage));

		const result = await run(s, {
			resource: 'folder',
			operation: 'exportXlsx',
			folderIds: `={{ ${JSON.stringify(folders.join(', '))} }}`,
			targetLanguages: ['fr', 'de'],
		});

		const workbook = new ExcelJS.Workbook();
		await workbook.xlsx.load((await readBinary(result.items[0], 'data')) as unknown as ArrayBuffer);
		expect(orders.length).toBeGreaterThan(0);
		expect(workbook.worksheets).toHaveLength(orders.length);
		expect(result.json[0].folderIds).toEqual(folders);
	});

	it('refuses no folders before any request; the API\'s 500 for no segment data is not retried', async () => {
		sandbox().requests.reset();
		const none = failure(await run(sandbox(), { resource: 'folder', operation: 'exportXlsx', folderIds: '={{ [] }}', targetLanguages: ['fr'] }));
		expect(none.message).toBe('Invalid Folder Names or IDs (item 0): give at least one folder');
		expect(sandbox().requests.count()).toBe(0);

		const empty = failure(await run(sandbox(), { resource: 'folder', operation: 'exportXlsx', folderIds: [sandbox().fixtures.folders.writable], targetLanguages: ['xx'] }));
		expect(empty.httpCode).toBe('500');
		expect(empty.message).toContain('No segment data found');
		expect(empty.description).toContain('segment data');
		expect(sandbox().requests.count()).toBe(1);
	});
});
