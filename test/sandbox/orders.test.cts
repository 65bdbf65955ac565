import { AI_ACTOR_ID, ORDER_STATUSES, ORDER_TYPES, type Sandbox } from '../../sandbox/index.cts';
import { allPages, call, expectShapeA, expectShapeB, useSandbox } from './helpers.cts';

const SUMMARY_KEYS = ['createdAt', 'folderId', 'id', 'level', 'name', 'projectId', 'sourceLanguage', 'status', 'targetLanguage', 'type'];

function listOrders(sandbox: Sandbox, query: Record<string, string | number> = {}, key?: string) {
	return call(sandbox, 'GET', '/integration/orders', { query, key });
}

const listAll = (sandbox: Sandbox, query: Record<string, string | number> = {}, key?: string) => allPages(sandbox, '/integration/orders', query, key);

describe('GET /integration/orders/{orderId}', () => {
	const sandbox = useSandbox();

	it('returns the spec Order object', async () => {
		const { fixtures } = sandbox();
		const response = await call(sandbox(), 'GET', `/integration/orders/${fixtures.orders.byStatus.delivered}`);
		expect(response.status).toBe(200);
		const order = response.body;
		expect(order).toEqual(
			expect.objectContaining({
				id: fixtures.orders.byStatus.delivered,
				createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
				name: expect.any(String),
				sourceLanguage: 'en',
				targetLanguage: expect.stringMatching(/^[a-z]{2}$/),
				type: 'document',
				status: 'delivered',
				rate: expect.any(Number),
				projectId: fixtures.projects.writable.length === 24 ? expect.stringMatching(/^[0-9a-f]{24}$/) : expect.any(String),
				level: 0,
				folderId: fixtures.folders.writable,
				finance: { paymentAmount: expect.any(Number) },
			}),
		);
		expect(order.finance.paymentAmount).toBeGreaterThan(0);
		expect(order.deliveryEvents.map((event: any) => event.type)).toEqual(['ai_delivered', 'order_delivered']);
		for (const doc of order.orderDocs) {
			expect(doc).toEqual(
				expect.objectContaining({ id: expect.any(String), name: expect.any(String), url: expect.stringMatching(/^https?:\/\//), type: expect.any(String), size: expect.any(Number), sourceLanguage: 'en' }),
			);
		}
		expect(order.orderDocs.map((doc: any) => doc.type)).toEqual(expect.arrayContaining(['sourceDocument', 'translation', 'guideline']));
	});

	it('carries vttUrl only once subtitles exist, and latestEvaluation only once a QC evaluation ran', async () => {
		const { orders } = sandbox().fixtures;
		const delivered = (await call(sandbox(), 'GET', `/integration/orders/${orders.byType.subtitle}`)).body;
		expect(delivered.vttUrl).toMatch(/\.vtt\?expires=\d+&signature=[0-9a-f]+$/);
		const pending = (await call(sandbox(), 'GET', `/integration/orders/${orders.byStatus.pending}`)).body;
		expect(pending).not.toHaveProperty('vttUrl');
		expect(pending).not.toHaveProperty('latestEvaluation');
		expect(pending.deliveryEvents).toEqual([]);
		const inQc = (await call(sandbox(), 'GET', `/integration/orders/${orders.byStatus.qualityCheck}`)).body;
		expect(inQc.latestEvaluation).toEqual(expect.objectContaining({ orderId: orders.byStatus.qualityCheck, isLoading: true, scores: [], segmentEvals: [] }));
		const level1Done = (await call(sandbox(), 'GET', `/integration/orders/${orders.redelivered}`)).body;
		expect(level1Done.latestEvaluation.isLoading).toBe(false);
		expect(level1Done.latestEvaluation.scores.length).toBeGreaterThan(0);
		for (const score of level1Done.latestEvaluation.scores) expect(score).toEqual({ name: expect.any(String), description: expect.any(String), value: expect.any(Number) });
	});

	it('lists delivery events oldest first, with repeats after a re-delivery', async () => {
		const { orders } = sandbox().fixtures;
		const order = (await call(sandbox(), 'GET', `/integration/orders/${orders.redelivered}`)).body;
		const types = order.deliveryEvents.map((event: any) => event.type);
		expect(types).toEqual(['ai_delivered', 'translator_delivered', 'lsp_approved', 'order_delivered', 'translator_delivered', 'order_delivered']);
		const times = order.deliveryEvents.map((event: any) => Date.parse(event.occurredAt));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expect(order.deliveryEvents[0]).toEqual({ type: 'ai_delivered', occurredAt: expect.any(String), actorType: 'ai', actorId: AI_ACTOR_ID });
		expect(order.deliveryEvents[1]).toEqual(expect.objectContaining({ actorType: 'translator', actorId: expect.stringMatching(/^[0-9a-f]{24}$/) }));
		expect(order.deliveryEvents[2]).toEqual(expect.objectContaining({ actorType: 'lsp' }));
	});

	it('returns an empty event list for orders created before the delivery log existed', async () => {
		const order = (await call(sandbox(), 'GET', `/integration/orders/${sandbox().fixtures.orders.withoutEvents}`)).body;
		expect(order.status).toBe('delivered');
		expect(order.deliveryEvents).toEqual([]);
	});

	it('answers 404 ORDER_NOT_FOUND (shape A) for an unknown id', async () => {
		for (const id of ['0123456789abcdef01234567', 'not-an-object-id']) {
			const response = await call(sandbox(), 'GET', `/integration/orders/${id}`);
			expect(response.status).toBe(404);
			expectShapeA(response.body, 'ORDER_NOT_FOUND');
		}
	});

	it('answers 403 ACCESS_DENIED (shape A) to a key without access; read-only access can read', async () => {
		const { keys, fixtures } = sandbox();
		const denied = await call(sandbox(), 'GET', `/integration/orders/${fixtures.orders.hiddenFromMember}`, { key: keys.member });
		expect(denied.status).toBe(403);
		expectShapeA(denied.body, 'ACCESS_DENIED');
		expect(denied.body.error).toBe('Forbidden');
		const readable = await call(sandbox(), 'GET', `/integration/orders/${fixtures.orders.readOnlyForMember}`, { key: keys.member });
		expect(readable.status).toBe(200);
	});

	it('has fixtures for every status and every type', async () => {
		const { orders } = sandbox().fixtures;
		for (const status of ORDER_STATUSES) {
			const order = (await call(sandbox(), 'GET', `/integration/orders/${orders.byStatus[status]}`)).body;
			expect({ status, actual: order.status }).toEqual({ status, actual: status });
		}
		for (const type of ORDER_TYPES) {
			const order = (await call(sandbox(), 'GET', `/integration/orders/${orders.byType[type]}`)).body;
			expect({ type, actual: order.type }).toEqual({ type, actual: type });
		}
	});
});

describe('GET /integration/orders (list)', () => {
	const sandbox = useSandbox();

	it('pages with the default paging and summary rows', async () => {
		const response = await listOrders(sandbox());
		expect(response.status).toBe(200);
		const owned = sandbox().state.orders.size;
		expect(response.body.meta).toEqual({ page: 1, take: 10, itemCount: owned, pageCount: Math.ceil(owned / 10), hasPreviousPage: false, hasNextPage: true });
		expect(response.body.data).toHaveLength(10);
		for (const row of response.body.data) expect(Object.keys(row).sort()).toEqual(SUMMARY_KEYS);
		const ids = response.body.data.map((row: any) => row.id);
		expect(ids).toEqual([...ids].sort().reverse());
	});

	it('reports page metadata in the middle and past the end', async () => {
		const itemCount = sandbox().state.orders.size;
		const middle = await listOrders(sandbox(), { 'pageOptions[page]': 2, 'pageOptions[take]': 7 });
		expect(middle.body.meta).toEqual({ page: 2, take: 7, itemCount, pageCount: Math.ceil(itemCount / 7), hasPreviousPage: true, hasNextPage: true });
		const last = await listOrders(sandbox(), { 'pageOptions[page]': Math.ceil(itemCount / 7), 'pageOptions[take]': 7 });
		expect(last.body.meta.hasNextPage).toBe(false);
		expect(last.body.data).toHaveLength(itemCount - 7 * (Math.ceil(itemCount / 7) - 1));
		const beyond = await listOrders(sandbox(), { 'pageOptions[page]': 999 });
		expect(beyond.body.data).toEqual([]);
		expect(beyond.body.meta.hasNextPage).toBe(false);
	});

	it.each(['id', 'createdAt', 'name', 'status'])('sorts by %s in both directions', async (field) => {
		for (const direction of ['asc', 'desc']) {
			const rows = await listAll(sandbox(), { 'pageOptions[orderBy]': field, 'pageOptions[orderDirection]': direction });
			const values = rows.map((row) => String(row[field]));
			const sorted = [...values].sort();
			expect(values).toEqual(direction === 'asc' ? sorted : sorted.reverse());
		}
	});

	it('filters by type, name (case-insensitive contains), project and one or several statuses', async () => {
		const state = [...sandbox().state.orders.values()];
		const subtitles = await listAll(sandbox(), { 'filter[type]': 'subtitle' });
		expect(subtitles.length).toBe(state.filter((order) => order.type === 'subtitle').length);
		expect(subtitles.every((row) => row.type === 'subtitle')).toBe(true);

		const someName = state[3].name;
		const fragment = someName.slice(0, 6).toUpperCase();
		const byName = await listAll(sandbox(), { 'filter[name]': fragment });
		expect(byName.length).toBe(state.filter((order) => order.name.toLowerCase().includes(fragment.toLowerCase())).length);
		expect(byName.map((row) => row.id)).toContain(state[3].id);

		const projectId = sandbox().fixtures.projects.writable;
		const byProject = await listAll(sandbox(), { 'filter[projectId]': projectId });
		expect(byProject.length).toBe(state.filter((order) => order.projectId === projectId).length);

		const one = await listAll(sandbox(), { 'filter[status]': 'completed' });
		expect(one.length).toBe(state.filter((order) => order.status === 'completed').length);
		const several = await listAll(sandbox(), { 'filter[status]': 'completed,qualityCheck' });
		expect(several.length).toBe(state.filter((order) => order.status === 'completed' || order.status === 'qualityCheck').length);
		const aliased = await listAll(sandbox(), { 'filter[statuses]': 'completed,qualityCheck' });
		expect(aliased.map((row) => row.id).sort()).toEqual(several.map((row) => row.id).sort());
	});

	it('accepts a repeated status key as several statuses', async () => {
		const url = new URL('/integration/orders', sandbox().baseUrl);
		url.searchParams.append('filter[status]', 'pending');
		url.searchParams.append('filter[status]', 'delivered');
		url.searchParams.append('pageOptions[take]', '50');
		const body = (await (await fetch(url, { headers: { 'x-api-key': sandbox().keys.owner } })).json()) as { meta: { itemCount: number } };
		const expected = [...sandbox().state.orders.values()].filter((order) => order.status === 'pending' || order.status === 'delivered').length;
		expect(body.meta.itemCount).toBe(expected);
	});

	it('filters by an inclusive createdAt range and searches by name or id', async () => {
		const order = sandbox().state.orders.get(sandbox().fixtures.orders.byStatus.completed)!;
		const exact = await listAll(sandbox(), { 'filter[createdAtRange][from]': order.createdAt, 'filter[createdAtRange][to]': order.createdAt });
		expect(exact.map((row) => row.id)).toContain(order.id);
		expect(exact.every((row) => row.createdAt === order.createdAt)).toBe(true);
		const after = await listAll(sandbox(), { 'filter[createdAtRange][from]': new Date(Date.parse(order.createdAt) + 1).toISOString() });
		expect(after.every((row) => Date.parse(row.createdAt) > Date.parse(order.createdAt))).toBe(true);
		const byId = await listAll(sandbox(), { 'pageOptions[search]': order.id });
		expect(byId.map((row) => row.id)).toEqual([order.id]);
	});

	it('does not list orders the member key cannot access', async () => {
		const { keys, fixtures, state } = sandbox();
		const hidden = [...state.orders.values()].filter((order) => order.folderId === fixtures.folders.hiddenFromMember).length;
		expect(hidden).toBeGreaterThan(0);
		const rows = await listAll(sandbox(), {}, keys.member);
		expect(rows.length).toBe(state.orders.size - hidden);
		expect(rows.map((row) => row.id)).not.toContain(fixtures.orders.hiddenFromMember);
	});

	it('rejects invalid paging and filters with every problem listed (400 shape B)', async () => {
		const response = await listOrders(sandbox(), {
			'pageOptions[take]': 51,
			'pageOptions[page]': 0,
			'pageOptions[orderBy]': 'price',
			'filter[status]': 'done',
			'filter[type]': 'poem',
			'filter[createdAtRange][from]': 'yesterday',
			'filter[colour]': 'red',
		});
		expect(response.status).toBe(400);
		expectShapeB(response.body, 400, 'Bad Request');
		expect(response.body.message).toEqual(
			expect.arrayContaining([
				'pageOptions.page must not be less than 1',
				'pageOptions.take must not be greater than 50',
				'pageOptions.orderBy must be one of the following values: id, createdAt, name, status',
				expect.stringMatching(/^each value in filter\.status must be one of the following values: pending, ongoing/),
				expect.stringMatching(/^filter\.type must be one of the following values: cc, subtitle/),
				'filter.createdAtRange.from must be a valid ISO 8601 date string',
				'property filter.colour should not exist',
			]),
		);
		expect(response.body.message).toHaveLength(7);
		const zero = await listOrders(sandbox(), { 'pageOptions[take]': 0 });
		expect(zero.body.message).toEqual(['pageOptions.take must not be less than 1']);
		const text = await listOrders(sandbox(), { 'pageOptions[take]': 'ten' });
		expect(text.body.message).toEqual(['pageOptions.take must be a number conforming to the specified constraints']);
	});
});

describe('POST /integration/orders/create', () => {
	const sandbox = useSandbox();
	const create = (body: unknown, key?: string) => call(sandbox(), 'POST', '/integration/orders/create', { body, key });

	it('creates one order per target language (201) that then progresses with the clock', async () => {
		const projectId = sandbox().fixtures.projects.writable;
		const response = await create({ orderType: 'cc', level: 0, projectId, targetLanguageConfigs: [{ language: 'fr' }, { language: 'de', isRush: true }] });
		expect(response.status).toBe(201);
		expect(response.body).toEqual([
			{ orderId: expect.stringMatching(/^[0-9a-f]{24}$/), orderType: 'cc' },
			{ orderId: expect.stringMatching(/^[0-9a-f]{24}$/), orderType: 'cc' },
		]);
		const [fr, de] = response.body.map((row: any) => row.orderId);
		const order = (await call(sandbox(), 'GET', `/integration/orders/${fr}`)).body;
		expect(order).toEqual(expect.objectContaining({ status: 'pending', type: 'cc', level: 0, projectId, targetLanguage: 'fr', deliveryEvents: [] }));
		const rush = (await call(sandbox(), 'GET', `/integration/orders/${de}`)).body;
		expect(rush.rate).toBeCloseTo(order.rate * 1.5, 6);
		const listed = await listOrders(sandbox(), { 'filter[projectId]': projectId, 'pageOptions[take]': 50 });
		expect(listed.body.data.map((row: any) => row.id)).toEqual(expect.arrayContaining([fr, de]));

		sandbox().clock.advance(1);
		expect((await call(sandbox(), 'GET', `/integration/orders/${fr}`)).body.status).toBe('ongoing');
		sandbox().clock.advance(10);
		const done = (await call(sandbox(), 'GET', `/integration/orders/${fr}`)).body;
		expect(done.status).toBe('completed');
		expect(done.deliveryEvents.map((event: any) => event.type)).toEqual(['ai_delivered']);
	});

	it('creates the subtitle order a dubbing order needs, per target language', async () => {
		const response = await create({ orderType: 'aiDubbing', level: 0, projectId: sandbox().fixtures.projects.writable, targetLanguageConfigs: [{ language: 'es' }], dubbingStyle: 'lipsync' });
		expect(response.status).toBe(201);
		expect(response.body.map((row: any) => row.orderType)).toEqual(['aiDubbing', 'subtitle']);
	});

	it('lists every violated field (400 shape B)', async () => {
		const response = await create({ level: 2, targetLanguageConfigs: [], selectedMemories: Array.from({ length: 21 }, () => 'x'), callbackUrl: 'nope', extra: true });
		expect(response.status).toBe(400);
		expectShapeB(response.body, 400, 'Bad Request');
		expect(response.body.message).toEqual(
			expect.arrayContaining([
				'orderType should not be empty',
				'level must be one of the following values: 0, 1',
				'projectId should not be empty',
				'targetLanguageConfigs should not be empty',
				'selectedMemories must contain no more than 20 elements',
				'callbackUrl must be a URL address',
				'property extra should not exist',
			]),
		);
		const nested = await create({ orderType: 'cc', level: 0, projectId: 'x', targetLanguageConfigs: [{ language: '' }] });
		expect(nested.body.message).toEqual(['targetLanguageConfigs.0.language should not be empty']);
	});

	it('requires an existing project and existing memories', async () => {
		const response = await create({
			orderType: 'document',
			level: 1,
			projectId: '0123456789abcdef01234567',
			targetLanguageConfigs: [{ language: 'fr' }],
			selectedMemories: [sandbox().fixtures.memories[0], 'ffffffffffffffffffffffff'],
		});
		expect(response.status).toBe(400);
		expect(response.body.message).toEqual(['projectId must reference an existing project', 'selectedMemories.1 must reference an existing translation memory']);
	});

	it('answers 403 ACCESS_DENIED when the key cannot write the project folder', async () => {
		const { keys, fixtures } = sandbox();
		const response = await create({ orderType: 'cc', level: 0, projectId: fixtures.projects.readOnlyForMember, targetLanguageConfigs: [{ language: 'fr' }] }, keys.member);
		expect(response.status).toBe(403);
		expectShapeA(response.body, 'ACCESS_DENIED');
	});
});

describe('POST /integration/orders/{orderId}/subtitle-embedding', () => {
	const sandbox = useSandbox();

	it('answers { success, message, orderId } and adds the embedded video a few minutes later', async () => {
		const orderId = sandbox().fixtures.orders.subtitleCompleted;
		const response = await call(sandbox(), 'POST', `/integration/orders/${orderId}/subtitle-embedding`);
		expect(response.status).toBe(200);
		expect(response.body).toEqual({ success: true, message: expect.any(String), orderId });
		const docTypes = async () => (await call(sandbox(), 'GET', `/integration/orders/${orderId}`)).body.orderDocs.map((doc: any) => doc.type);
		expect(await docTypes()).not.toContain('created_subtitle_embedded_video');
		sandbox().clock.advance(5);
		expect(await docTypes()).toContain('created_subtitle_embedded_video');
	});

	it('answers 400 shape B unless the order is a completed video order with subtitles', async () => {
		const { orders } = sandbox().fixtures;
		for (const orderId of [orders.byStatus.pending, orders.byType.document, orders.byStatus.waitingForCC]) {
			const response = await call(sandbox(), 'POST', `/integration/orders/${orderId}/subtitle-embedding`);
			expect(response.status).toBe(400);
			expectShapeB(response.body, 400, 'Bad Request');
		}
		const missing = await call(sandbox(), 'POST', '/integration/orders/0123456789abcdef01234567/subtitle-embedding');
		expect(missing.status).toBe(404);
		expectShapeA(missing.body, 'ORDER_NOT_FOUND');
	});
});

describe('review-gate info', () => {
	const sandbox = useSandbox();
	const paths = (orderId: string) => [`/v1/api/client/orders/${orderId}/review/info`, `/integration/orders/${orderId}/review/info`];

	it('answers the same at the spec path and the SDK path, in review while in qualityCheck', async () => {
		const orderId = sandbox().fixtures.orders.byStatus.qualityCheck;
		const [spec, sdk] = await Promise.all(paths(orderId).map((path) => call(sandbox(), 'GET', path)));
		expect(spec.status).toBe(200);
		expect(sdk.body).toEqual(spec.body);
		expect(spec.body).toEqual({
			inReview: true,
			tagName: expect.any(String),
			reviewType: expect.any(String),
			tagColor: expect.stringMatching(/^#[0-9A-F]{6}$/i),
			enteredReviewAt: expect.any(String),
			reviewers: [{ id: expect.any(String), name: expect.any(String), email: expect.any(String) }],
		});
	});

	it('is out of review for other orders and answers order errors in shape A', async () => {
		const { orders } = sandbox().fixtures;
		const body = (await call(sandbox(), 'GET', paths(orders.byStatus.delivered)[0])).body;
		expect(body).toEqual({ inReview: false, tagName: null, reviewType: null, tagColor: null, enteredReviewAt: null, reviewers: [] });
		const missing = await call(sandbox(), 'GET', paths('0123456789abcdef01234567')[0]);
		expect(missing.status).toBe(404);
		expectShapeA(missing.body, 'ORDER_NOT_FOUND');
		const denied = await call(sandbox(), 'GET', paths(orders.hiddenFromMember)[1], { key: sandbox().keys.member });
		expect(denied.status).toBe(403);
		expectShapeA(denied.body, 'ACCESS_DENIED');
	});
});

describe('documents carry what the spec types them with', () => {
	const sandbox = useSandbox({ volume: 'demo' });

	it('duration on audio and video files only, wordCount on text documents only; every delivery event has an actorId string', () => {
		sandbox().clock.advance(60 * 24 * 20);
		const textDocs: string[] = [];
		for (const order of sandbox().state.orders.values()) {
			for (const event of order.deliveryEvents) expect(typeof event.actorId).toBe('string');
			for (const doc of order.orderDocs) {
				if (/\.(docx|pdf|txt)$/i.test(doc.name)) {
					textDocs.push(doc.name);
					expect({ name: doc.name, duration: doc.duration, wordCount: typeof doc.wordCount }).toEqual({ name: doc.name, duration: undefined, wordCount: 'number' });
				}
				if (/\.(vtt|srt)$/i.test(doc.name)) expect({ name: doc.name, duration: doc.duration }).toEqual({ name: doc.name, duration: undefined });
			}
		}
		// Text documents delivered for orders of every kind, media projects among them (type "other" on a video).
		expect(textDocs.length).toBeGreaterThan(10);
	});
});
