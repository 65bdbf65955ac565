import { call, expectShapeB, expectShapeC, postMultipart, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nHello there.\n';
const MISSING = 'ffffffffffffffffffffffff';

describe('POST /integration/upload/vtt', () => {
	it('201 { projectId }: the subtitle file is added to the project and shows in its documents', async () => {
		const projectId = sandbox().fixtures.projects.writable;
		const project = sandbox().state.projects.get(projectId)!;
		const response = await postMultipart(sandbox(), '/integration/upload/vtt', [
			{ name: 'file', filename: 'episode-01.vtt', content: VTT, contentType: 'text/vtt' },
			{ name: 'projectId', value: projectId },
			{ name: 'name', value: 'Episode 1 subtitles' },
			{ name: 'sourceLanguage', value: 'es-mx' },
		]);

		expect(response.status).toBe(201);
		expect(response.body).toEqual({ projectId });
		expect(project.subtitles.at(-1)).toMatchObject({ name: 'Episode 1 subtitles', fileName: 'episode-01.vtt', size: Buffer.byteLength(VTT), sourceLanguage: 'es-mx' });
		const view = await call(sandbox(), 'GET', `/integration/project/${projectId}`);
		expect(view.body.projectDocs.at(-1)).toMatchObject({ type: 'source_vtt', name: 'Episode 1 subtitles', size: Buffer.byteLength(VTT), sourceLanguage: 'es-mx' });
	});

	it('sourceLanguage is optional; "all" (auto-detect) takes the project language', async () => {
		const project = sandbox().state.projects.get(sandbox().fixtures.projects.writable)!;
		for (const language of ['all', undefined]) {
			const parts = [
				{ name: 'file', filename: 'auto.VTT', content: VTT },
				{ name: 'projectId', value: project.id },
				{ name: 'name', value: `auto ${language}` },
				...(language ? [{ name: 'sourceLanguage', value: language }] : []),
			];
			expect((await postMultipart(sandbox(), '/integration/upload/vtt', parts)).status).toBe(201);
			expect(project.subtitles.at(-1)).toMatchObject({ name: `auto ${language}`, sourceLanguage: project.sourceLanguage });
		}
	});

	it('400 for a file that is not .vtt, and for a missing file, name or projectId; nothing is added', async () => {
		const project = sandbox().state.projects.get(sandbox().fixtures.projects.writable)!;
		const before = project.subtitles.length;
		const srt = await postMultipart(sandbox(), '/integration/upload/vtt', [
			{ name: 'file', filename: 'episode.srt', content: '1\n00:00:01,000 --> 00:00:02,000\nHi\n' },
			{ name: 'projectId', value: project.id },
			{ name: 'name', value: 'x' },
		]);
		expectShapeB(srt.body, 400);
		expect(srt.body.message).toMatch(/^Unsupported file type/);

		const noFile = await postMultipart(sandbox(), '/integration/upload/vtt', [{ name: 'projectId', value: project.id }, { name: 'name', value: 'x' }]);
		expect(noFile.status).toBe(400);

		const fields = await postMultipart(sandbox(), '/integration/upload/vtt', [{ name: 'file', filename: 'a.vtt', content: VTT }, { name: 'sourceLanguage', value: 'english please' }]);
		expectShapeB(fields.body, 400, 'Bad Request');
		expect(fields.body.message).toEqual(expect.arrayContaining(['projectId should not be empty', 'name should not be empty', 'sourceLanguage must be all or a language code of the catalogue (GET /integration/locales/languages)']));
		expect(project.subtitles).toHaveLength(before);
	});

	it('400 for a malformed projectId, 404 for an unknown one, 403 in a folder the key may only read, 401 shape C without a key', async () => {
		const { fixtures, keys } = sandbox();
		const parts = (projectId: string) => [{ name: 'file', filename: 'a.vtt', content: VTT }, { name: 'projectId', value: projectId }, { name: 'name', value: 'x' }];
		const malformed = await postMultipart(sandbox(), '/integration/upload/vtt', parts('abc'));
		expect(malformed.body.message).toEqual(['projectId must be a mongodb id']);
		expect((await postMultipart(sandbox(), '/integration/upload/vtt', parts(MISSING))).status).toBe(404);
		expect((await postMultipart(sandbox(), '/integration/upload/vtt', parts(fixtures.projects.readOnlyForMember), keys.member)).status).toBe(403);
		const anonymous = await postMultipart(sandbox(), '/integration/upload/vtt', parts(fixtures.projects.writable), null);
		expect(anonymous.status).toBe(401);
		expectShapeC(anonymous.body, 'UNAUTHORIZED');
	});
});
