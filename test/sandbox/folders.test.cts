import { request } from 'node:http';
import type { Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeB, postMultipart, useSandbox } from './helpers.cts';

const MB = 1024 * 1024;
const docsPath = (folderId: string) => `/integration/folder/${folderId}/docs`;

function projectsIn(sandbox: Sandbox, folderId: string) {
	return [...sandbox.state.projects.values()].filter((project) => project.folderId === folderId);
}

describe('folder documents', () => {
	const sandbox = useSandbox();

	it('lists the documents of a folder (read access is enough)', async () => {
		const { fixtures, keys } = sandbox();
		const response = await call(sandbox(), 'GET', docsPath(fixtures.folders.readOnlyForMember), { key: keys.member });
		expect(response.status).toBe(200);
		expect(response.body.map((doc: any) => doc.id)).toEqual(fixtures.folderDocs.readOnlyForMember);
		for (const doc of response.body) {
			expect(doc).toEqual({
				id: expect.any(String),
				folderId: fixtures.folders.readOnlyForMember,
				type: expect.stringMatching(/^(guideline|glossary|character_list)$/),
				name: expect.any(String),
				language: doc.language === null ? null : expect.any(String),
				url: expect.stringMatching(/^https:\/\//),
				fileName: expect.any(String),
				size: null,
				createdAt: expect.any(String),
				updatedAt: expect.any(String),
			});
		}
	});

	it('attaches a document by URL (201) to every project of the folder, and to later projects', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const response = await call(sandbox(), 'POST', docsPath(folderId), { body: { url: 'https://cdn.example.com/style/voice-guide.pdf', type: 'guideline', language: 'fr' } });
		expect(response.status).toBe(201);
		expect(response.body).toEqual(expect.objectContaining({ folderId, type: 'guideline', name: 'voice-guide.pdf', language: 'fr', url: 'https://cdn.example.com/style/voice-guide.pdf' }));
		for (const project of projectsIn(sandbox(), folderId)) expect(project.docs.map((copy) => copy.folderDocId)).toContain(response.body.id);
		const later = await call(sandbox(), 'POST', '/integration/upload/direct-url', {
			body: { url: 'https://cdn.example.com/a.mp4', originalname: 'later.mp4', size: 1000, sourceLanguage: 'en', folderId },
		});
		expect(sandbox().state.projects.get(later.body.projectId)!.docs.map((copy) => copy.folderDocId)).toContain(response.body.id);
		const listed = await call(sandbox(), 'GET', docsPath(folderId));
		expect(listed.body.map((doc: any) => doc.id)).toContain(response.body.id);
	});

	it('validates the attach body (400 shape B)', async () => {
		const response = await call(sandbox(), 'POST', docsPath(sandbox().fixtures.folders.writable), { body: { url: 'not a url', type: 'manual' } });
		expect(response.status).toBe(400);
		expect(response.body.message).toEqual(['url must be a URL address', 'type must be one of the following values: guideline, glossary, character_list']);
	});

	it('uploads a document as multipart (201)', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const response = await postMultipart(sandbox(), `${docsPath(folderId)}/upload`, [
			{ name: 'file', filename: 'characters.xlsx', content: Buffer.alloc(2048, 1) },
			{ name: 'type', value: 'character_list' },
			{ name: 'name', value: 'Season 2 characters' },
			{ name: 'language', value: 'en' },
		]);
		expect(response.status).toBe(201);
		expect(response.body).toEqual(expect.objectContaining({ folderId, type: 'character_list', name: 'Season 2 characters', language: 'en', fileName: 'characters.xlsx', size: 2048 }));
	});

	it('accepts exactly 50 MB and refuses one byte more (413 shape B), creating nothing', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const path = `${docsPath(folderId)}/upload`;
		const atLimit = await postMultipart(sandbox(), path, [{ name: 'type', value: 'glossary' }, { name: 'file', filename: 'big.pdf', content: Buffer.alloc(50 * MB) }]);
		expect(atLimit.status).toBe(201);
		expect(atLimit.body.size).toBe(50 * MB);
		const count = sandbox().state.folderDocs.size;
		const over = await postMultipart(sandbox(), path, [{ name: 'type', value: 'glossary' }, { name: 'file', filename: 'bigger.pdf', content: Buffer.alloc(50 * MB + 1) }]);
		expect(over.status).toBe(413);
		expect(over.body).toEqual({ statusCode: 413, message: expect.stringMatching(/50 MB/), error: 'Payload Too Large' });
		expect(sandbox().state.folderDocs.size).toBe(count);
	});

	it('answers the 413 while the client is still sending, without reading the rest', async () => {
		const { port } = new URL(sandbox().baseUrl);
		const boundary = 'stream-boundary';
		const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nglossary\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.pdf"\r\n\r\n`);
		const declared = head.length + 200 * MB;
		const status = await new Promise<number>((resolve, reject) => {
			const req = request(
				{
					host: '127.0.0.1',
					port,
					method: 'POST',
					path: `${docsPath(sandbox().fixtures.folders.writable)}/upload`,
					headers: { 'x-api-key': sandbox().keys.owner, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': declared },
				},
				(res) => {
					res.resume();
					resolve(res.statusCode ?? 0);
					req.destroy();
				},
			);
			req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
			req.write(head);
			// Sends 60 MB of the announced 200 MB, then waits: the answer must come without the rest.
			const chunk = Buffer.alloc(MB);
			let sent = 0;
			const pump = () => {
				while (sent < 60 && req.write(chunk)) sent += 1;
				if (sent < 60) req.once('drain', () => {
					sent += 1;
					pump();
				});
			};
			pump();
		});
		expect(status).toBe(413);
	});

	it('refuses a file without a usable filename (400 Unsupported file type)', async () => {
		const path = `${docsPath(sandbox().fixtures.folders.writable)}/upload`;
		const count = sandbox().state.folderDocs.size;
		for (const filename of [undefined, '', 'glossary', 'notes.exe']) {
			const response = await postMultipart(sandbox(), path, [{ name: 'type', value: 'glossary' }, { name: 'file', filename, content: 'abc' }]);
			expect({ filename, status: response.status }).toEqual({ filename, status: 400 });
			expect(response.body).toEqual({ statusCode: 400, message: 'Unsupported file type', error: 'Bad Request' });
		}
		expect(sandbox().state.folderDocs.size).toBe(count);
	});

	it('answers 403 shape B (Forbidden) without write access, 404 for an unknown folder', async () => {
		const { fixtures, keys } = sandbox();
		const readOnly = fixtures.folders.readOnlyForMember;
		const attach = await call(sandbox(), 'POST', docsPath(readOnly), { key: keys.member, body: { url: 'https://x.example.com/a.pdf', type: 'glossary' } });
		expect(attach.status).toBe(403);
		expect(attach.body).toEqual({ statusCode: 403, message: expect.any(String), error: 'Forbidden' });
		const upload = await postMultipart(sandbox(), `${docsPath(readOnly)}/upload`, [{ name: 'type', value: 'glossary' }, { name: 'file', filename: 'a.pdf', content: 'a' }], keys.member);
		expect(upload.status).toBe(403);
		const hidden = await call(sandbox(), 'GET', docsPath(fixtures.folders.hiddenFromMember), { key: keys.member });
		expect(hidden.status).toBe(403);
		expectShapeB(hidden.body, 403, 'Forbidden');
		const unknown = await call(sandbox(), 'GET', docsPath('ffffffffffffffffffffffff'));
		expect(unknown.status).toBe(404);
		expectShapeB(unknown.body, 404, 'Not Found');
	});
});

