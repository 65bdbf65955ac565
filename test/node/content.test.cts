import {
	DEFAULT_CONTENT_BATCH_SIZE,
	MAX_CONTENT_BATCH_BYTES,
	description,
} from '../../nodes/Ollang/actions/content/import.operation';
import { failure, pairedIndexes, run, startStub, useSandbox } from './setup.cts';

const sandbox = useSandbox();
const importContent = (extra: Record<string, unknown>) => ({ resource: 'content', operation: 'import', ...extra });
const contentImports = () => sandbox().requests.count({ method: 'POST', path: '/integration/content/import' });
const targetOf = (sourceText: string, language: string) =>
	sandbox().state.content.get(sourceText)?.targets.get(language)?.targetText;

describe('Content > Import (each item one unit)', () => {
	it('sends one request per target language, not one per item, and reports each item', async () => {
		const items = [
			{ json: { sourceText: 'Save', targetText: 'Speichern', language: 'de', elementId: 'button.save' } },
			{ json: { sourceText: 'Cancel', targetText: 'Abbrechen', language: 'de' } },
			{ json: { sourceText: 'Save', targetText: 'Enregistrer', language: 'fr', type: 'ui' } },
		];

		const result = await run(
			sandbox(),
			importContent({ targetLanguage: '={{ $json.language }}', elementId: '={{ $json.elementId }}', type: '={{ $json.type }}' }),
			{ items },
		);

		expect(contentImports()).toBe(2);
		expect(result.json).toEqual([
			{ success: true, targetLanguage: 'de', unitsContributed: 1, requests: 1 },
			{ success: true, targetLanguage: 'de', unitsContributed: 1, requests: 1 },
			{ success: true, targetLanguage: 'fr', unitsContributed: 1, requests: 1 },
		]);
		expect(pairedIndexes(result)).toEqual([0, 1, 2]);
		expect(targetOf('Save', 'de')).toBe('Speichern');
		expect(targetOf('Save', 'fr')).toBe('Enregistrer');
		expect(sandbox().state.content.get('Save')).toMatchObject({ elementId: 'button.save', type: 'ui' });
	});

	it('sends translation text with its spaces, and a JSON body with a Content-Length', async () => {
		const stub = await startStub((_req, res) => {
			res.writeHead(201, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ success: true, imported: 1 }));
		});
		try {
			await run(sandbox(), importContent({ targetLanguage: 'de', elementId: '  id.1 ' }), {
				items: [{ json: { sourceText: '  Indented ', targetText: '  Eingerückt ' } }],
				baseUrl: stub.baseUrl,
			});

			const [request] = stub.requests;
			expect(JSON.parse(request.body.toString('utf8'))).toEqual({
				targetLanguage: 'de',
				translations: [{ sourceText: '  Indented ', targetText: '  Eingerückt ', elementId: 'id.1' }],
			});
			expect(request.headers['content-type']).toBe('application/json');
			expect(Number(request.headers['content-length'])).toBe(request.body.length);
		} finally {
			await stub.close();
		}
	});

	it('refuses a unit without targetText before any request', async () => {
		const error = failure(
			await run(sandbox(), importContent({ targetLanguage: 'de' }), {
				items: [{ json: { sourceText: 'A', targetText: 'B' } }, { json: { sourceText: 'C' } }],
			}),
		);

		expect(error.message).toBe('Invalid Target Text (item 1): must not be empty');
		expect(error.itemIndex).toBe(1);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('refuses an empty target language before any request', async () => {
		const error = failure(
			await run(sandbox(), importContent({ targetLanguage: '={{ $json.language }}' }), {
				items: [{ json: { sourceText: 'A', targetText: 'B' } }],
			}),
		);

		expect(error.message).toBe('Invalid Target Language (item 0): must not be empty');
		expect(sandbox().requests.count()).toBe(0);
	});

	it('continue on fail: a bad item gets its error, the others are imported', async () => {
		const result = await run(sandbox(), importContent({ targetLanguage: 'it' }), {
			items: [
				{ json: { sourceText: 'Open', targetText: 'Apri' } },
				{ json: { targetText: 'Chiudi' } },
				{ json: { sourceText: 'Help', targetText: 'Aiuto' } },
			],
			continueOnFail: true,
		});

		expect(contentImports()).toBe(1);
		expect(result.json[0]).toMatchObject({ success: true, unitsContributed: 1 });
		expect(result.json[1].error).toBe('Invalid Source Text (item 1): must not be empty');
		expect(result.json[2]).toMatchObject({ success: true, unitsContributed: 1 });
		expect(pairedIndexes(result)).toEqual([0, 1, 2]);
	});

	it('continue on fail: the items of a failed batch get the API error, other batches go through', async () => {
		sandbox().faults.add({ method: 'POST', path: '/integration/content/import', kind: 'status', status: 400, times: 1 });

		const result = await run(sandbox(), importContent({ targetLanguage: '={{ $json.language }}' }), {
			items: [
				{ json: { sourceText: 'Yes', targetText: 'Ja', language: 'nl' } },
				{ json: { sourceText: 'Yes', targetText: 'Sí', language: 'es' } },
				{ json: { sourceText: 'No', targetText: 'Nee', language: 'nl' } },
			],
			continueOnFail: true,
		});

		expect(contentImports()).toBe(2);
		expect(result.json[0].error).toContain('The Ollang API answered 400');
		expect(result.json[1]).toMatchObject({ success: true, targetLanguage: 'es' });
		expect(result.json[2].error).toContain('The Ollang API answered 400');
		expect(targetOf('Yes', 'es')).toBe('Sí');
		expect(targetOf('Yes', 'nl')).toBeUndefined();
	});

	it('without continue on fail, stops at the first failed batch', async () => {
		sandbox().faults.add({ method: 'POST', path: '/integration/content/import', kind: 'status', status: 400 });

		const error = failure(
			await run(sandbox(), importContent({ targetLanguage: '={{ $json.language }}' }), {
				items: [
					{ json: { sourceText: 'One', targetText: 'Een', language: 'nl' } },
					{ json: { sourceText: 'One', targetText: 'Uno', language: 'es' } },
				],
			}),
		);

		expect(error.httpCode).toBe('400');
		expect(contentImports()).toBe(1);
	});
});

