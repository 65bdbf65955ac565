import { call, expectShapeB, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const importContent = (body: unknown) => call(sandbox(), 'POST', '/integration/content/import', { body });

describe('POST /integration/content/import', () => {
	it('creates terms (201 { success, imported }) and upserts on sourceText plus targetLanguage', async () => {
		const before = sandbox().state.content.size;
		const first = await importContent({
			targetLanguage: 'fr',
			translations: [
				{ sourceText: 'Checkout', targetText: 'Paiement', elementId: 'cart.checkout', type: 'ui' },
				{ sourceText: 'Welcome', targetText: 'Bienvenue' },
			],
		});
		expect(first.status).toBe(201);
		expect(first.body).toEqual({ success: true, imported: 2 });
		expect(sandbox().state.content.size).toBe(before + 2);
		const checkout = sandbox().state.content.get('Checkout')!;
		expect(checkout).toEqual(expect.objectContaining({ elementId: 'cart.checkout', type: 'ui' }));
		expect(sandbox().state.content.get('Welcome')!.type).toBe('text');

		// Same sourceText and language: updated, not duplicated. Another language: added to the same term.
		expect((await importContent({ targetLanguage: 'fr', translations: [{ sourceText: 'Checkout', targetText: 'Passer la commande' }] })).body).toEqual({ success: true, imported: 1 });
		expect((await importContent({ targetLanguage: 'de', translations: [{ sourceText: 'Checkout', targetText: 'Kasse' }] })).status).toBe(201);
		expect(sandbox().state.content.size).toBe(before + 2);
		expect(Object.fromEntries([...checkout.targets].map(([language, target]) => [language, target.targetText]))).toEqual({ fr: 'Passer la commande', de: 'Kasse' });
	});

	it('lists every violated field (400 shape B, message array, error Bad Request)', async () => {
		const missing = await importContent({});
		expect(missing.status).toBe(400);
		expect(missing.body).toEqual({ statusCode: 400, message: ['targetLanguage should not be empty', 'translations should not be empty'], error: 'Bad Request' });
		const units = await importContent({ targetLanguage: '', translations: [{ sourceText: 'a' }, { sourceText: '', targetText: 'b', type: 3 }] });
		expect(units.body.message).toEqual([
			'targetLanguage should not be empty',
			'translations.0.targetText should not be empty',
			'translations.1.sourceText should not be empty',
			'translations.1.type must be a string',
		]);
		const notArray = await importContent({ targetLanguage: 'fr', translations: 'Checkout' });
		expectShapeB(notArray.body, 400, 'Bad Request');
		expect(notArray.body.message).toEqual(['translations must be an array']);
	});
});

describe('GET /integration/custom-instructions/suggestions', () => {
	it('answers an array of { key, value, description?, active } to any valid key', async () => {
		for (const key of Object.values(sandbox().keys)) {
			const response = await call(sandbox(), 'GET', '/integration/custom-instructions/suggestions', { key });
			expect(response.status).toBe(200);
			expect(response.body.length).toBeGreaterThan(2);
			for (const suggestion of response.body) {
				expect(suggestion).toEqual(expect.objectContaining({ key: expect.any(String), value: expect.any(String), active: expect.any(Boolean) }));
				expect(Object.keys(suggestion).every((field) => ['key', 'value', 'description', 'active'].includes(field))).toBe(true);
			}
			expect(response.body.some((suggestion: any) => !('description' in suggestion))).toBe(true);
		}
	});
});

describe('GET /__sandbox/content (admin, no API key)', () => {
	it('answers the content database: each term with its targets by language', async () => {
		await importContent({ targetLanguage: 'it', translations: [{ sourceText: 'Basket', targetText: 'Carrello', elementId: 'nav.basket', type: 'navigation' }] });
		await importContent({ targetLanguage: 'es', translations: [{ sourceText: 'Basket', targetText: 'Cesta' }] });
		const response = await call(sandbox(), 'GET', '/__sandbox/content', { key: null });
		expect(response.status).toBe(200);
		expect(response.body).toHaveLength(sandbox().state.content.size);
		const basket = response.body.find((term: any) => term.sourceText === 'Basket');
		expect(basket).toEqual({
			id: expect.any(String),
			sourceText: 'Basket',
			elementId: 'nav.basket',
			type: 'navigation',
			tags: [],
			orderIds: [],
			createdAt: expect.any(String),
			updatedAt: expect.any(String),
			targets: { it: { targetText: 'Carrello', updatedAt: expect.any(String) }, es: { targetText: 'Cesta', updatedAt: expect.any(String) } },
		});
	});
});

describe('GET /integration/content/export', () => {
	const exportContent = (query: string, key?: string) => call(sandbox(), 'GET', `/integration/content/export${query}`, { key });
	const seededIn = (language: string, tag?: string) =>
		Object.fromEntries(
			[...sandbox().state.content.values()]
				.filter((term) => term.targets.has(language) && (tag === undefined || term.tags.includes(tag)))
				.map((term) => [term.sourceText, term.targets.get(language)!.targetText]),
		);

	beforeAll(async () => {
		const imported = await importContent({
			targetLanguage: 'tr',
			translations: [
				{ sourceText: 'Good morning', targetText: 'Günaydın' },
				{ sourceText: 'Good night', targetText: 'İyi geceler' },
			],
		});
		expect(imported.status).toBe(201);
		expect((await importContent({ targetLanguage: 'es', translations: [{ sourceText: 'Good morning', targetText: 'Buenos días' }] })).status).toBe(201);
	});

	it('one language answers the flat map { sourceText: targetText } of what Import stored', async () => {
		const response = await exportContent('?targetLanguage=tr');

		expect(response.status).toBe(200);
		expect(response.body).toEqual({ ...seededIn('tr'), 'Good morning': 'Günaydın', 'Good night': 'İyi geceler' });
		// A re-import updates what the export gives.
		await importContent({ targetLanguage: 'tr', translations: [{ sourceText: 'Good night', targetText: 'İyi uykular' }] });
		expect((await exportContent('?targetLanguage=tr')).body['Good night']).toBe('İyi uykular');
	});

	it('several languages answer { language: map }, by bracket form, repeated keys, or both parameters', async () => {
		const expected = { tr: expect.objectContaining({ 'Good morning': 'Günaydın' }), es: { ...seededIn('es'), 'Good morning': 'Buenos días' } };
		expect((await exportContent('?targetLanguages[]=tr&targetLanguages[]=es')).body).toEqual(expected);
		expect((await exportContent('?targetLanguages=tr&targetLanguages=es')).body).toEqual(expected);
		expect((await exportContent('?targetLanguage=tr&targetLanguages[]=es')).body).toEqual(expected);
		// A single value in targetLanguages is one language: the flat map.
		expect((await exportContent('?targetLanguages=es')).body).toEqual(expected.es);
		expect((await exportContent('?targetLanguages%5B%5D=es')).body).toEqual(expected.es);
	});

	it('no match answers {}; a language without matches is left out of the nested form', async () => {
		expect((await exportContent('?targetLanguage=xx')).body).toEqual({});
		expect((await exportContent('?targetLanguages[]=xx&targetLanguages[]=yy')).body).toEqual({});
		expect(Object.keys((await exportContent('?targetLanguages[]=xx&targetLanguages[]=tr')).body)).toEqual(['tr']);
	});

	it('filters by tag / tags[] (any of them) and orderIds[] (any of them)', async () => {
		const language = [...sandbox().state.content.values()].find((term) => term.tags.length > 0)!.targets.keys().next().value as string;
		const tag = [...sandbox().state.content.values()].find((term) => term.tags.length > 0 && term.targets.has(language))!.tags[0];
		const tagged = await exportContent(`?targetLanguage=${language}&tag=${tag}`);
		expect(tagged.body).toEqual(seededIn(language, tag));
		expect(Object.keys(tagged.body).length).toBeGreaterThan(0);
		expect((await exportContent(`?targetLanguage=${language}&tags[]=${tag}&tags[]=no-such-tag`)).body).toEqual(seededIn(language, tag));
		// Imported terms carry no tags.
		expect((await exportContent(`?targetLanguage=tr&tag=${tag}`)).body).toEqual(seededIn('tr', tag));

		const orderId = sandbox().fixtures.orders.byStatus.completed;
		sandbox().state.content.get('Good morning')!.orderIds.push(orderId);
		expect((await exportContent(`?targetLanguage=tr&orderIds[]=${orderId}`)).body).toEqual({ 'Good morning': 'Günaydın' });
		expect((await exportContent('?targetLanguage=tr&orderIds[]=000000000000000000000000')).body).toEqual({});
	});

	it('400 shape B without a language or with an unknown parameter; 401 shape C without a key', async () => {
		const none = await exportContent('');
		expect(none.status).toBe(400);
		expect(none.body).toEqual({ statusCode: 400, message: ['targetLanguage or targetLanguages should not be empty'], error: 'Bad Request' });
		expect((await exportContent('?targetLanguage=tr&lang=de')).body.message).toEqual(['property lang should not exist']);
		const anonymous = await exportContent('?targetLanguage=tr', null as unknown as string);
		expect(anonymous.status).toBe(401);
		expect(anonymous.body).toEqual({ error: 'UNAUTHORIZED', message: expect.any(String) });
	});
});
