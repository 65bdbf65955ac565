import { request } from 'node:http';
import type { Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeB, multipartForm, postForm, postMultipart, rawMultipart, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const DIRECT = '/integration/upload/direct';
const BY_URL = '/integration/upload/direct-url';

/** Sends a body in tiny writes with a Content-Length, so multipart delimiters arrive split across chunks. */
function postInPieces(sandbox: Sandbox, path: string, body: Buffer, contentType: string, pieceSize: number): Promise<{ status: number; body: any }> {
	const { port } = new URL(sandbox.baseUrl);
	return new Promise((resolve, reject) => {
		const req = request(
			{ host: '127.0.0.1', port, method: 'POST', path, headers: { 'x-api-key': sandbox.keys.owner, 'content-type': contentType, 'content-length': body.length } },
			(res) => {
				const chunks: Buffer[] = [];
				res.on('data', (chunk: Buffer) => chunks.push(chunk));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
			},
		);
		req.on('error', reject);
		req.setNoDelay(true);
		let offset = 0;
		const next = () => {
			if (offset >= body.length) {
				req.end();
				return;
			}
			req.write(body.subarray(offset, offset + pieceSize));
			offset += pieceSize;
			setImmediate(next);
		};
		next();
	});
}

describe('POST /integration/upload/direct (multipart)', () => {
	it('creates a project from the file (201 { projectId }) in the default folder', async () => {
		const form = multipartForm([
			{ name: 'file', filename: 'launch-video.mp4', content: Buffer.alloc(5_000_000, 7), contentType: 'video/mp4' },
			{ name: 'name', value: 'Launch video' },
			{ name: 'sourceLanguage', value: 'en' },
			{ name: 'notes', value: JSON.stringify([{ details: 'Keep the brand name', timeStamp: '00:00:05' }]) },
		]);
		const response = await postForm(sandbox(), DIRECT, form);
		expect(response.status).toBe(201);
		expect(response.body).toEqual({ projectId: expect.stringMatching(/^[0-9a-f]{24}$/) });
		const project = sandbox().state.projects.get(response.body.projectId)!;
		expect(project).toEqual(
			expect.objectContaining({
				name: 'Launch video',
				folderId: sandbox().fixtures.folders.writable,
				sourceLanguage: 'en',
				notes: [{ details: 'Keep the brand name', timeStamp: '00:00:05' }],
				source: expect.objectContaining({ fileName: 'launch-video.mp4', kind: 'video', size: 5_000_000 }),
			}),
		);
		// The folder's documents are applied to the new project; an order can then be created on it.
		expect(project.docs.length).toBe(sandbox().fixtures.folderDocs.writable.length);
		const order = await call(sandbox(), 'POST', '/integration/orders/create', {
			body: { orderType: 'subtitle', level: 0, projectId: project.id, targetLanguageConfigs: [{ language: 'fr' }] },
		});
		expect(order.status).toBe(201);
	});

	it('places the project in the given folder', async () => {
		const folderId = sandbox().fixtures.folders.readOnlyForMember;
		const response = await postMultipart(sandbox(), DIRECT, [
			{ name: 'name', value: 'Handbook' },
			{ name: 'sourceLanguage', value: 'de' },
			{ name: 'folderId', value: folderId },
			{ name: 'file', filename: 'handbook.docx', content: 'x'.repeat(1200) },
		]);
		expect(response.status).toBe(201);
		expect(sandbox().state.projects.get(response.body.projectId)!.folderId).toBe(folderId);
	});

	it('parses a multipart body that arrives a few bytes at a time', async () => {
		const content = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256));
		const { body, contentType } = rawMultipart([
			{ name: 'name', value: 'Split delivery' },
			{ name: 'sourceLanguage', value: 'en' },
			// Content that contains CR LF and dashes, like a boundary prefix, must pass through untouched.
			{ name: 'file', filename: 'tricky.srt', content: Buffer.concat([Buffer.from('\r\n--sandbox-test-boundary\r\n'), content]) },
		]);
		const response = await postInPieces(sandbox(), DIRECT, body, contentType, 7);
		expect(response.status).toBe(201);
		const project = sandbox().state.projects.get(response.body.projectId)!;
		expect(project.name).toBe('Split delivery');
		expect(project.source.size).toBe(content.length + 27);
	});

	it('refuses a file without a usable filename with 400 "Unsupported file type" and creates nothing', async () => {
		const projects = sandbox().state.projects.size;
		const cases: Array<Parameters<typeof postMultipart>[2]> = [
			[{ name: 'file', content: 'abc' }],
			[{ name: 'file', filename: '', content: 'abc' }],
			[{ name: 'file', filename: 'README', content: 'abc' }],
			[{ name: 'file', filename: '.mp4', content: 'abc' }],
			[{ name: 'file', filename: 'setup.exe', content: 'abc' }],
			[{ name: 'file', value: 'sent as a plain field' }],
			[],
		];
		for (const filePart of cases) {
			const response = await postMultipart(sandbox(), DIRECT, [{ name: 'name', value: 'x' }, { name: 'sourceLanguage', value: 'en' }, ...filePart]);
			expect({ filePart, status: response.status }).toEqual({ filePart, status: 400 });
			expect(response.body).toEqual({ statusCode: 400, message: 'Unsupported file type', error: 'Bad Request' });
		}
		expect(sandbox().state.projects.size).toBe(projects);
	});

	it('lists every invalid field (400 shape B)', async () => {
		const response = await postMultipart(sandbox(), DIRECT, [
			{ name: 'file', filename: 'a.mp4', content: 'abc' },
			{ name: 'notes', value: '{not json' },
			{ name: 'colour', value: 'red' },
		]);
		expect(response.status).toBe(400);
		expect(response.body.message).toEqual(['name should not be empty', 'sourceLanguage should not be empty', 'notes must be a JSON array of { details, timeStamp }', 'property colour should not exist']);
	});

	it('answers 400 to a body that is not multipart, 403/404 for the folder', async () => {
		const notMultipart = await call(sandbox(), 'POST', DIRECT, { body: { name: 'x' } });
		expect(notMultipart.status).toBe(400);
		expectShapeB(notMultipart.body, 400, 'Bad Request');
		const parts = (folderId: string) => [{ name: 'name', value: 'x' }, { name: 'sourceLanguage', value: 'en' }, { name: 'folderId', value: folderId }, { name: 'file', filename: 'a.mp4', content: 'a' }];
		const forbidden = await postMultipart(sandbox(), DIRECT, parts(sandbox().fixtures.folders.readOnlyForMember), sandbox().keys.member);
		expect(forbidden.status).toBe(403);
		expectShapeB(forbidden.body, 403, 'Forbidden');
		const unknown = await postMultipart(sandbox(), DIRECT, parts('ffffffffffffffffffffffff'));
		expect(unknown.status).toBe(404);
		expectShapeB(unknown.body, 404, 'Not Found');
	});
});