describe('Content > Import (units from a field)', () => {
	const units = (prefix: string, count: number) =>
		Array.from({ length: count }, (_, index) => ({ sourceText: `${prefix} ${index}`, targetText: `${prefix} übersetzt ${index}` }));

	it('combines the units of all items into batches of the chosen size', async () => {
		const result = await run(
			sandbox(),
			importContent({ targetLanguage: 'de', unitsSource: 'field', units: '={{ $json.units }}', options: { batchSize: 4 } }),
			{ items: [{ json: { units: units('first', 5) } }, { json: { units: units('second', 3) } }] },
		);

		expect(contentImports()).toBe(2);
		expect(result.json).toEqual([
			{ success: true, targetLanguage: 'de', unitsContributed: 5, requests: 2 },
			{ success: true, targetLanguage: 'de', unitsContributed: 3, requests: 1 },
		]);
		expect(targetOf('second 2', 'de')).toBe('second übersetzt 2');
	});

	it('re-importing the same source text and language updates it', async () => {
		const params = importContent({ targetLanguage: 'pt', unitsSource: 'field', units: '={{ $json.units }}' });
		await run(sandbox(), params, { items: [{ json: { units: [{ sourceText: 'Hello', targetText: 'Olá' }] } }] });
		await run(sandbox(), params, { items: [{ json: { units: [{ sourceText: 'Hello', targetText: 'Oi' }] } }] });

		expect(targetOf('Hello', 'pt')).toBe('Oi');
	});

	it.each([
		[[{ sourceText: 'A', targetText: 'B' }, { targetText: 'D' }], 'Invalid Units > unit 2 sourceText (item 0): must not be empty'],
		[[], 'Invalid Units (item 0): the list is empty: give at least one unit'],
		['not json', 'Invalid Units (item 0): must be a list of units (JSON array), got text that is not JSON'],
		[{ sourceText: 'A' }, 'Invalid Units (item 0): must be a list of units, got an object'],
		[['text'], 'Invalid Units > unit 1 (item 0): must be an object, got a string'],
	])('refuses %j before any request', async (value, message) => {
		const error = failure(
			await run(sandbox(), importContent({ targetLanguage: 'de', unitsSource: 'field', units: '={{ $json.units }}' }), {
				items: [{ json: { units: value } }],
			}),
		);

		expect(error.message).toBe(message);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('401 with a wrong key', async () => {
		const error = failure(
			await run(sandbox(), importContent({ targetLanguage: 'de' }), {
				items: [{ json: { sourceText: 'A', targetText: 'B' } }],
				key: 'wrong-key-2222222',
			}),
		);

		expect(error.httpCode).toBe('401');
	});
});

describe('Content > Import batches: by count and by size', () => {
	const fieldImport = (extra: Record<string, unknown> = {}) =>
		importContent({ targetLanguage: 'sv', unitsSource: 'field', units: '={{ $json.units }}', ...extra });

	it(`sends up to ${DEFAULT_CONTENT_BATCH_SIZE} units per request by default`, async () => {
		const units = Array.from({ length: DEFAULT_CONTENT_BATCH_SIZE + 700 }, (_, index) => ({ sourceText: `Batch line ${index}`, targetText: `Rad ${index}` }));

		const result = await run(sandbox(), fieldImport(), { items: [{ json: { units } }] });

		expect(contentImports()).toBe(2);
		expect(result.json).toEqual([{ success: true, targetLanguage: 'sv', unitsContributed: units.length, requests: 2 }]);
		expect(targetOf(`Batch line ${units.length - 1}`, 'sv')).toBe(`Rad ${units.length - 1}`);
	});

	it('also cuts a batch before its JSON passes the size limit, so long texts never make a request too large', async () => {
		const bodies: Buffer[] = [];
		const stub = await startStub((_req, res, body) => {
			bodies.push(body);
			res.writeHead(201, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ success: true }));
		});
		try {
			// Each unit is about 40% of the limit: two fit in a batch, a third does not.
			const longText = 'x'.repeat(Math.floor(MAX_CONTENT_BATCH_BYTES * 0.4));
			const units = Array.from({ length: 5 }, (_, index) => ({ sourceText: `Long ${index}`, targetText: longText }));

			const result = await run(sandbox(), fieldImport(), { items: [{ json: { units } }], baseUrl: stub.baseUrl });

			const sent = bodies.map((body) => JSON.parse(body.toString('utf8')) as { translations: Array<{ sourceText: string }> });
			expect(sent.map((body) => body.translations.map((unit) => unit.sourceText))).toEqual([['Long 0', 'Long 1'], ['Long 2', 'Long 3'], ['Long 4']]);
			// The envelope around the list ({"targetLanguage":"sv","translations":...}) is all that is added.
			for (const body of bodies) expect(body.length).toBeLessThanOrEqual(MAX_CONTENT_BATCH_BYTES + 64);
			expect(result.json).toEqual([{ success: true, targetLanguage: 'sv', unitsContributed: 5, requests: 3 }]);
		} finally {
			await stub.close();
		}
	});

	it('a single unit larger than the limit goes alone, and the service decides', async () => {
		const huge = 'y'.repeat(MAX_CONTENT_BATCH_BYTES + 10);

		const result = await run(sandbox(), fieldImport(), {
			items: [{ json: { units: [{ sourceText: 'Small', targetText: 'Liten' }, { sourceText: 'Huge', targetText: huge }] } }],
		});

		expect(contentImports()).toBe(2);
		expect(result.json[0]).toMatchObject({ success: true, requests: 2 });
		expect(targetOf('Huge', 'sv')).toHaveLength(huge.length);
	});

	it("the option's description says both limits", () => {
		const options = description.find((property) => property.name === 'options');
		const batchSize = (options?.options as Array<{ name: string; default: unknown; description?: string }>).find((option) => option.name === 'batchSize');

		expect(batchSize?.default).toBe(DEFAULT_CONTENT_BATCH_SIZE);
		expect(batchSize?.description).toMatch(/Most units to send in one request/);
		expect(batchSize?.description).toMatch(/5 MB of JSON/);
	});
});

