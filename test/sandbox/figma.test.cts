import { call, expectShapeA, expectShapeB, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const fileUrl = (key: string, name = 'Marketing-Site') => `https://www.figma.com/design/${key}/${name}?node-id=0-1`;
const createFigma = (body: Record<string, unknown>, key?: string) =>
	call(sandbox(), 'POST', '/integration/orders/figma/create', { body, key });
const byFile = (fileKey: string | undefined, key?: string) => call(sandbox(), 'GET', '/integration/orders/figma', { query: { fileKey }, key });
const statusOf = (orderId: string, key?: string) => call(sandbox(), 'GET', `/integration/orders/figma/${orderId}/status`, { key });

describe('POST /integration/orders/figma/create', () => {
	it('201 { projectId, importId, orders }: a project named after the file, one pending document order per language', async () => {
		const response = await createFigma({ fileKey: 'FileA1', fileUrl: fileUrl('FileA1'), sourceLanguage: 'en', targetLanguages: ['fr', 'pt-PT'] });

		expect(response.status).toBe(201);
		expect(response.body).toEqual({
			projectId: expect.stringMatching(/^[0-9a-f]{24}$/),
			importId: expect.stringMatching(/^[0-9a-f]{24}$/),
			orders: [
				{ orderId: expect.any(String), targetLanguage: 'fr', status: 'pending' },
				{ orderId: expect.any(String), targetLanguage: 'pt-PT', status: 'pending' },
			],
		});
		const project = sandbox().state.projects.get(response.body.projectId)!;
		expect(project).toMatchObject({ name: 'Marketing Site', sourceLanguage: 'en', folderId: sandbox().fixtures.folders.writable });
		// Figma orders are orders: the order endpoints read them, and they live like any other.
		const orderId = response.body.orders[0].orderId;
		const order = await call(sandbox(), 'GET', `/integration/orders/${orderId}`);
		expect(order.body).toMatchObject({ id: orderId, type: 'document', level: 0, projectId: project.id, name: 'Marketing Site - FR', sourceLanguage: 'en' });
	});

	it('goes into the folder given, and refuses a folder without write access or an unknown one', async () => {
		const { readOnlyForMember, hiddenFromMember } = sandbox().fixtures.folders;
		const body = { fileKey: 'FileF1', fileUrl: fileUrl('FileF1'), sourceLanguage: 'en', targetLanguages: ['de'] };
		const owner = await createFigma({ ...body, folderId: readOnlyForMember });
		expect(sandbox().state.projects.get(owner.body.projectId)!.folderId).toBe(readOnlyForMember);

		const readOnly = await createFigma({ ...body, fileKey: 'FileF2', folderId: readOnlyForMember }, sandbox().keys.member);
		expect(readOnly.status).toBe(403);
		expectShapeB(readOnly.body, 403, 'Forbidden');
		expect((await createFigma({ ...body, fileKey: 'FileF3', folderId: hiddenFromMember }, sandbox().keys.member)).status).toBe(403);
		expect((await createFigma({ ...body, fileKey: 'FileF4', folderId: '000000000000000000000000' })).status).toBe(404);
	});

	it('409 while an active order exists for the file and a language; nothing is created; a finished one does not block', async () => {
		const body = { fileKey: 'FileB2', fileUrl: fileUrl('FileB2'), sourceLanguage: 'en', targetLanguages: ['de'] };
		const first = await createFigma(body);
		const orders = sandbox().state.orders.size;
		const projects = sandbox().state.projects.size;

		const again = await createFigma({ ...body, targetLanguages: ['it', 'de'] });
		expect(again.status).toBe(409);
		expectShapeA(again.body, 'FIGMA_ORDER_EXISTS');
		expect(again.body.message).toContain(`file FileB2 and language de already exists (order ${first.body.orders[0].orderId}, pending)`);
		expect(sandbox().state.orders.size).toBe(orders);
		expect(sandbox().state.projects.size).toBe(projects);
		// Another file, or another language of the same file, is fine.
		expect((await createFigma({ ...body, targetLanguages: ['it'] })).status).toBe(201);
		expect((await createFigma({ ...body, fileKey: 'FileB3', fileUrl: fileUrl('FileB3') })).status).toBe(201);

		sandbox().clock.advance(30);
		expect(sandbox().state.orders.get(first.body.orders[0].orderId)!.status).toBe('delivered');
		expect((await createFigma(body)).status).toBe(201);
	});

	it('validates: fileUrl contains figma.com, at least one target language, catalogue codes, unique, no unknown fields', async () => {
		const bad = await createFigma({ fileKey: 'has space', fileUrl: 'https://example.com/design/x', sourceLanguage: 'english', targetLanguages: [], extra: 1 });
		expect(bad.status).toBe(400);
		expect(bad.body).toEqual({
			statusCode: 400,
			error: 'Bad Request',
			message: [
				'fileKey must be a Figma file key (the part after /file/ or /design/ in the file URL)',
				'fileUrl must be a Figma file URL (figma.com)',
				'sourceLanguage must be a language code of the catalogue (GET /integration/locales/languages)',
				'targetLanguages should not be empty',
				'property extra should not exist',
			],
		});
		const missing = await createFigma({});
		expect(missing.body.message).toEqual([
			'fileKey should not be empty',
			'fileUrl should not be empty',
			'sourceLanguage should not be empty',
			'targetLanguages should not be empty',
		]);
		const languages = await createFigma({ fileKey: 'FileC', fileUrl: fileUrl('FileC'), sourceLanguage: 'en', targetLanguages: ['fr', 'xx', 'fr'] });
		expect(languages.body.message).toEqual([
			'targetLanguages.1 must be a language code of the catalogue (GET /integration/locales/languages)',
			'targetLanguages must contain unique values',
		]);
		expect((await createFigma({ fileKey: 'FileC', fileUrl: 'not a url', sourceLanguage: 'en', targetLanguages: ['fr'] })).body.message).toEqual([
			'fileUrl must be a URL address',
			'fileUrl must be a Figma file URL (figma.com)',
		]);
	});

	it('401 shape A without a key', async () => {
		const response = await call(sandbox(), 'POST', '/integration/orders/figma/create', { key: null, body: {} });
		expect(response.status).toBe(401);
		expectShapeA(response.body, 'UNAUTHORIZED');
	});
});

describe('GET /integration/orders/figma?fileKey=', () => {
	it('lists the file\'s orders newest first: { id, status, targetLanguage, createdAt, orderName, reviewInfo }', async () => {
		const first = await createFigma({ fileKey: 'FileD4', fileUrl: fileUrl('FileD4', 'App'), sourceLanguage: 'en', targetLanguages: ['fr'] });
		sandbox().clock.advance(2);
		const second = await createFigma({ fileKey: 'FileD4', fileUrl: fileUrl('FileD4', 'App'), sourceLanguage: 'en', targetLanguages: ['ja', 'ko'] });

		const response = await byFile('FileD4');

		expect(response.status).toBe(200);
		expect(response.body.map((row: any) => row.id)).toEqual([second.body.orders[1].orderId, second.body.orders[0].orderId, first.body.orders[0].orderId]);
		expect(response.body[2]).toEqual({
			id: first.body.orders[0].orderId,
			status: 'ongoing',
			targetLanguage: 'fr',
			createdAt: expect.any(String),
			orderName: 'App - FR',
			reviewInfo: null,
		});
		expect((await byFile('NoSuchFile')).body).toEqual([]);
	});

	it('carries the review tag while an order is in review', async () => {
		const created = await createFigma({ fileKey: 'FileE5', fileUrl: fileUrl('FileE5'), sourceLanguage: 'en', targetLanguages: ['nl'] });
		const orderId = created.body.orders[0].orderId;
		sandbox().simulate.advanceOrderTo(orderId, 'completed');
		expect((await call(sandbox(), 'POST', `/integration/orders/${orderId}/human-review`)).status).toBe(204);
		sandbox().simulate.advanceOrderTo(orderId, 'qualityCheck');

		const [row] = (await byFile('FileE5')).body;

		expect(row).toMatchObject({ status: 'qualityCheck', reviewInfo: { teamTagName: 'Quality Check', teamTagColor: '#F5A623', reviewType: 'lspReview' } });
		expect((await statusOf(orderId)).body.reviewInfo).toEqual(row.reviewInfo);
	});

	it('leaves out orders the key cannot read; fileKey is required', async () => {
		await createFigma({ fileKey: 'FileH6', fileUrl: fileUrl('FileH6'), sourceLanguage: 'en', targetLanguages: ['fr'], folderId: sandbox().fixtures.folders.hiddenFromMember });
		expect((await byFile('FileH6')).body).toHaveLength(1);
		expect((await byFile('FileH6', sandbox().keys.member)).body).toEqual([]);
		const missing = await byFile(undefined);
		expect(missing.status).toBe(400);
		expect(missing.body.message).toEqual(['fileKey should not be empty']);
	});
});

describe('GET /integration/orders/figma/{orderId}/status', () => {
	it('follows the order: completedAt null until done, then the completion time', async () => {
		const created = await createFigma({ fileKey: 'FileG7', fileUrl: fileUrl('FileG7'), sourceLanguage: 'en', targetLanguages: ['tr'] });
		const orderId = created.body.orders[0].orderId;

		const pending = await statusOf(orderId);
		expect(pending.status).toBe(200);
		expect(pending.body).toEqual({
			orderId,
			status: 'pending',
			targetLanguage: 'tr',
			orderName: 'Marketing Site - TR',
			createdAt: sandbox().clock.now().toISOString(),
			completedAt: null,
			reviewInfo: null,
			fileKey: 'FileG7',
			projectId: created.body.projectId,
			importId: created.body.importId,
		});
		sandbox().clock.advance(5);
		expect((await statusOf(orderId)).body).toMatchObject({ status: 'ongoing', completedAt: null });
		sandbox().clock.advance(10);
		const completed = (await statusOf(orderId)).body;
		const aiDelivered = sandbox().state.orders.get(orderId)!.deliveryEvents.find((event) => event.type === 'ai_delivered')!;
		expect(completed).toMatchObject({ status: 'completed', completedAt: aiDelivered.occurredAt });
	});

	it('404 ORDER_NOT_FOUND for an unknown order or one that is not a Figma order; 403 without read access', async () => {
		const unknown = await statusOf('000000000000000000000000');
		expect(unknown.status).toBe(404);
		expectShapeA(unknown.body, 'ORDER_NOT_FOUND');
		const plain = await statusOf(sandbox().fixtures.orders.byStatus.completed);
		expect(plain.status).toBe(404);
		expect(plain.body.message).toContain('is not a Figma order');
		const hidden = await createFigma({ fileKey: 'FileI8', fileUrl: fileUrl('FileI8'), sourceLanguage: 'en', targetLanguages: ['fr'], folderId: sandbox().fixtures.folders.hiddenFromMember });
		const denied = await statusOf(hidden.body.orders[0].orderId, sandbox().keys.member);
		expect(denied.status).toBe(403);
		expectShapeA(denied.body, 'ACCESS_DENIED');
	});
});