describe('POST /integration/upload/direct-url', () => {
	it('creates a project from a URL (201 { projectId })', async () => {
		const response = await call(sandbox(), 'POST', BY_URL, { body: { url: 'https://cdn.example.com/media/keynote.mov', originalname: 'keynote.mov', size: 52_000_000, sourceLanguage: 'en' } });
		expect(response.status).toBe(201);
		const project = sandbox().state.projects.get(response.body.projectId)!;
		expect(project).toEqual(expect.objectContaining({ name: 'keynote', sourceLanguage: 'en', source: expect.objectContaining({ fileName: 'keynote.mov', kind: 'video', size: 52_000_000 }) }));
	});

	it('refuses an originalname without a usable extension (400 Unsupported file type) and creates nothing', async () => {
		const projects = sandbox().state.projects.size;
		for (const originalname of ['', 'keynote', 'keynote.', 'keynote.zip']) {
			const response = await call(sandbox(), 'POST', BY_URL, { body: { url: 'https://cdn.example.com/media/keynote', originalname, size: 10, sourceLanguage: 'en' } });
			expect(response.status).toBe(400);
			expect(response.body).toEqual({ statusCode: 400, message: 'Unsupported file type', error: 'Bad Request' });
		}
		expect(sandbox().state.projects.size).toBe(projects);
	});

	it('validates the body (400 shape B)', async () => {
		const response = await call(sandbox(), 'POST', BY_URL, { body: { url: 'ftp//nope', size: 0 } });
		expect(response.status).toBe(400);
		expect(response.body.message).toEqual(['url must be a URL address', 'originalname should not be empty', 'size must be a positive number', 'sourceLanguage should not be empty']);
	});
});
