// Self-tests of the engine harness's own parts, with the real `ollangApi` credential type and the harness's
// Test Items node (the Ollang node's behaviour is tested in test/engine and test/<resource>).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Workflow } from 'n8n-workflow';
import type { IHttpRequestOptions, INode } from 'n8n-workflow';
import { binaryInputItem, nodeOutput, readBinary, runWorkflow, testItemsNode } from './engine.cts';
import { HARNESS_CREDENTIAL, OLLANG_CREDENTIAL_TYPE, createCredentialsHelper, nodeTypes } from './runtime.cts';

const source = testItemsNode([{ json: {} }]);

function credentialsHelperWith(data: Record<string, string>) {
	return createCredentialsHelper({ [HARNESS_CREDENTIAL.id]: { type: OLLANG_CREDENTIAL_TYPE, data } });
}

function workflowOf(node: INode): Workflow {
	return new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
}

describe('credentials helper', () => {
	it("applies the ollangApi credential's authentication as the X-Api-Key header", async () => {
		const helper = credentialsHelperWith({ apiKey: 'key-123', baseUrl: 'http://127.0.0.1:1' });
		const request: IHttpRequestOptions = { url: 'http://127.0.0.1:1/integration/orders', headers: { Accept: 'json' } };

		const authenticated = await helper.authenticate(
			{ apiKey: 'key-123' },
			OLLANG_CREDENTIAL_TYPE,
			request,
			workflowOf(source),
			source,
		);

		expect(authenticated.headers).toEqual({ Accept: 'json', 'X-Api-Key': 'key-123' });
	});

	it('fills fields the stored data leaves out with the credential type defaults', async () => {
		const helper = credentialsHelperWith({ apiKey: 'key-123' });

		const decrypted = await helper.getDecrypted({} as never, HARNESS_CREDENTIAL, OLLANG_CREDENTIAL_TYPE, 'manual');

		expect(decrypted).toEqual({ apiKey: 'key-123', baseUrl: 'https://api-integration.ollang.com' });
	});

	it('refuses a credential id it does not hold, and a credential of another type', async () => {
		const helper = credentialsHelperWith({ apiKey: 'key-123' });

		await expect(
			helper.getDecrypted({} as never, { id: 'missing', name: 'x' }, OLLANG_CREDENTIAL_TYPE, 'manual'),
		).rejects.toThrow('Credential with ID "missing" does not exist for type "ollangApi".');
		await expect(helper.getDecrypted({} as never, HARNESS_CREDENTIAL, 'otherApi', 'manual')).rejects.toThrow(
			'is of type "ollangApi", not "otherApi"',
		);
	});
});

describe('Test Items node and binary data', () => {
	it('emits the given items and stores inline binary in the filesystem store, readable as bytes', async () => {
		const bytes = Buffer.from([0, 1, 2, 254, 255]);
		const items = [binaryInputItem(bytes, { fileName: 'a.bin', mimeType: 'application/x-test', json: { n: 1 } }), { json: { n: 2 } }];
		const node = testItemsNode(items, 'Source');

		const run = await runWorkflow({ nodes: [node], connections: {} }, { credentials: {} });
		const output = nodeOutput(run, 'Source');

		expect(run.status).toBe('success');
		expect(output.map((item) => item.json)).toEqual([{ n: 1 }, { n: 2 }]);
		const stored = output[0].binary?.data;
		// Stored by reference (n8n's default filesystem mode), not inline base64.
		expect(stored).toMatchObject({ fileName: 'a.bin', mimeType: 'application/x-test', data: 'filesystem-v2' });
		expect(stored?.id).toMatch(/^filesystem-v2:/);
		expect(await readBinary(output[0])).toEqual(bytes);
	});

	it('uses pinned data in place of a node\'s output, as a manual run from the editor does', async () => {
		const node = testItemsNode([{ json: { from: 'parameter' } }], 'Source');

		const run = await runWorkflow(
			{ nodes: [node], connections: {}, pinData: { Source: [{ json: { from: 'pin' } }] } },
			{ credentials: {} },
		);

		expect(nodeOutput(run, 'Source').map((item) => item.json)).toEqual([{ from: 'pin' }]);
	});

	it('names the missing binary property when an item has none', async () => {
		await expect(readBinary({ json: {} }, 'file')).rejects.toThrow('Item has no binary property "file" (present: none)');
	});

	it('fails the execution with a message naming a malformed item', async () => {
		const node = { ...testItemsNode([]), parameters: { items: '[{"nojson":true}]' } };

		const run = await runWorkflow({ nodes: [node], connections: {} }, { credentials: {} });

		expect(run.status).toBe('error');
		expect(run.data.resultData.error?.message).toBe('Item 0 must be an object with a "json" object');
	});
});

describe('outside jest', () => {
	it('loads both node types and the credential in a plain Node script (node --require tsx/cjs)', () => {
		// Beside each X.node.ts lies the codex X.node.json, which Node's require would pick for an extensionless path.
		const script = `
			const runtime = require(${JSON.stringify(join(__dirname, 'runtime.cts'))});
			const names = [runtime.OLLANG_NODE_TYPE, runtime.OLLANG_TRIGGER_NODE_TYPE].map((type) => runtime.nodeTypes.getByName(type).description.name);
			process.stdout.write(JSON.stringify([...names, runtime.credentialTypes.getByName(runtime.OLLANG_CREDENTIAL_TYPE).name]));
		`;

		const output = execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], {
			cwd: join(__dirname, '..', '..'),
			encoding: 'utf8',
			env: { ...process.env, N8N_LOG_LEVEL: 'silent' },
		});

		expect(JSON.parse(output)).toEqual(['ollang', 'ollangTrigger', 'ollangApi']);
	});
});
