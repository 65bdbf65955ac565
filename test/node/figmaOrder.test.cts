import type { INodeParameters } from 'n8n-workflow';

import { byId, failure, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const op = (operation: string, extra: Record<string, unknown> = {}) => ({ resource: 'figmaOrder', operation, ...extra });
const url = (key: string) => `https://www.figma.com/design/${key}/Landing-Page?node-id=0-1`;
const create = (fileUrl: string, targetLanguages = 'de, fr', extra: Record<string, unknown> = {}) =>
	op('create', { fileUrl, sourceLanguage: 'en', targetLanguages, ...extra });

describe('Figma Order', () => {
	it('Create sends the file key taken from the URL and outputs the answer: project, import and one order per language', async () => {
		const result = await run(sandbox(), create(url('KeyOne1')));

		expect(result.json).toEqual([
			{
				projectId: expect.any(String),
				importId: expect.any(String),
				orders: [
					{ orderId: expect.any(String), targetLanguage: 'de', status: 'pending' },
					{ orderId: expect.any(String), targetLanguage: 'fr', status: 'pending' },
				],
			},
		]);
		const record = [...sandbox().state.figmaImports.values()].find((entry) => entry.fileKey === 'KeyOne1')!;
		expect(record.fileUrl).toBe(url('KeyOne1'));
		expect(sandbox().state.projects.get(String(result.json[0].projectId))?.name).toBe('Landing Page');
		expect(sandbox().requests.count({ method: 'POST', path: '/integration/orders/figma/create' })).toBe(1);
	});

	it('Create takes a given file key and folder', async () => {
		const folderId = sandbox().fixtures.folders.readOnlyForMember;
		const result = await run(sandbox(), create('https://figma.com/file/Other/x', 'it', { additionalFields: { fileKey: 'KeyTwo2', folderId: { __rl: true, mode: 'id', value: folderId } } }));

		const project = sandbox().state.projects.get(String(result.json[0].projectId))!;
		expect(project.folderId).toBe(folderId);
		expect([...sandbox().state.figmaImports.values()].some((entry) => entry.fileKey === 'KeyTwo2')).toBe(true);
	});

	it('Create refuses bad input before sending anything, naming the field', async () => {
		const cases: Array<[INodeParameters, string]> = [
			[create('https://example.com/design/KeyX/Name'), 'Invalid File URL (item 0): "https://example.com/design/KeyX/Name" is not a Figma file URL (https://www.figma.com/design/<file key>/…)'],
			[create('figma.com/design/KeyX'), 'Invalid File URL (item 0): "figma.com/design/KeyX" is not a valid URL'],
			[create(url('KeyX'), '={{ "" }}'), 'Invalid Target Languages (item 0): add at least one language code'],
			[create(url('KeyX'), 'de, DE'), 'Invalid Target Languages (item 0): "DE" is listed twice'],
			[create('https://www.figma.com/files/recent', 'de'), 'Invalid File Key (item 0): could not be read from the File URL "https://www.figma.com/files/recent"; give the file key (the part after /design/ or /file/)'],
			[create(url('KeyX'), 'de', { sourceLanguage: 'English' }), 'Invalid Source Language (item 0): "English" is not a language code (e.g. en, de, pt-PT, zh-Hant)'],
		];
		for (const [parameters, message] of cases) expect(failure(await run(sandbox(), parameters)).message).toBe(message);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('Create: a 409 for an order still in progress names the conflict, with a hint, and is sent once', async () => {
		await run(sandbox(), create(url('KeyThree3'), 'ja'));
		sandbox().requests.reset();

		const error = failure(await run(sandbox(), create(url('KeyThree3'), 'ja')));

		expect(error.httpCode).toBe('409');
		expect(error.message).toContain('already exists');
		expect(error.description).toContain('Get Status');
		expect(sandbox().requests.count({ method: 'POST' })).toBe(1);
	});

	it('Get Many (orders of a file) takes a key or a URL: one item per order, newest first, limited locally', async () => {
		await run(sandbox(), create(url('KeyFour4'), 'de'));
		sandbox().clock.advance(1);
		await run(sandbox(), create(url('KeyFour4'), 'ko'));

		const byUrl = await run(sandbox(), op('getManyByFile', { fileKey: url('KeyFour4'), returnAll: true }));
		expect(byUrl.json.map((order) => order.targetLanguage)).toEqual(['ko', 'de']);
		expect(byUrl.json[0]).toEqual({ id: expect.any(String), status: 'pending', targetLanguage: 'ko', createdAt: expect.any(String), orderName: 'Landing Page - KO', reviewInfo: null });
		const byKey = await run(sandbox(), op('getManyByFile', { fileKey: 'KeyFour4', returnAll: false, limit: 1 }));
		expect(byKey.json).toEqual([byUrl.json[0]]);
		expect(failure(await run(sandbox(), op('getManyByFile', { fileKey: 'bad key' }))).message).toMatch(/^Invalid File Key or URL \(item 0\): "bad key" is not a Figma file key/);
	});

	it('Get Status follows the order until it is completed', async () => {
		const created = await run(sandbox(), create(url('KeyFive5'), 'tr'));
		const orderId = String((created.json[0].orders as Array<{ orderId: string }>)[0].orderId);

		const pending = await run(sandbox(), op('getStatus', { orderId: byId(orderId) }));
		expect(pending.json[0]).toMatchObject({ orderId, status: 'pending', completedAt: null, fileKey: 'KeyFive5' });
		sandbox().clock.advance(12);
		const completed = await run(sandbox(), op('getStatus', { orderId: byId(orderId) }));
		expect(completed.json[0]).toMatchObject({ status: 'completed', completedAt: expect.any(String) });

		const notFigma = failure(await run(sandbox(), op('getStatus', { orderId: byId(sandbox().fixtures.orders.byStatus.completed) })));
		expect(notFigma.httpCode).toBe('404');
	});
});
