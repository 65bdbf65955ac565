import type { Sandbox } from '../../sandbox/index.cts';
import { call, expectShapeB, expectShapeC, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const MISSING = 'dddddddddddddddddddddddd';

function visibleProjects(s: Sandbox, hidden: string[] = []) {
	return [...s.state.projects.values()].filter((project) => !hidden.includes(project.folderId));
}

describe('GET /integration/project (flat paging)', () => {
	it('answers the paged envelope with project summaries, 10 a page by default, newest id first', async () => {
		const response = await call(sandbox(), 'GET', '/integration/project');
		const all = visibleProjects(sandbox());

		expect(response.status).toBe(200);
		expect(response.body.meta).toEqual({ page: 1, take: 10, itemCount: all.length, pageCount: Math.ceil(all.length / 10), hasPreviousPage: false, hasNextPage: true });
		expect(response.body.data.map((row: any) => row.id)).toEqual(all.map((project) => project.id).sort().reverse().slice(0, 10));
		const first = response.body.data[0];
		const orders = [...sandbox().state.orders.values()].filter((order) => order.projectId === first.id).length;
		expect(first).toEqual({ id: first.id, name: expect.any(String), sourceLanguage: expect.any(String), createdAt: expect.any(String), folderId: expect.any(String), ordersCount: orders });
	});

	it('pages with page and take; every project comes once', async () => {
		const ids: string[] = [];
		for (let page = 1; ; page++) {
			const response = await call(sandbox(), 'GET', '/integration/project', { query: { page, take: 4, orderBy: 'name', orderDirection: 'asc' } });
			expect(response.status).toBe(200);
			ids.push(...response.body.data.map((row: any) => row.id));
			expect(response.body.meta.hasPreviousPage).toBe(page > 1);
			if (!response.body.meta.hasNextPage) break;
		}
		const byName = visibleProjects(sandbox()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1));
		expect(ids).toEqual(byName.map((project) => project.id));
	});

	it('search is a case-insensitive partial match on the name', async () => {
		const target = sandbox().state.projects.get(sandbox().fixtures.projects.writable)!;
		const needle = target.name.slice(2, 9).toUpperCase();
		const response = await call(sandbox(), 'GET', '/integration/project', { query: { search: needle, take: 50 } });

		const expected = visibleProjects(sandbox()).filter((project) => project.name.toLowerCase().includes(needle.toLowerCase()));
		expect(response.body.data.map((row: any) => row.id).sort()).toEqual(expected.map((project) => project.id).sort());
		expect(response.body.data.map((row: any) => row.id)).toContain(target.id);
	});

	it('sorts by sourceLanguage and createdAt in either direction', async () => {
		const asc = await call(sandbox(), 'GET', '/integration/project', { query: { orderBy: 'sourceLanguage', orderDirection: 'asc', take: 50 } });
		const languages = asc.body.data.map((row: any) => row.sourceLanguage);
		expect(languages).toEqual([...languages].sort());
		const desc = await call(sandbox(), 'GET', '/integration/project', { query: { orderBy: 'createdAt', orderDirection: 'DESC', take: 50 } });
		const times = desc.body.data.map((row: any) => row.createdAt);
		expect(times).toEqual([...times].sort().reverse());
	});

	it('leaves out projects of folders the key cannot read', async () => {
		const { fixtures, keys } = sandbox();
		const response = await call(sandbox(), 'GET', '/integration/project', { query: { take: 50 }, key: keys.member });
		const ids = response.body.data.map((row: any) => row.id);
		expect(ids).not.toContain(fixtures.projects.hiddenFromMember);
		expect(ids).toContain(fixtures.projects.readOnlyForMember);
		expect(response.body.meta.itemCount).toBe(visibleProjects(sandbox(), [fixtures.folders.hiddenFromMember]).length);
	});

	it('refuses take over 50, page 0, an unknown sort field and nested paging keys (400 shape B, every problem)', async () => {
		const response = await call(sandbox(), 'GET', '/integration/project', { query: { take: 51, page: 0, orderBy: 'status', 'pageOptions[take]': 5 } });
		expectShapeB(response.body, 400, 'Bad Request');
		expect(response.body.message).toEqual(
			expect.arrayContaining([
				'take must not be greater than 50',
				'page must not be less than 1',
				'orderBy must be one of the following values: id, name, createdAt, sourceLanguage',
				'property pageOptions should not exist',
			]),
		);
	});

	it('401 shape C without a key', async () => {
		const response = await call(sandbox(), 'GET', '/integration/project', { key: null });
		expect(response.status).toBe(401);
		expectShapeC(response.body, 'UNAUTHORIZED');
	});
});

