import { LANGUAGES } from '../../sandbox/domain/catalog.cts';
import { call, expectShapeB, expectShapeC, useSandbox } from './helpers.cts';

const sandbox = useSandbox();
const validateTag = async (tag: string) => {
	const response = await call(sandbox(), 'GET', `/integration/locales/validate/${encodeURIComponent(tag)}`);
	expect(response.status).toBe(200);
	return response.body;
};

describe('GET /integration/locales/languages', () => {
	it('lists { code, name, nativeName, variants? } with the platform conventions, and every language the data uses', async () => {
		const response = await call(sandbox(), 'GET', '/integration/locales/languages', { key: sandbox().keys.member });
		expect(response.status).toBe(200);
		const byCode = new Map<string, any>(response.body.map((language: any) => [language.code, language]));
		for (const language of response.body) {
			expect(Object.keys(language).every((field) => ['code', 'name', 'nativeName', 'variants'].includes(field))).toBe(true);
			expect(language).toEqual(expect.objectContaining({ code: expect.any(String), name: expect.any(String) }));
		}
		const variants = (code: string) => byCode.get(code).variants.map((variant: { code: string }) => variant.code);
		expect(byCode.get('pt').name).toBe('Portuguese (Brazil)');
		expect(variants('pt')).toEqual(['pt-PT']);
		expect(byCode.get('es').name).toBe('Spanish (Spain)');
		expect(variants('es')).toEqual(['es-MX']);
		expect(byCode.get('zh').name).toBe('Chinese (Simplified)');
		expect(variants('zh')).toEqual(['zh-Hant', 'zh-TW']);
		expect(variants('en')).toEqual(['en-UK']);
		expect(variants('ar')).toEqual(['ar-EG', 'ar-AE']);
		expect(variants('fr')).toEqual(['fr-CA']);
		expect(byCode.get('de').variants).toBeUndefined();
		for (const code of LANGUAGES) expect(byCode.has(code)).toBe(true);
	});

	it('401 shape C without a key', async () => {
		const response = await call(sandbox(), 'GET', '/integration/locales/languages', { key: null });
		expect(response.status).toBe(401);
		expectShapeC(response.body, 'UNAUTHORIZED');
	});
});

describe('GET /integration/locales/search?q=', () => {
	const search = (q: string | undefined) => call(sandbox(), 'GET', '/integration/locales/search', { query: { q } });

	it('matches code, name or native name, case and accents ignored, variants as entries of their own', async () => {
		expect((await search('portug')).body.map((language: any) => language.code)).toEqual(['pt', 'pt-PT']);
		expect((await search('DEUTSCH')).body).toEqual([{ code: 'de', name: 'German', nativeName: 'Deutsch' }]);
		expect((await search('espanol')).body.map((language: any) => language.code)).toEqual(['es', 'es-MX']);
		expect((await search('繁體')).body.map((language: any) => language.code)).toEqual(['zh-Hant']);
		for (const language of (await search('an')).body) expect(language.variants).toBeUndefined();
	});

	it('puts an exact code first', async () => {
		const codes = (await search('it')).body.map((language: any) => language.code);
		expect(codes[0]).toBe('it');
		expect(codes.length).toBeGreaterThan(1);
	});

	it('no match answers []; no q answers 400 shape B', async () => {
		expect((await search('klingon')).body).toEqual([]);
		const missing = await search(undefined);
		expect(missing.status).toBe(400);
		expectShapeB(missing.body, 400, 'Bad Request');
		expect(missing.body.message).toEqual(['q should not be empty']);
		expect((await search('   ')).status).toBe(400);
	});
});

describe('GET /integration/locales/validate/{tag}', () => {
	it('a catalogue code is valid, with its language and region, whatever the case', async () => {
		expect(await validateTag('pt-PT')).toEqual({ valid: true, code: 'pt-PT', language: 'pt', region: 'PT' });
		expect(await validateTag('PT-pt')).toEqual({ valid: true, code: 'pt-PT', language: 'pt', region: 'PT' });
		expect(await validateTag('zh-hant')).toEqual({ valid: true, code: 'zh-Hant', language: 'zh' });
		expect(await validateTag('de')).toEqual({ valid: true, code: 'de', language: 'de' });
		expect(await validateTag('es-MX')).toEqual({ valid: true, code: 'es-MX', language: 'es', region: 'MX' });
	});

	it('standard tags the platform writes another way are valid and answer the platform code', async () => {
		expect(await validateTag('pt-BR')).toEqual({ valid: true, code: 'pt', language: 'pt', region: 'BR' });
		expect(await validateTag('en-GB')).toEqual({ valid: true, code: 'en-UK', language: 'en', region: 'UK' });
		expect(await validateTag('zh-CN')).toEqual({ valid: true, code: 'zh', language: 'zh', region: 'CN' });
	});

	it('invalid tags answer valid false with reasons (200)', async () => {
		const slash = await validateTag('pt/PT');
		expect(slash.valid).toBe(false);
		expect(slash.reasons).toEqual([expect.stringContaining('"pt/PT" is not a language tag')]);
		expect(await validateTag('fr-BE')).toEqual({ valid: false, language: 'fr', region: 'BE', reasons: ['fr-BE is not in the catalogue; supported: fr, fr-CA'] });
		expect(await validateTag('de-AT')).toEqual({ valid: false, language: 'de', region: 'AT', reasons: ['de-AT is not in the catalogue; use de'] });
		expect(await validateTag('xx')).toEqual({ valid: false, reasons: [expect.stringContaining('xx is not a supported language')] });
		expect((await validateTag('en_US')).valid).toBe(false);
	});

	it('the tag is one path segment: an encoded slash stays in it, an unencoded one is another route', async () => {
		const encoded = await call(sandbox(), 'GET', '/integration/locales/validate/pt%2FPT');
		expect(encoded.status).toBe(200);
		expect(encoded.body.valid).toBe(false);
		expect((await call(sandbox(), 'GET', '/integration/locales/validate/pt/PT')).status).toBe(404);
	});
});