describe('DELETE /integration/folder/{folderId}/docs/{docId}', () => {
	const sandbox = useSandbox();

	it('removes the document and its project copies (200 {}); orders keep their guidance', async () => {
		const { fixtures, state } = sandbox();
		const folderId = fixtures.folders.writable;
		const docId = fixtures.folderDocs.writable[0];
		const orderId = fixtures.orders.byType.cc;
		const guidanceBefore = state.orders.get(orderId)!.orderDocs.filter((doc) => doc.type === 'guideline').length;
		expect(guidanceBefore).toBeGreaterThan(0);
		expect(projectsIn(sandbox(), folderId).every((project) => project.docs.some((copy) => copy.folderDocId === docId))).toBe(true);

		const response = await call(sandbox(), 'DELETE', `${docsPath(folderId)}/${docId}`);
		expect(response.status).toBe(200);
		expect(response.body).toEqual({});
		expect(projectsIn(sandbox(), folderId).some((project) => project.docs.some((copy) => copy.folderDocId === docId))).toBe(false);
		expect((await call(sandbox(), 'GET', docsPath(folderId))).body.map((doc: any) => doc.id)).not.toContain(docId);
		expect(state.orders.get(orderId)!.orderDocs.filter((doc) => doc.type === 'guideline').length).toBe(guidanceBefore);
		const again = await call(sandbox(), 'DELETE', `${docsPath(folderId)}/${docId}`);
		expect(again.status).toBe(404);
	});

	it('answers 404 shape B (Not Found) for an unknown document or one of another folder', async () => {
		const { fixtures } = sandbox();
		for (const docId of ['ffffffffffffffffffffffff', fixtures.folderDocs.readOnlyForMember[0]]) {
			const response = await call(sandbox(), 'DELETE', `${docsPath(fixtures.folders.writable)}/${docId}`);
			expect(response.status).toBe(404);
			expect(response.body).toEqual({ statusCode: 404, message: 'Folder document not found', error: 'Not Found' });
		}
	});

	it('answers 403 shape B (Forbidden) without write permission and removes nothing', async () => {
		const { fixtures, keys, state } = sandbox();
		const docId = fixtures.folderDocs.readOnlyForMember[0];
		const response = await call(sandbox(), 'DELETE', `${docsPath(fixtures.folders.readOnlyForMember)}/${docId}`, { key: keys.member });
		expect(response.status).toBe(403);
		expect(response.body).toEqual({ statusCode: 403, message: expect.any(String), error: 'Forbidden' });
		expect(state.folderDocs.has(docId)).toBe(true);
	});
});

