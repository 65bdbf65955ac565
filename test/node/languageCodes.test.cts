import type { INodeParameters } from 'n8n-workflow';

import { binaryInputItem } from '../harness/engine.cts';
import { byId, failure, run, useSandbox } from './setup.cts';

/**
 * Language codes: what cannot be a code at all is refused before any request, naming the field and the item; a
 * well-formed code the catalogue lacks is the API's 400, which names the catalogue (Locale > Get Languages).
 */
const sandbox = useSandbox();
const VTT = Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n');
const video = Buffer.alloc(64, 1);

describe('language codes the node can tell are not codes are refused before any request', () => {
	const cases: Array<[string, INodeParameters, Buffer | null, string]> = [
		[
			'Order > Create',
			{ resource: 'order', operation: 'create', projectId: 'x'.repeat(24), orderType: 'document', targetLanguages: { language: [{ code: 'de' }, { code: 'German' }] } },
			null,
			'Invalid Target Languages > Language #2 (item 0): "German" is not a language code (e.g. en, de, pt-PT, zh-Hant)',
		],
		[
			'Project > Create From URL',
			{ resource: 'project', operation: 'createFromUrl', url: 'https://media.example.com/a.mp4', name: 'A', sourceLanguage: 'English' },
			null,
			'Invalid Source Language (item 0): "English" is not a language code (e.g. en, de, pt-PT, zh-Hant)',
		],
		[
			'Upload > Upload File',
			{ resource: 'upload', operation: 'uploadFile', sourceLanguage: 'en_US' },
			video,
			'Invalid Source Language (item 0): "en_US" is not a language code (e.g. en, de, pt-PT, zh-Hant)',
		],
		[
			'Upload > Upload From URL',
			{ resource: 'upload', operation: 'uploadFromUrl', url: 'https://media.example.com/a.mp4', size: 10, sourceLanguage: 'de fr' },
			null,
			'Invalid Source Language (item 0): "de fr" is not a language code (e.g. en, de, pt-PT, zh-Hant)',
		],
		[
			'Upload > Upload VTT',
			{ resource: 'upload', operation: 'uploadVtt', binaryPropertyName: 'data', name: 'Subs', additionalFields: { sourceLanguage: 'english please' } },
			VTT,
			'Invalid Source Language (item 0): "english please" is not a language code (e.g. en, de, pt-PT, zh-Hant) or all',
		],
	];

	it.each(cases)('%s', async (_name, parameters, file, message) => {
		const s = sandbox();
		s.requests.reset();
		const withProject = parameters.operation === 'uploadVtt' ? { ...parameters, projectId: byId(s.fixtures.projects.writable) } : parameters;
		const items = file ? [binaryInputItem(file, { fileName: file === VTT ? 'subs.vtt' : 'clip.mp4' })] : undefined;
		const error = failure(await run(s, withProject, items ? { items } : {}));
		expect(error.message).toBe(message);
		expect(s.requests.count()).toBe(0);
	});

	it('a well-formed code the catalogue lacks is the API\'s 400, naming the catalogue; nothing is created', async () => {
		const s = sandbox();
		const projects = s.state.projects.size;
		const error = failure(
			await run(s, { resource: 'project', operation: 'createFromUrl', url: 'https://media.example.com/a.mp4', name: 'A', sourceLanguage: 'xx' }),
		);
		expect(error.httpCode).toBe('400');
		expect(error.message).toBe(
			'The Ollang API answered 400 Bad Request: sourceLanguage must be a language code of the catalogue (GET /integration/locales/languages)',
		);
		expect(s.state.projects.size).toBe(projects);
		// "all" (detect the language) stays accepted for a VTT upload.
		const vtt = await run(s, { resource: 'upload', operation: 'uploadVtt', projectId: byId(s.fixtures.projects.writable), binaryPropertyName: 'data', name: 'Subs', additionalFields: { sourceLanguage: 'all' } }, { items: [binaryInputItem(VTT, { fileName: 'subs.vtt' })] });
		expect(vtt.json[0]).toMatchObject({ projectId: s.fixtures.projects.writable });
	});
});
