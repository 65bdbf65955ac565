import { byId, failure, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const MISSING = 'cccccccccccccccccccccccc';

describe('Project > Get Many', () => {
	it('Return All pages through every project with flat paging (page, take), newest first', async () => {
		const s = sandbox();
		s.requests.reset();
		const result = await run(s, { resource: 'project', operation: 'getMany', returnAll: true, options: { pageSize: 5, pageConcurrency: 2 } });
		const all = [...s.state.projects.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));

		expect(result.json.map((row) => row.id)).toEqual(all.map((project) => project.id));
		expect(result.json[0]).toEqual({
			id: all[0].id,
			name: all[0].name,
			sourceLanguage: all[0].sourceLanguage,
			createdAt: all[0].createdAt,
			folderId: all[0].folderId,
			ordersCount: [...s.state.orders.values()].filter((order) => order.projectId === all[0].id).length,
		});
		// One request per page of 5, each answered 200: the sandbox refuses pageOptions[...] keys on this list (400).
		expect(s.requests.count({ method: 'GET', path: '/integration/project' })).toBe(Math.ceil(all.length / 5));
		expect(s.requests.log.every((record) => record.status === 200)).toBe(true);
	});

	it('Limit, search (part of the name, any case) and sort by name', async () => {
		const s = sandbox();
		const target = s.state.projects.get(s.fixtures.projects.writable)!;
		const needle = target.name.split(' ')[0].toLowerCase();

		const limited = await run(s, { resource: 'project', operation: 'getMany', returnAll: false, limit: 3, options: { orderBy: 'name', orderDirection: 'asc' } });
		const searched = await run(s, { resource: 'project', operation: 'getMany', returnAll: true, filters: { search: needle } });

		const byName = [...s.state.projects.values()].map((project) => project.name).sort();
		expect(limited.json.map((row) => row.name)).toEqual(byName.slice(0, 3));
		expect(searched.json.map((row) => row.id)).toContain(target.id);
		expect(searched.json.every((row) => String(row.name).toLowerCase().includes(needle))).toBe(true);
	});

	it('refuses an unknown sort field before any request', async () => {
		sandbox().requests.reset();
		const error = failure(await run(sandbox(), { resource: 'project', operation: 'getMany', returnAll: true, options: { orderBy: 'status' } }));
		expect(error.message).toMatch(/^Invalid Sort By \(item 0\): "status" is not one of: createdAt, id, name, sourceLanguage$/);
		expect(sandbox().requests.count()).toBe(0);
	});
});

describe('Project > Get', () => {
	it('gets the project with its documents and order count', async () => {
		const project = sandbox().state.projects.get(sandbox().fixtures.projects.writable)!;
		const result = await run(sandbox(), { resource: 'project', operation: 'get', projectId: byId(project.id) });

		expect(result.json).toHaveLength(1);
		expect(result.json[0]).toMatchObject({ id: project.id, name: project.name, folderId: project.folderId, ordersCount: expect.any(Number) });
		expect((result.json[0].projectDocs as Array<{ type: string }>)[0].type).toBe('source_video');
	});

	it('the API\'s 400 for a malformed id and 404 for an unknown one, in its words', async () => {
		const bad = failure(await run(sandbox(), { resource: 'project', operation: 'get', projectId: byId('not-an-id') }));
		expect(bad.httpCode).toBe('400');
		expect(bad.message).toContain('projectId must be a mongodb id');
		expect(bad.description).toContain('24 hexadecimal characters');

		const missing = failure(await run(sandbox(), { resource: 'project', operation: 'get', projectId: byId(MISSING) }));
		expect(missing.httpCode).toBe('404');
		expect(missing.message).toContain('Project not found');
	});
});

describe('Project > Create From URL', () => {
	it('creates the project with folder (picked from the list) and notes, sent once; outputs it with projectId', async () => {
		const s = sandbox();
		const folderId = s.fixtures.folders.readOnlyForMember;
		s.requests.reset();
		const result = await run(s, {
			resource: 'project',
			operation: 'createFromUrl',
			url: 'https://cdn.example.com/media/launch-video.mp4?token=1',
			name: 'Launch video',
			sourceLanguage: 'en',
			additionalFields: {
				folderId: { __rl: true, mode: 'list', value: folderId },
				notes: { note: [{ details: 'Brand name stays in English', timeStamp: '00:00:12' }, { details: 'Credits' }] },
			},
		});

		expect(s.requests.count({ method: 'POST', path: '/integration/project/create-by-url' })).toBe(1);
		const project = s.state.projects.get(String(result.json[0].projectId))!;
		expect(project).toMatchObject({
			name: 'Launch video',
			folderId,
			notes: [
				{ details: 'Brand name stays in English', timeStamp: '00:00:12' },
				{ details: 'Credits', timeStamp: '' },
			],
		});
		expect(result.json[0]).toMatchObject({ projectId: project.id, id: project.id, name: 'Launch video', folderId });
	});

	it('a folder given by URL is read from the link', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const result = await run(sandbox(), {
			resource: 'project',
			operation: 'createFromUrl',
			url: 'https://cdn.example.com/brief.docx',
			name: 'Brief',
			sourceLanguage: 'de',
			additionalFields: { folderId: { __rl: true, mode: 'url', value: `https://app.ollang.com/folders/${folderId}` } },
		});
		expect(result.json[0].folderId).toBe(folderId);
	});

	it('refuses a URL without a file name, and a missing name, before any request', async () => {
		sandbox().requests.reset();
		const noFile = failure(await run(sandbox(), { resource: 'project', operation: 'createFromUrl', url: 'https://cdn.example.com/watch', name: 'X', sourceLanguage: 'en' }));
		expect(noFile.message).toBe(
			'Invalid File URL (file name taken from its last part) (item 0): "watch" has no file extension (such as .mp4 or .docx); the service needs one to know the file type',
		);
		const noName = failure(await run(sandbox(), { resource: 'project', operation: 'createFromUrl', url: 'https://cdn.example.com/a.mp4', name: ' ', sourceLanguage: 'en' }));
		expect(noName.message).toBe('Invalid Name (item 0): must not be empty');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('403 in a folder the member may only read; nothing created', async () => {
		const before = sandbox().state.projects.size;
		const error = failure(
			await run(
				sandbox(),
				{
					resource: 'project',
					operation: 'createFromUrl',
					url: 'https://cdn.example.com/a.mp4',
					name: 'A',
					sourceLanguage: 'en',
					additionalFields: { folderId: byId(sandbox().fixtures.folders.readOnlyForMember) },
				},
				{ key: 'member' },
			),
		);
		expect(error.httpCode).toBe('403');
		expect(sandbox().state.projects.size).toBe(before);
	});
});
