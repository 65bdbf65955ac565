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
			createdAt: expect.any(String),
			updatedAt: expect.any(String),
			targets: { it: { targetText: 'Carrello', updatedAt: expect.any(String) }, es: { targetText: 'Cesta', updatedAt: expect.any(String) } },
		});
	});
});
