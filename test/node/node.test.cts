// The node as n8n sees it: its description (every operation reachable, every parameter scoped), the router's
// map, the resource locators' list search through n8n-core's LoadOptionsContext, and the credential's test.
import type { INode, INodeParameterResourceLocator, INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { LoadOptionsContext } from 'n8n-core';
import { OllangApi } from '../../credentials/OllangApi.credentials';
import { Ollang } from '../../nodes/Ollang/Ollang.node';
import { OllangTrigger } from '../../nodes/OllangTrigger/OllangTrigger.node';
import { findOperation, resources } from '../../nodes/Ollang/actions/router';
import { LANGUAGE_CACHE_TTL_MS } from '../../nodes/Ollang/methods/languages';
import { HARNESS_CREDENTIAL, OLLANG_CREDENTIAL_TYPE, OLLANG_NODE_TYPE, OLLANG_TRIGGER_NODE_TYPE } from '../harness/engine.cts';
import { createAdditionalData, createCredentialsHelper, getRuntime, nodeTypes } from '../harness/runtime.cts';
import { useSandbox } from './setup.cts';
import type { KeyName } from './setup.cts';

const sandbox = useSandbox();
const { description } = new Ollang();

function optionsOf(property: INodeProperties | undefined): INodePropertyOptions[] {
	return (property?.options ?? []) as INodePropertyOptions[];
}

const resourceProperty = description.properties.find((property) => property.name === 'resource');
const operationSelectors = description.properties.filter((property) => property.name === 'operation');

describe('node description', () => {
	it('offers every resource and operation the router implements, and nothing else', () => {
		const offered = operationSelectors.flatMap((selector) => {
			const [resource] = (selector.displayOptions?.show?.resource ?? []) as string[];
			return optionsOf(selector).map((option) => `${resource}.${String(option.value)}`);
		});
		const implemented = Object.entries(resources).flatMap(([resource, operations]) =>
			Object.keys(operations).map((operation) => `${resource}.${operation}`),
		);

		expect(optionsOf(resourceProperty).map((option) => option.value).sort()).toEqual(Object.keys(resources).sort());
		expect(offered.sort()).toEqual(implemented.sort());
		expect(offered).toHaveLength(55);
		for (const key of offered) {
			const [resource, operation] = key.split('.');
			expect(findOperation(resource, operation)).toBeDefined();
		}
	});

	it('describes every operation for people and AI agents (action and description)', () => {
		expect(description.usableAsTool).toBe(true);
		for (const option of operationSelectors.flatMap(optionsOf)) {
			expect(option.action).toMatch(/\w+ \w+/);
			expect(String(option.description).length).toBeGreaterThan(20);
		}
	});

	it('scopes every operation parameter to its resource and operation', () => {
		const parameters = description.properties.filter((property) => property.name !== 'resource' && property.name !== 'operation');
		for (const property of parameters) {
			expect(property.displayOptions?.show?.resource).toHaveLength(1);
			expect(property.displayOptions?.show?.operation).toHaveLength(1);
		}
	});
});

describe('resource locators: list search', () => {
	/** A list search as the panel asks for it; `parameters` are the panel's values (what a dependent list reads). */
	async function loadOptionsContext(
		key: KeyName | { apiKey: string },
		parameters: INode['parameters'] = { resource: 'order', operation: 'get' },
		path = 'parameters.orderId',
	): Promise<LoadOptionsContext> {
		const runtime = await getRuntime();
		const node: INode = {
			id: 'list-search',
			name: 'Ollang',
			type: OLLANG_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters,
			credentials: { [OLLANG_CREDENTIAL_TYPE]: { ...HARNESS_CREDENTIAL } },
		};
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: runtime.nodeTypes });
		const credentialsHelper = createCredentialsHelper({
			[HARNESS_CREDENTIAL.id]: { type: OLLANG_CREDENTIAL_TYPE, data: { baseUrl: sandbox().baseUrl, apiKey: typeof key === 'string' ? sandbox().keys[key] : key.apiKey } },
		});
		const additionalData = { ...createAdditionalData({ credentialsHelper }), currentNodeParameters: parameters };
		return new LoadOptionsContext(workflow, node, additionalData, path);
	}
	const methods = new Ollang().methods;

	it('lists orders page by page, newest first, filtered by name', async () => {
		const context = await loadOptionsContext('owner');
		const first = await methods.listSearch.searchOrders.call(context);
		const second = await methods.listSearch.searchOrders.call(context, undefined, first.paginationToken);
		const newest = [...sandbox().state.orders.values()].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));

		expect(first.results).toHaveLength(50);
		expect(first.paginationToken).toBe('2');
		expect([...first.results, ...second.results].map((result) => result.value)).toEqual(newest.map((order) => order.id));
		expect(second.paginationToken).toBeUndefined();

		const name = newest[3].name;
		const filtered = await methods.listSearch.searchOrders.call(context, name);
		expect(filtered.results.map((result) => result.value)).toContain(newest[3].id);
		expect(filtered.results.every((result) => String(result.name).toLowerCase().includes(name.toLowerCase()))).toBe(true);
	});

	it('lists memories by title and offers them for Create Order', async () => {
		const context = await loadOptionsContext('member');
		const all = await methods.listSearch.searchMemories.call(context);
		const filtered = await methods.listSearch.searchMemories.call(context, 'glossary');
		const options = await methods.loadOptions.getMemories.call(context);

		expect(all.results.map((result) => result.value).sort()).toEqual([...sandbox().state.memories.keys()].sort());
		expect(filtered.results).toEqual([{ name: expect.stringMatching(/^Legal Glossary \(\d+ units\)$/), value: sandbox().fixtures.memories[1] }]);
		expect(options.map((option) => option.value)).toEqual(all.results.map((result) => result.value));
	});

	it('lists projects and folders page by page, newest first, searched by part of the name', async () => {
		const context = await loadOptionsContext('member');
		const { fixtures, state } = sandbox();
		const projects = await methods.listSearch.searchProjects.call(context);
		const folders = await methods.listSearch.searchFolders.call(context);

		const readable = [...state.projects.values()].filter((project) => project.folderId !== fixtures.folders.hiddenFromMember);
		expect(projects.results.map((result) => result.value).sort()).toEqual(readable.map((project) => project.id).sort());
		expect(projects.paginationToken).toBeUndefined();
		expect(folders.results.map((result) => result.value)).not.toContain(fixtures.folders.hiddenFromMember);
		expect(folders.results.find((result) => result.value === fixtures.folders.writable)?.name).toMatch(/^General \(\d+ projects\)$/);

		const target = state.projects.get(fixtures.projects.writable)!;
		const searched = await methods.listSearch.searchProjects.call(context, target.name.toUpperCase());
		expect(searched.results).toEqual([{ name: `${target.name} (${target.sourceLanguage})`, value: target.id }]);
		const general = await methods.listSearch.searchFolders.call(context, 'genera');
		expect(general.results.map((result) => result.value)).toEqual([fixtures.folders.writable]);
		const options = await methods.loadOptions.getFolders.call(context);
		expect(options.map((option) => option.name)).toEqual(folders.results.map((result) => String(result.name).replace(/ \(\d+ projects\)$/, '')).sort());
	});

	it('lists custom instructions by key, searched by key or description', async () => {
		const context = await loadOptionsContext('owner');
		for (const [key, description] of [['tone_formal', 'Formal register'], ['brand_names', 'Keep product names'], ['avoid_slang', 'No slang at all']]) {
			const created = await fetch(`${sandbox().baseUrl}/integration/custom-instructions`, {
				method: 'POST',
				headers: { 'X-Api-Key': sandbox().keys.owner, 'Content-Type': 'application/json' },
				body: JSON.stringify({ key, value: `Instruction ${key}`, description }),
			});
			expect(created.status).toBe(201);
		}
		const instructions = [...sandbox().state.customInstructions.values()];
		expect(instructions.length).toBeGreaterThan(2);

		const all = await methods.listSearch.searchCustomInstructions.call(context);
		expect(all.results.map((result) => result.value).sort()).toEqual(instructions.map((instruction) => instruction.id).sort());
		expect(all.results.map((result) => String(result.name).replace(/ \(inactive\)$/, ''))).toEqual(instructions.map((instruction) => instruction.key).sort((a, b) => a.localeCompare(b)));
		const brand = instructions.find((instruction) => instruction.key === 'brand_names')!;
		expect((await methods.listSearch.searchCustomInstructions.call(context, 'BRAND')).results).toEqual([{ name: 'brand_names', value: brand.id }]);
		expect((await methods.listSearch.searchCustomInstructions.call(context, 'slang')).results.map((result) => result.name)).toEqual(['avoid_slang']);
	});

	it('offers the API\'s languages and variants, loaded once a minute per credential', async () => {
		const path = '/integration/locales/languages';
		const catalogue = (await (await fetch(`${sandbox().baseUrl}${path}`, { headers: { 'X-Api-Key': sandbox().keys.owner } })).json()) as Array<{ code: string; name: string; variants?: Array<{ code: string; name: string }> }>;
		const codes = catalogue.flatMap((language) => [language.code, ...(language.variants ?? []).map((variant) => variant.code)]);
		sandbox().requests.reset();

		const member = await loadOptionsContext('member');
		const languages = await methods.loadOptions.getLanguages.call(member);
		expect(languages.map((option) => option.value).sort()).toEqual([...codes].sort());
		expect(languages.find((option) => option.value === 'pt-PT')?.name).toBe('Portuguese (Portugal) (pt-PT)');
		expect(languages.map((option) => option.name)).toEqual(languages.map((option) => option.name).sort((a, b) => a.localeCompare(b)));
		const withDetect = await methods.loadOptions.getLanguagesOrDetect.call(member);
		expect(withDetect[0]).toMatchObject({ name: 'Detect Automatically', value: 'all' });
		expect(withDetect.slice(1)).toEqual(languages);
		// The second and third fields of the panel were served without asking again.
		expect(sandbox().requests.count({ method: 'GET', path })).toBe(1);

		// Another credential (another key) loads its own; a wrong key is not served another key's catalogue.
		await methods.loadOptions.getLanguages.call(await loadOptionsContext('owner'));
		expect(sandbox().requests.count({ method: 'GET', path })).toBe(2);
		await expect(methods.loadOptions.getLanguages.call(await loadOptionsContext({ apiKey: 'wrong-key-4444444' }))).rejects.toThrow('401');

		// A minute later the panel loads the catalogue afresh.
		const now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(now + LANGUAGE_CACHE_TTL_MS);
		try {
			await methods.loadOptions.getLanguages.call(member);
		} finally {
			clock.mockRestore();
		}
		expect(sandbox().requests.count({ method: 'GET', path })).toBe(4);
	});

	it('lists the revision requests of the order chosen above, and asks for the order first', async () => {
		const [order] = sandbox().simulate.createOrders(1, { type: 'subtitle', level: 0, status: 'completed', progress: false });
		for (const [time, description] of [['00:00:05', 'Fix the intro subtitle'], ['00:01:10', 'Speaker name misspelt']]) {
			const created = await fetch(`${sandbox().baseUrl}/integration/revision/${order.id}`, {
				method: 'POST',
				headers: { 'X-Api-Key': sandbox().keys.owner, 'Content-Type': 'application/json' },
				body: JSON.stringify({ type: time === '00:00:05' ? 'wrongSubtitle' : 'syncError', time, description }),
			});
			expect(created.status).toBe(201);
		}
		const revisions = [...sandbox().state.revisions.values()].filter((revision) => revision.orderId === order.id);
		const panel = (orderId: INodeParameterResourceLocator): INodeParameters => ({ resource: 'revision', operation: 'delete', orderId, revisionId: { __rl: true, mode: 'list', value: '' } });

		const listed = await methods.listSearch.searchRevisions.call(await loadOptionsContext('owner', panel({ __rl: true, mode: 'list', value: order.id }), 'parameters.revisionId'));
		expect(listed.results.map((result) => result.value).sort()).toEqual(revisions.map((revision) => revision.id).sort());
		expect(listed.results.map((result) => result.name).sort()).toEqual(['Sync Error at 00:01:10: Speaker name misspelt', 'Wrong Subtitle at 00:00:05: Fix the intro subtitle']);
		const searched = await methods.listSearch.searchRevisions.call(await loadOptionsContext('owner', panel({ __rl: true, mode: 'id', value: order.id }), 'parameters.revisionId'), 'speaker');
		expect(searched.results.map((result) => result.name)).toEqual(['Sync Error at 00:01:10: Speaker name misspelt']);
		for (const unchosen of [{ __rl: true, mode: 'list', value: '' }, { __rl: true, mode: 'id', value: '={{ $json.orderId }}' }] as INodeParameterResourceLocator[]) {
			await expect(methods.listSearch.searchRevisions.call(await loadOptionsContext('owner', panel(unchosen), 'parameters.revisionId'))).rejects.toThrow('Choose the order first');
		}
	});

	it('lists the documents of the folder chosen above', async () => {
		const folderId = sandbox().fixtures.folders.writable;
		const documents = [...sandbox().state.folderDocs.values()].filter((document) => document.folderId === folderId);
		expect(documents.length).toBeGreaterThan(0);
		const panel = { resource: 'folder', operation: 'removeDocument', folderId: { __rl: true, mode: 'list', value: folderId }, documentId: { __rl: true, mode: 'list', value: '' } };

		const listed = await methods.listSearch.searchFolderDocuments.call(await loadOptionsContext('owner', panel, 'parameters.documentId'));
		expect(listed.results.map((result) => result.value).sort()).toEqual(documents.map((document) => document.id).sort());
		const first = documents[0];
		expect(listed.results.find((result) => result.value === first.id)?.name).toBe(`${first.name ?? first.fileName} (${[first.type, first.language].filter(Boolean).join(', ')})`);
	});

	it('a wrong key fails the search with the API\'s 401', async () => {
		const wrong = await loadOptionsContext({ apiKey: 'wrong-key-4444444' });

		await expect(methods.listSearch.searchMemories.call(wrong)).rejects.toThrow('The Ollang API answered 401 UNAUTHORIZED');
	});
});

