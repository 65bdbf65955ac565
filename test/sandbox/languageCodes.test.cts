import { call, expectShapeB, postMultipart, useSandbox } from './helpers.cts';

/**
 * Every endpoint that creates something from a language code checks it against the one catalogue
 * GET /integration/locales/languages serves (public reference §3.11: "Order and project creation reject codes that
 * are not in the catalogue"): 400 shape B naming the field, and nothing is created.
 */
const sandbox = useSandbox();
const CATALOGUE = 'must be a language code of the catalogue (GET /integration/locales/languages)';
const VTT = 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n';

function counts() {
	const state = sandbox().state;
	return { orders: state.orders.size, projects: state.projects.size, subtitles: [...state.projects.values()].reduce((sum, project) => sum + project.subtitles.length, 0) };
}

async function expectRefused(response: { status: number; body: any }, messages: string[], before: ReturnType<typeof counts>): Promise<void> {
	expect({ status: response.status, messages: response.body.message }).toEqual({ status: 400, messages });
	expectShapeB(response.body, 400, 'Bad Request');
	expect(counts()).toEqual(before);
}

describe('language codes are checked against the locale catalogue', () => {
	it('the catalogue the checks use is the one the locale endpoints serve', async () => {
		const languages = await call(sandbox(), 'GET', '/integration/locales/languages');
		const codes: string[] = languages.body.flatMap((language: any) => [language.code, ...(language.variants ?? []).map((variant: any) => variant.code)]);
		expect(codes).toEqual(expect.arrayContaining(['en', 'pt-PT', 'zh-Hant', 'es-MX']));
		expect(codes).not.toContain('xx');
		expect(codes).not.toContain('en-US');
	});

	it('Order > Create: a target language outside the catalogue is 400 (xx, en-US, de-AT); catalogue codes in any case are taken', async () => {
		const projectId = sandbox().fixtures.projects.writable;
		const before = counts();
		const refused = await call(sandbox(), 'POST', '/integration/orders/create', {
			body: { orderType: 'document', level: 0, projectId, targetLanguageConfigs: [{ language: 'de' }, { language: 'xx' }, { language: 'en-US' }, { language: 'de-AT' }] },
		});
		await expectRefused(refused, [1, 2, 3].map((index) => `targetLanguageConfigs.${index}.language ${CATALOGUE}`), before);

		const taken = await call(sandbox(), 'POST', '/integration/orders/create', {
			body: { orderType: 'document', level: 0, projectId, targetLanguageConfigs: [{ language: 'pt-PT' }, { language: 'es-mx' }] },
		});
		expect(taken.status).toBe(201);
		expect(taken.body).toHaveLength(2);
	});

	it('Project > Create From URL: sourceLanguage outside the catalogue is 400', async () => {
		const before = counts();
		const response = await call(sandbox(), 'POST', '/integration/project/create-by-url', { body: { url: 'https://cdn.example.com/a.mp4', name: 'A', sourceLanguage: 'xx' } });
		await expectRefused(response, [`sourceLanguage ${CATALOGUE}`], before);
	});

	it('Upload > Upload From URL: sourceLanguage outside the catalogue is 400', async () => {
		const before = counts();
		const response = await call(sandbox(), 'POST', '/integration/upload/direct-url', { body: { url: 'https://cdn.example.com/a.mp4', originalname: 'a.mp4', size: 10, sourceLanguage: 'klingon' } });
		await expectRefused(response, [`sourceLanguage ${CATALOGUE}`], before);
	});

	it('Upload > Upload File: sourceLanguage outside the catalogue is 400', async () => {
		const before = counts();
		const response = await postMultipart(sandbox(), '/integration/upload/direct', [
			{ name: 'name', value: 'A' },
			{ name: 'sourceLanguage', value: 'xx' },
			{ name: 'file', filename: 'a.mp4', content: 'abc' },
		]);
		await expectRefused(response, [`sourceLanguage ${CATALOGUE}`], before);
	});

	it('Upload > Upload VTT: sourceLanguage outside the catalogue (xx-QQ) is 400; "all" and catalogue codes are taken', async () => {
		const projectId = sandbox().fixtures.projects.writable;
		const upload = (sourceLanguage: string) =>
			postMultipart(sandbox(), '/integration/upload/vtt', [
				{ name: 'file', filename: 'a.vtt', content: VTT },
				{ name: 'projectId', value: projectId },
				{ name: 'name', value: `vtt ${sourceLanguage}` },
				{ name: 'sourceLanguage', value: sourceLanguage },
			]);
		const before = counts();
		await expectRefused(await upload('xx-QQ'), [`sourceLanguage must be all or a language code of the catalogue (GET /integration/locales/languages)`], before);
		expect((await upload('all')).status).toBe(201);
		expect((await upload('zh-TW')).status).toBe(201);
	});

	it('Folder > Assign Translator: a language filter is matched, not checked (the reference has creation reject codes): one no order has selects nothing', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const response = await call(sandbox(), 'POST', `/integration/folder/${folderId}/assign-translator-to-orders`, { body: { translatorId: sandbox().state.translators[0].id, targetLanguage: 'xx' } });
		expect(response).toMatchObject({ status: 200, body: { assignedCount: 0 } });
	});
});