describe('POST /integration/folder/{folderId}/unassign-translator-from-orders', () => {
	const sandbox = useSandbox();
	const unassign = (folderId: string, body?: unknown, key?: string) => call(sandbox(), 'POST', `/integration/folder/${folderId}/unassign-translator-from-orders`, { body, key });
	const eligible = (folderId: string) =>
		[...sandbox().state.orders.values()].filter((order) => order.folderId === folderId && order.translatorId !== null && order.status === 'ongoing');

	beforeAll(() => {
		// Level-1 document orders have a translator 16 minutes after creation, while still ongoing.
		sandbox().simulate.createOrders(2, { type: 'document', level: 1, targetLanguage: 'fr' });
		sandbox().simulate.createOrders(2, { type: 'document', level: 1, targetLanguage: 'de' });
		sandbox().clock.advance(16);
	});

	it('unassigns only eligible orders matching the language filters and returns the count', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const fr = eligible(folderId).filter((order) => order.targetLanguage === 'fr');
		expect(fr.length).toBeGreaterThanOrEqual(2);
		const response = await unassign(folderId, { sourceLanguage: 'en', targetLanguage: 'fr' });
		expect(response.status).toBe(200);
		expect(response.body).toEqual({ unassignedCount: fr.length });
		expect(fr.every((order) => order.translatorId === null)).toBe(true);
		expect(eligible(folderId).some((order) => order.targetLanguage === 'de')).toBe(true);
		expect((await unassign(folderId, { targetLanguage: 'fr' })).body).toEqual({ unassignedCount: 0 });
	});

	it('without filters unassigns every eligible order, and an empty body is fine', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const count = eligible(folderId).length;
		expect(count).toBeGreaterThan(0);
		expect((await unassign(folderId)).body).toEqual({ unassignedCount: count });
		expect(eligible(folderId)).toHaveLength(0);
		expect((await unassign(folderId, {})).body).toEqual({ unassignedCount: 0 });
	});

	it('an unassigned order gets a new translator when its delivery was due, and delivers a stage later', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'document', level: 1 });
		sandbox().clock.advance(16);
		await unassign(sandbox().fixtures.folders.writable);
		expect(order.translatorId).toBeNull();
		sandbox().clock.advance(120);
		expect(order.status).toBe('ongoing');
		expect(order.translatorId).not.toBeNull();
		sandbox().clock.advance(120);
		expect(order.status).toBe('qualityCheck');
	});

	it('validates the body, and answers 403/404 in shape B', async () => {
		const { fixtures, keys } = sandbox();
		const invalid = await unassign(fixtures.folders.writable, { targetLanguage: 7, translatorId: 'x' });
		expect(invalid.status).toBe(400);
		expect(invalid.body.message).toEqual(['targetLanguage must be a string', 'property translatorId should not exist']);
		const forbidden = await unassign(fixtures.folders.readOnlyForMember, {}, keys.member);
		expect(forbidden.status).toBe(403);
		expectShapeB(forbidden.body, 403, 'Forbidden');
		const unknown = await unassign('ffffffffffffffffffffffff', {});
		expect(unknown.status).toBe(404);
		expectShapeB(unknown.body, 404, 'Not Found');
	});
});