describe('credential', () => {
	const credential = new OllangApi();

	it('keeps the key in a password field and defaults to the production URL', () => {
		const apiKey = credential.properties.find((property) => property.name === 'apiKey');
		const baseUrl = credential.properties.find((property) => property.name === 'baseUrl');

		expect(apiKey?.typeOptions?.password).toBe(true);
		expect(baseUrl?.default).toBe('https://api-integration.ollang.com');
	});

	/** What n8n's "Test credential" does: resolve the test request with the credential's data, authenticate, send. */
	async function testCredential(apiKey: string, baseUrl: string): Promise<number> {
		const runtime = await getRuntime();
		const node: INode = { id: 't', name: 'Credential test', type: OLLANG_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: {} };
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: runtime.nodeTypes });
		const data = { apiKey, baseUrl };
		const resolve = (value: string) =>
			String(workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: data }));
		const { request } = credential.test;
		const helper = createCredentialsHelper({ [HARNESS_CREDENTIAL.id]: { type: OLLANG_CREDENTIAL_TYPE, data } });
		const options = await helper.authenticate(data, OLLANG_CREDENTIAL_TYPE, { url: String(request.url), headers: {} }, workflow, node);
		const response = await fetch(`${resolve(String(request.baseURL))}${options.url}`, {
			method: request.method ?? 'GET',
			headers: options.headers as Record<string, string>,
		});
		return response.status;
	}

	it('"Test credential" passes for any valid key, whatever its roles, and fails for a wrong one', async () => {
		expect(await testCredential(sandbox().keys.owner, sandbox().baseUrl)).toBe(200);
		expect(await testCredential(sandbox().keys.member, `${sandbox().baseUrl}/`)).toBe(200);
		expect(await testCredential('wrong-key-5555555', sandbox().baseUrl)).toBe(401);
	});
});

