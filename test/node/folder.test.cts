import { binaryInputItem } from '../harness/engine.cts';
import { byId, failure, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const MISSING = 'cccccccccccccccccccccccc';
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

describe('Folder > List Documents', () => {
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

describe('Folder > Remove Document', () => {
	it('removes the document; removing it again is a 404 (shape B, Not Found)', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const documentId = sandbox().fixtures.folderDocs.writable[0];

		const result = await run(sandbox(), folderOp('removeDocument', folderId, { documentId }));
		const again = failure(await run(sandbox(), folderOp('removeDocument', folderId, { documentId })));

		expect(result.json).toEqual([{ success: true, folderId, documentId, removed: true }]);
		expect(sandbox().state.folderDocs.has(documentId)).toBe(false);
		expect(again.message).toBe('The Ollang API answered 404 Not Found: Folder document not found');
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

		expect(error.message).toBe("Invalid Document ID (item 0): the ID must not contain '/'");
		expect(sandbox().requests.count()).toBe(0);
	});
});