describe('Content > Export', () => {
	const exportContent = (extra: Record<string, unknown>) => ({ resource: 'content', operation: 'export', ...extra });
	const stored = (language: string) =>
		[...sandbox().state.content.values()]
			.filter((term) => term.targets.has(language))
			.map((term) => ({ sourceText: term.sourceText, targetText: term.targets.get(language)!.targetText, targetLanguage: language }));

	beforeAll(async () => {
		await run(sandbox(), importContent({ targetLanguage: '={{ $json.language }}' }), {
			items: [
				{ json: { sourceText: 'Good morning', targetText: 'Günaydın', language: 'tr' } },
				{ json: { sourceText: 'Good night', targetText: 'İyi geceler', language: 'tr' } },
				{ json: { sourceText: 'Good morning', targetText: 'Buenos días', language: 'es' } },
			],
		});
	});

	it('by default gives one item per translation of what Import stored: { sourceText, targetText, targetLanguage }', async () => {
		const result = await run(sandbox(), exportContent({ targetLanguages: 'tr' }));

		expect(result.json).toEqual(stored('tr'));
		expect(result.json).toEqual(
			expect.arrayContaining([
				{ sourceText: 'Good morning', targetText: 'Günaydın', targetLanguage: 'tr' },
				{ sourceText: 'Good night', targetText: 'İyi geceler', targetLanguage: 'tr' },
			]),
		);
		expect(new Set(pairedIndexes(result))).toEqual(new Set([0]));
		const [request] = sandbox().requests.log;
		expect(request).toMatchObject({ path: '/integration/content/export', status: 200 });
	});

	it('several languages: entries of each, or the raw nested map as one item', async () => {
		const entries = await run(sandbox(), exportContent({ targetLanguages: 'tr, es' }));
		expect(entries.json).toEqual([...stored('tr'), ...stored('es')]);

		const raw = await run(sandbox(), exportContent({ targetLanguages: '={{ ["tr", "es"] }}', output: 'map' }));
		expect(raw.json).toHaveLength(1);
		expect(raw.json[0]).toEqual({
			tr: Object.fromEntries(stored('tr').map((entry) => [entry.sourceText, entry.targetText])),
			es: Object.fromEntries(stored('es').map((entry) => [entry.sourceText, entry.targetText])),
		});
	});

	it('one language as the raw map is the flat { sourceText: targetText }', async () => {
		const raw = await run(sandbox(), exportContent({ targetLanguages: 'es', output: 'map' }));

		expect(raw.json).toEqual([Object.fromEntries(stored('es').map((entry) => [entry.sourceText, entry.targetText]))]);
	});

	it('sends arrays in the bracket form and the filters; no match gives no items', async () => {
		const stub = await startStub((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end('{}');
		});
		try {
			const result = await run(sandbox(), exportContent({ targetLanguages: 'de,fr', filters: { tags: 'ui, checkout', orderIds: 'o1' } }), { baseUrl: stub.baseUrl });

			expect(result.json).toEqual([]);
			const url = new URL(stub.requests[0].url, 'http://x');
			expect(url.pathname).toBe('/integration/content/export');
			expect([...url.searchParams]).toEqual([
				['targetLanguages[]', 'de'],
				['targetLanguages[]', 'fr'],
				['tags[]', 'ui'],
				['tags[]', 'checkout'],
				['orderIds[]', 'o1'],
			]);
		} finally {
			await stub.close();
		}
		const tagged = await run(sandbox(), exportContent({ targetLanguages: 'tr', filters: { tags: 'no-such-tag' } }));
		expect(tagged.json).toEqual([]);
	});

	it('refuses bad language lists before sending anything', async () => {
		expect(failure(await run(sandbox(), exportContent({ targetLanguages: ' ' }))).message).toBe('Invalid Target Languages (item 0): add at least one language code');
		expect(failure(await run(sandbox(), exportContent({ targetLanguages: 'de, de' }))).message).toBe('Invalid Target Languages (item 0): "de" is listed twice');
		expect(failure(await run(sandbox(), exportContent({ targetLanguages: 'german language' }))).message).toBe(
			'Invalid Target Languages (item 0): "german language" is not a language code (e.g. en, de, pt-PT, zh-Hant)',
		);
		expect(sandbox().requests.count()).toBe(0);
	});

	it('an answer of another shape is a clear error', async () => {
		const stub = await startStub((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ tr: 'not a map' }));
		});
		try {
			const error = failure(await run(sandbox(), exportContent({ targetLanguages: 'tr, es' }), { baseUrl: stub.baseUrl }));
			expect(error.message).toContain('a map of languages to text maps');
		} finally {
			await stub.close();
		}
	});
});