describe('canvas subtitles (through n8n\'s expression engine)', () => {
	async function subtitleOf(type: string, subtitle: string, parameters: INode['parameters']): Promise<unknown> {
		await getRuntime();
		const node: INode = { id: 'subtitle', name: 'Node', type, typeVersion: 1, position: [0, 0], parameters };
		const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
		return workflow.expression.getSimpleParameterValue(node, subtitle, 'internal', {});
	}

	it('shows the operation and resource display names, for every operation', async () => {
		for (const [resource, operations] of Object.entries(resources)) {
			for (const operation of Object.keys(operations)) {
				const shown = String(await subtitleOf(OLLANG_NODE_TYPE, String(description.subtitle), { resource, operation }));
				const resourceName = optionsOf(resourceProperty).find((option) => option.value === resource)!.name;
				const selector = operationSelectors.find((property) => (property.displayOptions?.show?.resource as string[]).includes(resource));
				const operationName = optionsOf(selector).find((option) => option.value === operation)!.name;
				expect(shown).toBe(`${operationName}: ${resourceName}`);
			}
		}
		expect(await subtitleOf(OLLANG_NODE_TYPE, String(description.subtitle), { resource: 'consumption', operation: 'getMany' })).toBe('Get Many: Consumption');
	});

	it('shows the trigger\'s event name', async () => {
		const { description: trigger } = new OllangTrigger();
		expect(await subtitleOf(OLLANG_TRIGGER_NODE_TYPE, String(trigger.subtitle), { event: 'orderDeliveryEvent' })).toBe('Order Delivery Event');
		expect(await subtitleOf(OLLANG_TRIGGER_NODE_TYPE, String(trigger.subtitle), { event: 'importJobFinished' })).toBe('Memory Import Job Finished');
	});
});