describe('GET /integration/project/{projectId}', () => {
	it('answers the project with its documents (source, folder-document copies) and ordersCount', async () => {
		const project = sandbox().state.projects.get(sandbox().fixtures.projects.writable)!;
		const response = await call(sandbox(), 'GET', `/integration/project/${project.id}`);

		expect(response.status).toBe(200);
		expect(Object.keys(response.body).sort()).toEqual(['createdAt', 'folderId', 'id', 'name', 'ordersCount', 'projectDocs', 'sourceLanguage']);
		expect(response.body).toMatchObject({ id: project.id, name: project.name, sourceLanguage: project.sourceLanguage, folderId: project.folderId, createdAt: project.createdAt });
		expect(response.body.ordersCount).toBe([...sandbox().state.orders.values()].filter((order) => order.projectId === project.id).length);
		expect(response.body.ordersCount).toBeGreaterThan(0);
		const [source, ...copies] = response.body.projectDocs;
		expect(source).toMatchObject({ type: 'source_video', name: project.source.fileName, size: project.source.size, duration: project.source.durationSec, projectId: project.id });
		expect(source.wordCount).toBeUndefined();
		expect(copies.map((doc: any) => doc.id)).toEqual(project.docs.map((copy) => copy.id));
	});

	it('400 for an id that is not an ObjectId, 404 for an unknown one', async () => {
		const bad = await call(sandbox(), 'GET', '/integration/project/not-an-id');
		expectShapeB(bad.body, 400, 'Bad Request');
		expect(bad.body.message).toEqual(['projectId must be a mongodb id']);

		const missing = await call(sandbox(), 'GET', `/integration/project/${MISSING}`);
		expect(missing.status).toBe(404);
		expectShapeB(missing.body, 404, 'Not Found');
		expect(missing.body.message).toBe('Project not found');
	});

	it('403 for a project in a folder the key cannot see; read access is enough', async () => {
		const { fixtures, keys } = sandbox();
		expect((await call(sandbox(), 'GET', `/integration/project/${fixtures.projects.hiddenFromMember}`, { key: keys.member })).status).toBe(403);
		expect((await call(sandbox(), 'GET', `/integration/project/${fixtures.projects.readOnlyForMember}`, { key: keys.member })).status).toBe(200);
	});
});

describe('POST /integration/project/create-by-url', () => {
	it('201: creates a project from the URL (type from its file name) and answers it with projectId', async () => {
		const { fixtures } = sandbox();
		const folderId = fixtures.folders.readOnlyForMember;
		const before = sandbox().state.projects.size;
		const notes = [{ details: 'Speaker changes', timeStamp: '00:01:23' }];
		const response = await call(sandbox(), 'POST', '/integration/project/create-by-url', {
			body: { url: 'https://cdn.example.com/media/Episode%2001.mov?sig=abc', name: 'Episode 1', sourceLanguage: 'en', folderId, notes },
		});

		expect(response.status).toBe(201);
		expect(sandbox().state.projects.size).toBe(before + 1);
		const project = sandbox().state.projects.get(response.body.projectId)!;
		expect(project).toMatchObject({ name: 'Episode 1', folderId, sourceLanguage: 'en', notes, source: { fileName: 'Episode 01.mov', kind: 'video' } });
		expect(response.body).toMatchObject({ projectId: project.id, id: project.id, name: 'Episode 1', folderId, ordersCount: 0 });
		// The folder's documents are copied onto the new project.
		expect(response.body.projectDocs.map((doc: any) => doc.type)).toEqual(['source_video', ...project.docs.map((copy) => copy.type)]);
		expect(project.docs).toHaveLength([...sandbox().state.folderDocs.values()].filter((doc) => doc.folderId === folderId).length);
	});

	it('without folderId, the project goes to the first folder; a document URL gives a document project', async () => {
		const response = await call(sandbox(), 'POST', '/integration/project/create-by-url', { body: { url: 'https://cdn.example.com/brief.docx', name: 'Brief', sourceLanguage: 'de' } });
		expect(response.status).toBe(201);
		expect(response.body.folderId).toBe(sandbox().fixtures.folders.writable);
		expect(response.body.projectDocs[0]).toMatchObject({ type: 'source_document', wordCount: expect.any(Number) });
	});

	it('400 for a URL without a usable file type, before anything is created', async () => {
		const before = sandbox().state.projects.size;
		const response = await call(sandbox(), 'POST', '/integration/project/create-by-url', { body: { url: 'https://cdn.example.com/watch?v=1', name: 'X', sourceLanguage: 'en' } });
		expectShapeB(response.body, 400);
		expect(response.body.message).toBe('Unsupported file type');
		expect(sandbox().state.projects.size).toBe(before);
	});

	it('400 lists every invalid field: missing name, bad URL, notes as a string, unknown fields', async () => {
		const response = await call(sandbox(), 'POST', '/integration/project/create-by-url', {
			body: { url: 'not a url', sourceLanguage: 'en', notes: '[{"details":"x","timeStamp":"1"}]', extra: 1 },
		});
		expectShapeB(response.body, 400, 'Bad Request');
		expect(response.body.message).toEqual(
			expect.arrayContaining(['url must be a URL address', 'name should not be empty', 'notes must be an array', 'property extra should not exist']),
		);
	});

	it('403 in a folder the key may only read; 404 for an unknown folder', async () => {
		const { fixtures, keys } = sandbox();
		const body = { url: 'https://cdn.example.com/a.mp4', name: 'A', sourceLanguage: 'en' };
		const readOnly = await call(sandbox(), 'POST', '/integration/project/create-by-url', { body: { ...body, folderId: fixtures.folders.readOnlyForMember }, key: keys.member });
		expect(readOnly.status).toBe(403);
		const unknown = await call(sandbox(), 'POST', '/integration/project/create-by-url', { body: { ...body, folderId: MISSING } });
		expect(unknown.status).toBe(404);
	});
});
