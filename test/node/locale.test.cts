import { failure, run, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const op = (operation: string, extra: Record<string, unknown> = {}) => ({ resource: 'locale', operation, ...extra });

describe('Locale', () => {
	it('Get Languages: one item per language, variants nested; or every variant its own item with baseCode', async () => {
		const nested = await run(sandbox(), op('getLanguages'), { key: 'member' });
		const pt = nested.json.find((language) => language.code === 'pt');
		expect(pt).toEqual({ code: 'pt', name: 'Portuguese (Brazil)', nativeName: 'Português (Brasil)', variants: [expect.objectContaining({ code: 'pt-PT' })] });

		const flat = await run(sandbox(), op('getLanguages', { flattenVariants: true }));
		const codes = flat.json.map((language) => language.code);
		expect(codes).toEqual(expect.arrayContaining(['pt', 'pt-PT', 'es-MX', 'zh-Hant', 'en-UK']));
		expect(flat.json.find((language) => language.code === 'pt-PT')).toEqual({ code: 'pt-PT', name: 'Portuguese (Portugal)', nativeName: 'Português (Portugal)', baseCode: 'pt' });
		expect(flat.json.every((language) => language.variants === undefined)).toBe(true);
		expect(flat.json.length).toBeGreaterThan(nested.json.length);
	});

	it('Search: one item per match; empty search text is refused locally', async () => {
		const found = await run(sandbox(), op('search', { query: 'portug' }));
		expect(found.json.map((language) => language.code)).toEqual(['pt', 'pt-PT']);
		expect(sandbox().requests.log[0].path).toBe('/integration/locales/search');

		sandbox().requests.reset();
		expect(failure(await run(sandbox(), op('search', { query: '  ' }))).message).toBe('Invalid Search Text (item 0): must not be empty');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('Validate Tag: the answer with the tag asked about, valid or not', async () => {
		const result = await run(sandbox(), op('validateTag', { tag: '={{ $json.tag }}' }), {
			items: [{ json: { tag: 'pt-PT' } }, { json: { tag: 'en-GB' } }, { json: { tag: 'fr-BE' } }],
		});

		expect(result.json).toEqual([
			{ tag: 'pt-PT', valid: true, code: 'pt-PT', language: 'pt', region: 'PT' },
			{ tag: 'en-GB', valid: true, code: 'en-UK', language: 'en', region: 'UK' },
			{ tag: 'fr-BE', valid: false, language: 'fr', region: 'BE', reasons: ['fr-BE is not in the catalogue; supported: fr, fr-CA'] },
		]);
	});

	it('Validate Tag: a tag that could not stay in its path segment is refused locally, naming the field', async () => {
		const error = failure(await run(sandbox(), op('validateTag', { tag: 'pt/PT' })));

		expect(error.message).toBe('Invalid Language Tag (item 0): "pt/PT" is not a tag: it must not contain \'/\' (write tags with "-", e.g. pt-PT)');
		expect(sandbox().requests.count()).toBe(0);
	});
});
