import { binaryInputItem } from '../harness/engine.cts';
import { byId, failure, run, startStub, useSandbox } from './setup.cts';

const sandbox = useSandbox();

describe('Upload > Upload File', () => {
	const uploadFile = (extra: Record<string, unknown> = {}) => ({ resource: 'upload', operation: 'uploadFile', sourceLanguage: 'en', ...extra });
	const video = Buffer.from('not really a video, but bytes all the same');

	it('uploads the binary with name, source language, notes and folder, and returns the new project', async () => {
		const folderId = sandbox().fixtures.folders.readOnlyForMember;

		const result = await run(
			sandbox(),
			uploadFile({
				additionalFields: {
					name: 'Episode 1',
					folderId: { __rl: true, mode: 'list', value: folderId },
					notes: { note: [{ details: 'Keep the intro music', timeStamp: '00:00:05' }, { details: 'Brand names stay English' }] },
				},
			}),
			{ items: [binaryInputItem(video, { fileName: 'episode-01.mp4', mimeType: 'video/mp4' })] },
		);

		expect(result.json[0]).toMatchObject({ projectId: expect.any(String), fileName: 'episode-01.mp4', fileSize: video.length, sourceLanguage: 'en' });
		expect(sandbox().state.projects.get(String(result.json[0].projectId))).toMatchObject({
			name: 'Episode 1',
			folderId,
			sourceLanguage: 'en',
			source: { fileName: 'episode-01.mp4', size: video.length, kind: 'video' },
			notes: [
				{ details: 'Keep the intro music', timeStamp: '00:00:05' },
				{ details: 'Brand names stay English', timeStamp: '' },
			],
		});
	});

	it('sends multipart with a Content-Length (the service fails chunked uploads)', async () => {
		const stub = await startStub((_req, res) => {
			res.writeHead(201, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ projectId: 'p1' }));
		});
		try {
			await run(sandbox(), uploadFile(), { items: [binaryInputItem(video, { fileName: 'clip.mov' })], baseUrl: stub.baseUrl });

			const request = stub.requests.find((entry) => entry.method === 'POST')!;
			expect(request.headers['transfer-encoding']).toBeUndefined();
			expect(Number(request.headers['content-length'])).toBe(request.body.length);
			expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
			const text = request.body.toString('latin1');
			expect(text).toContain('Content-Disposition: form-data; name="file"; filename="clip.mov"');
			expect(text).toContain(video.toString('latin1'));
			expect(text).toContain('name="sourceLanguage"\r\n\r\nen\r\n');
		} finally {
			await stub.close();
		}
	});

	it('names the project after the file by default; File Name overrides a binary without an extension', async () => {
		const result = await run(sandbox(), uploadFile({ additionalFields: { fileName: 'talk.mp3' } }), {
			items: [binaryInputItem(video, { fileName: 'recording' })],
		});

		expect(sandbox().state.projects.get(String(result.json[0].projectId))).toMatchObject({ name: 'talk.mp3', source: { fileName: 'talk.mp3', kind: 'audio' } });
	});

	it('refuses a file name without an extension before sending', async () => {
		const error = failure(await run(sandbox(), uploadFile(), { items: [binaryInputItem(video, { fileName: 'recording' })] }));

		expect(error.message).toContain('"recording" has no file extension');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('refuses an item without the binary field before sending', async () => {
		const error = failure(await run(sandbox(), uploadFile(), { items: [{ json: { name: 'no file' } }] }));

		expect(error.message).toBe('Invalid Input Binary Field (item 0): the item has no binary field "data" (binary fields present: none)');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('refuses an empty source language before sending', async () => {
		const error = failure(await run(sandbox(), uploadFile({ sourceLanguage: '={{ $json.language }}' }), { items: [binaryInputItem(video, { fileName: 'a.mp4' })] }));

		expect(error.message).toBe('Invalid Source Language (item 0): must not be empty');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('400 Unsupported file type from the service, with a hint', async () => {
		const error = failure(await run(sandbox(), uploadFile(), { items: [binaryInputItem(video, { fileName: 'archive.xyz' })] }));

		expect(error.message).toBe('The Ollang API answered 400 Bad Request: Unsupported file type');
		expect(error.description).toContain('supported extension');
		expect(error.description).toContain('did not act on this request');
	});

	it('403 with the member key into a folder it may only read', async () => {
		const error = failure(
			await run(sandbox(), uploadFile({ additionalFields: { folderId: sandbox().fixtures.folders.readOnlyForMember } }), {
				items: [binaryInputItem(video, { fileName: 'a.mp4' })],
				key: 'member',
			}),
		);

		expect(error.httpCode).toBe('403');
	});
});

describe('Upload > Upload from URL', () => {
	const fromUrl = (extra: Record<string, unknown> = {}) => ({
		resource: 'upload',
		operation: 'uploadFromUrl',
		url: 'https://media.example.com/shows/pilot%20cut.mp4?sig=abc',
		size: 1_048_576,
		sourceLanguage: 'de',
		...extra,
	});

	it('creates a project, the file name taken from the URL', async () => {
		const result = await run(sandbox(), fromUrl());

		expect(result.json[0]).toMatchObject({ projectId: expect.any(String), fileName: 'pilot cut.mp4', sourceLanguage: 'de' });
		expect(sandbox().state.projects.get(String(result.json[0].projectId))).toMatchObject({
			sourceLanguage: 'de',
			source: { fileName: 'pilot cut.mp4', size: 1_048_576 },
		});
	});

	it('uses the given file name and folder', async () => {
		const folderId = sandbox().fixtures.folders.readOnlyForMember;

		const result = await run(sandbox(), fromUrl({ url: 'https://media.example.com/download?id=7', additionalFields: { fileName: 'notes.docx', folderId } }));

		expect(sandbox().state.projects.get(String(result.json[0].projectId))).toMatchObject({ folderId, source: { fileName: 'notes.docx' } });
	});

	it.each([
		[{ url: 'https://media.example.com/download' }, 'Invalid File URL (file name taken from its last part) (item 0): "download" has no file extension (such as .mp4 or .docx); the service needs one to know the file type'],
		[{ size: 0 }, 'Invalid File Size (Bytes) (item 0): must be a whole number at least 1, got 0'],
		[{ url: 'ftp://media.example.com/a.mp4' }, 'Invalid File URL (item 0): "ftp://media.example.com/a.mp4" must start with http:// or https://'],
	])('refuses bad input before sending: %j', async (extra, message) => {
		const error = failure(await run(sandbox(), fromUrl(extra)));

		expect(error.message).toBe(message);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('400 Unsupported file type from the service', async () => {
		const error = failure(await run(sandbox(), fromUrl({ additionalFields: { fileName: 'data.bin' } })));

		expect(error.message).toBe('The Ollang API answered 400 Bad Request: Unsupported file type');
	});
});

describe('Upload > Upload VTT', () => {
	const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:03.500\nWelcome back.\n';
	const uploadVtt = (extra: Record<string, unknown> = {}) => ({
		resource: 'upload',
		operation: 'uploadVtt',
		projectId: { __rl: true, mode: 'list', value: sandbox().fixtures.projects.writable },
		binaryPropertyName: 'data',
		name: 'English subtitles',
		...extra,
	});

	it('adds the .vtt file of a binary field to the project, sent once as multipart', async () => {
		const s = sandbox();
		const project = s.state.projects.get(s.fixtures.projects.writable)!;
		s.requests.reset();

		const result = await run(s, uploadVtt({ additionalFields: { sourceLanguage: 'en' } }), {
			items: [binaryInputItem(VTT, { fileName: 'episode-01.vtt', mimeType: 'text/vtt' })],
		});

		expect(result.json).toEqual([{ projectId: project.id, name: 'English subtitles', fileName: 'episode-01.vtt', fileSize: Buffer.byteLength(VTT), sourceLanguage: 'en' }]);
		expect(s.requests.count({ method: 'POST', path: '/integration/upload/vtt' })).toBe(1);
		expect(project.subtitles.at(-1)).toMatchObject({ name: 'English subtitles', fileName: 'episode-01.vtt', size: Buffer.byteLength(VTT), sourceLanguage: 'en' });
	});

	it('without a source language the service detects it ("all" works too); a File Name overrides the binary\'s', async () => {
		const s = sandbox();
		const project = s.state.projects.get(s.fixtures.projects.writable)!;
		const result = await run(s, uploadVtt({ name: 'Detected', additionalFields: { fileName: 'renamed.VTT' } }), {
			items: [binaryInputItem(VTT, { fileName: 'download.txt', mimeType: 'text/plain' })],
		});

		expect(result.json[0]).toMatchObject({ projectId: project.id, fileName: 'renamed.VTT' });
		expect(result.json[0].sourceLanguage).toBeUndefined();
		expect(project.subtitles.at(-1)).toMatchObject({ name: 'Detected', fileName: 'renamed.VTT', sourceLanguage: project.sourceLanguage });
	});

	it('refuses a file that is not .vtt before any request', async () => {
		sandbox().requests.reset();
		const error = failure(await run(sandbox(), uploadVtt(), { items: [binaryInputItem('1\n00:00:01,000 --> 00:00:02,000\nHi\n', { fileName: 'episode.srt' })] }));

		expect(error.message).toBe(
			'Invalid Input Binary Field file name (item 0): "episode.srt" is not a .vtt file; this operation uploads WebVTT subtitles only (use Upload File for other files)',
		);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('the API\'s 404 for an unknown project and 403 for a project the member may only read', async () => {
		const missing = failure(
			await run(sandbox(), uploadVtt({ projectId: byId('cccccccccccccccccccccccc') }), { items: [binaryInputItem(VTT, { fileName: 'a.vtt' })] }),
		);
		expect(missing.httpCode).toBe('404');
		expect(missing.message).toContain('Project not found');

		const readOnly = failure(
			await run(sandbox(), uploadVtt({ projectId: byId(sandbox().fixtures.projects.readOnlyForMember) }), {
				items: [binaryInputItem(VTT, { fileName: 'a.vtt' })],
				key: 'member',
			}),
		);
		expect(readOnly.httpCode).toBe('403');
	});
});
