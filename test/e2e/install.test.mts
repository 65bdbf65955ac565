// The package as n8n users get it: published to a real npm registry (verdaccio, local) and installed, updated and
// uninstalled in a running n8n through n8n's own community-package installer, the REST requests behind Settings >
// Community nodes (POST / PATCH / DELETE /rest/community-packages), with N8N_COMMUNITY_PACKAGES_REGISTRY pointing at
// the local registry. One n8n process, started twice (the second start after the bad inputs).
//
// n8n 2.40 uses a registry other than npm's only with the license feature feat:communityNodes:customRegistry (its
// CommunityPackagesService.getNpmRegistry). No license can be had here, so n8n runs in its own end-to-end test mode
// (E2E_TESTS=true), whose PATCH /rest/e2e/feature turns on that one feature, as n8n's own test suite does for its
// registry tests. The suite first checks what an n8n without the feature answers.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import {
	activateWorkflow,
	buildPackageTarball,
	callProductionWebhook,
	communityPackages,
	createWorkflow,
	listLoadedNodeTypes,
	n8nFetch,
	n8nRequest,
	readExecutions,
	readWorkflowStaticData,
	restRequest,
	signIn,
	type RunningN8n,
} from '../../scripts/n8n/runtime.mjs';
import { sandboxCredentials } from '../../scripts/n8n/sandbox.mjs';
import {
	assertSimplifiedOrder,
	EVERY_DELIVERY_EVENT,
	N8nUserFolder,
	OLLANG_NODE,
	OLLANG_NODE_TYPES,
	PACKAGE_NAME,
	pollTriggerWorkflow,
	SandboxClient,
	triggerItems,
	waitFor,
	withoutLinkSignatures,
	type Fixtures,
	type WorkflowJson,
} from './harness.mts';
import { assertLocalRegistry, laterVersionOf, LocalRegistry, RegistryProxy } from './registry.mts';

type Json = Record<string, unknown>;

const CUSTOM_REGISTRY_FEATURE = 'feat:communityNodes:customRegistry';
const TRIGGER_NODE = 'On delivery event';
const CREDENTIAL_TYPE = 'ollangApi';

describe('installed, updated and uninstalled through n8n\'s community-package installer, from a local npm registry', { timeout: 20 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let fixtures: Fixtures;
	let n8n: N8nUserFolder;
	let registry: LocalRegistry;
	let proxy: RegistryProxy;
	let server: RunningN8n | undefined;
	let cookie = '';
	let firstVersion = '';
	let laterVersion = '';
	const summary: string[] = [];
	const workflows: { raw?: string; simplified?: string; trigger?: string } = {};
	/** What each webhook workflow answered after the install, for the same request after the update. */
	const answersAfterInstall: { raw?: unknown; simplified?: unknown } = {};

	const nodesDir = () => path.join(n8n.dir, '.n8n', 'nodes');
	const installedDir = () => path.join(nodesDir(), 'node_modules', PACKAGE_NAME);
	const ledgerDependency = () => {
		const file = path.join(nodesDir(), 'package.json');
		return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: Json }).dependencies?.[PACKAGE_NAME] : undefined;
	};

	async function startServer(): Promise<void> {
		server = await n8n.start({
			E2E_TESTS: 'true',
			N8N_COMMUNITY_PACKAGES_REGISTRY: proxy.url,
			// npm's cache of n8n's installs kept in the test folder: nothing comes from an earlier run's cache.
			npm_config_cache: path.join(n8n.root, 'npm-cache'),
		});
		cookie = await signIn(server.url);
	}

	async function enableCustomRegistry(): Promise<void> {
		const answer = await n8nRequest(new URL('/rest/e2e/feature', server!.url), { method: 'PATCH', body: { feature: CUSTOM_REGISTRY_FEATURE, enabled: true } });
		assert.equal(answer.status, 200, answer.text);
	}

	/**
	 * Nothing of the package left: not listed by n8n, no folder, no node type loaded, and (unless `ledger` is false)
	 * no entry in the nodes folder's package.json.
	 */
	async function assertNothingInstalled(what: string, { ledger = true } = {}): Promise<void> {
		const listed = await communityPackages(server!.url, cookie, 'GET');
		assert.equal(listed.status, 200);
		assert.deepEqual(listed.data.map((entry) => entry.packageName), [], `${what}: n8n lists no package`);
		assert.equal(existsSync(installedDir()), false, `${what}: no ${installedDir()}`);
		if (ledger) assert.equal(ledgerDependency(), undefined, `${what}: the nodes folder's package.json names no ${PACKAGE_NAME}`);
		const types = await listLoadedNodeTypes(server!.url, cookie);
		assert.equal(types.includes(OLLANG_NODE), false, `${what}: no Ollang node type loaded`);
	}

	/** A published webhook workflow's answer (its publication may still be under way: callProductionWebhook). */
	async function webhook(pathname: string): Promise<unknown> {
		const { status, text } = await callProductionWebhook(server!.url, pathname);
		assert.equal(status, 200, `GET /webhook/${pathname}: ${text.slice(0, 500)}`);
		return JSON.parse(text);
	}

	/** A published workflow: a webhook (answering with the last node's item) and Order > Get, simplified (the default) or raw. */
	function orderGetWorkflow(answer: 'raw' | 'simplified', credential: { id: string; name: string }, orderId: string): WorkflowJson {
		const webhookPath = `install-e2e-order-${answer}`;
		return {
			id: '',
			name: `Install e2e: Order > Get, ${answer}`,
			nodes: [
				{
					id: randomUUID(),
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: randomUUID(),
					parameters: { httpMethod: 'GET', path: webhookPath, responseMode: 'lastNode', options: {} },
				},
				{
					id: randomUUID(),
					name: 'Get order',
					type: OLLANG_NODE,
					typeVersion: 1,
					position: [240, 0],
					parameters: { resource: 'order', operation: 'get', orderId: { __rl: true, mode: 'id', value: orderId }, ...(answer === 'raw' ? { simplify: false } : {}) },
					credentials: { [CREDENTIAL_TYPE]: credential },
				},
			],
			connections: { Webhook: { main: [[{ node: 'Get order', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		};
	}

	/** New subtitle orders, AI-delivered as the sandbox clock moves on: each delivery is an event for the trigger. */
	async function makeEvents(): Promise<void> {
		await sandbox.admin('POST', 'orders', { count: 2, type: 'subtitle', level: 0 });
		await sandbox.advanceClock(30);
	}

	before(async () => {
		sandbox = await SandboxClient.start();
		fixtures = await sandbox.fixtures();
		n8n = N8nUserFolder.create('install');
		registry = await LocalRegistry.start(path.join(n8n.root, 'registry'));
		proxy = await RegistryProxy.start(registry.url);
		await startServer();
	});

	after(async () => {
		await server?.stop();
		await proxy?.stop();
		await registry?.stop();
		await sandbox?.stop();
		if (summary.length > 0) console.log(`install e2e (local registry, n8n's installer):\n${summary.join('\n')}`);
		n8n?.remove();
	});

	it('publishes only to the local registry it started: a real registry is refused before npm runs', async () => {
		assert.throws(() => assertLocalRegistry('https://registry.npmjs.org/'), /refusing to publish to https:\/\/registry\.npmjs\.org\//);
		assert.throws(() => assertLocalRegistry('http://127.0.0.1:1/'), /only a local registry this test started/);
		const { tarball } = await buildPackageTarball();
		await registry.publish(tarball);
		const versions = await registry.versions(PACKAGE_NAME);
		assert.equal(versions.length, 1, JSON.stringify(versions));
		firstVersion = versions[0];
		const [major, minor, patch] = firstVersion.split('.').map(Number);
		laterVersion = `${major}.${minor}.${patch + 1}`;
		summary.push(`  published ${PACKAGE_NAME}@${firstVersion} (the packed package) to verdaccio at ${registry.url}`);
	});

	it('an n8n without the custom-registry license feature refuses the local registry with a clear error', async () => {
		const answer = await communityPackages(server!.url, cookie, 'POST', { name: PACKAGE_NAME, version: firstVersion });
		assert.ok(answer.status >= 400, `HTTP ${answer.status}`);
		assert.match(answer.message ?? '', /license/i);
		assert.match(answer.message ?? '', new RegExp(CUSTOM_REGISTRY_FEATURE));
		await assertNothingInstalled('refused for the license');
		summary.push(`  without the license feature: HTTP ${answer.status} "${(answer.message ?? '').split('\n')[0].slice(0, 160)}"`);
		await enableCustomRegistry();
	});

	it('bad input: an unknown package, an unknown version, the registry stopped mid-install; nothing half-installed, n8n starts again', async () => {
		const unknownName = `${PACKAGE_NAME}-e2e-absent`;
		const cases: Array<{ label: string; body: { name: string; version?: string }; arrange?: () => void }> = [
			{ label: `unknown package ${unknownName}`, body: { name: unknownName } },
			{ label: `unknown version ${PACKAGE_NAME}@9.9.9`, body: { name: PACKAGE_NAME, version: '9.9.9' } },
			{
				label: `registry stopped while n8n downloads ${PACKAGE_NAME}@${firstVersion}`,
				body: { name: PACKAGE_NAME, version: firstVersion },
				arrange: () => {
					proxy.stopRegistryOnTarball = registry;
				},
			},
		];
		for (const { label, body, arrange } of cases) {
			arrange?.();
			const tarballsBefore = proxy.tarballRequests;
			const started = Date.now();
			const answer = await communityPackages(server!.url, cookie, 'POST', body).catch((error: Error) => {
				throw new Error(`${label}: ${error.message}\nn8n's last output:\n${n8n.serverLog.slice(-40).join('\n')}`);
			});
			const seconds = ((Date.now() - started) / 1000).toFixed(1);
			assert.ok(answer.status >= 400 && answer.status < 600, `${label}: HTTP ${answer.status}`);
			const message = answer.message ?? '';
			assert.ok(message.length > 0, `${label}: n8n says what went wrong`);
			if (arrange) {
				assert.ok(proxy.tarballRequests > tarballsBefore, 'the registry was stopped during the tarball download');
				assert.equal(registry.pid, undefined, 'the registry is stopped');
			} else {
				assert.match(message, /does not exist|not found/i, label);
			}
			await assertNothingInstalled(label);
			summary.push(`  bad input, ${label}: HTTP ${answer.status} in ${seconds} s "${message.split('\n')[0].slice(0, 200)}"; nothing installed`);
		}
		assert.equal(server!.child.exitCode, null, 'n8n is still running');

		// The registry back (a new port behind the same URL), and n8n restarted on the same user folder.
		proxy.target = await registry.restart();
		await server!.stop();
		server = undefined;
		const started = Date.now();
		await startServer();
		await enableCustomRegistry();
		await assertNothingInstalled('after the restart');
		summary.push(`  n8n started again after the bad inputs in ${((Date.now() - started) / 1000).toFixed(1)} s, no package installed`);
	});

	it('installs through the installer: the nodes and the credential type are in n8n, Order > Get answers as the API does, raw or simplified', async () => {
		const started = Date.now();
		const answer = await communityPackages(server!.url, cookie, 'POST', { name: PACKAGE_NAME, version: firstVersion });
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		assert.equal(answer.status, 200, answer.message);
		assert.equal(answer.data.packageName, PACKAGE_NAME);
		assert.equal(answer.data.installedVersion, firstVersion);
		assert.deepEqual(answer.data.installedNodes.map((node) => node.type).sort(), OLLANG_NODE_TYPES);
		assert.equal(ledgerDependency(), firstVersion);

		const nodeTypes = await listLoadedNodeTypes(server!.url, cookie);
		for (const type of OLLANG_NODE_TYPES) assert.ok(nodeTypes.includes(type), `${type} in n8n's node list`);
		const credentialTypes = (await (await n8nFetch(new URL('/types/credentials.json', server!.url), { headers: { cookie } })).json()) as Array<{ name: string }>;
		assert.ok(credentialTypes.some((type) => type.name === CREDENTIAL_TYPE), 'the Ollang API credential type is known');
		summary.push(`  install ${PACKAGE_NAME}@${firstVersion}: ${seconds} s (POST /rest/community-packages), nodes ${answer.data.installedNodes.map((node) => node.type).join(', ')}`);

		const [owner] = sandboxCredentials(sandbox.info);
		const credential = await restRequest<{ id: string; name: string }>(server!.url, cookie, 'POST', '/rest/credentials', { name: owner.name, type: CREDENTIAL_TYPE, data: owner.data });
		const ref = { id: credential.id, name: credential.name };
		const orderId = fixtures.orders.deliveredLevel0;
		for (const answer of ['raw', 'simplified'] as const) {
			const created = await createWorkflow(server!.url, cookie, orderGetWorkflow(answer, ref, orderId));
			await activateWorkflow(server!.url, cookie, created.id);
			workflows[answer] = created.id;
		}
		const trigger = pollTriggerWorkflow('', 'Install e2e: delivery events', TRIGGER_NODE, { ...EVERY_DELIVERY_EVENT });
		const { id: _unused, active: _active, pinData: _pinData, ...triggerBody } = trigger;
		triggerBody.nodes[0].credentials = { [CREDENTIAL_TYPE]: ref };
		const createdTrigger = await createWorkflow(server!.url, cookie, triggerBody);
		workflows.trigger = createdTrigger.id;

		const apiOrder = await sandbox.get<Json>(`/integration/orders/${orderId}`);
		answersAfterInstall.raw = await webhook('install-e2e-order-raw');
		answersAfterInstall.simplified = await webhook('install-e2e-order-simplified');
		assert.deepEqual(withoutLinkSignatures(answersAfterInstall.raw), withoutLinkSignatures(apiOrder), 'Simplify off: the API\'s answer, unchanged');
		assertSimplifiedOrder(answersAfterInstall.simplified as Json, apiOrder);
	});

	it('updates through the installer while saved workflows exist and a published trigger receives events: every event once', async () => {
		const dir = laterVersionOf((await buildPackageTarball()).tarball, path.join(n8n.root, `later-${laterVersion}`), laterVersion);
		await registry.publish(dir);
		assert.deepEqual((await registry.versions(PACKAGE_NAME)).sort(), [firstVersion, laterVersion].sort());

		const activatedAt = Math.floor((await sandbox.now()).getTime() / 1000) * 1000;
		await activateWorkflow(server!.url, cookie, workflows.trigger!);
		await waitFor(
			'the trigger to record its baseline',
			async () => JSON.stringify((await readWorkflowStaticData(server!.url, cookie, workflows.trigger!)).global ?? {}).includes('ollangTriggerBaseline:'),
			{ timeoutMs: 120_000, intervalMs: 500 },
		);
		const emitted = async () =>
			(await readExecutions(server!.url, cookie, workflows.trigger!, { limit: 500 })).flatMap((execution) => triggerItems(execution, TRIGGER_NODE).map((item) => String(item.eventId)));
		// Events before the update, and a poll that emits them.
		await sandbox.advanceClock(1);
		await makeEvents();
		await waitFor('a poll to emit events before the update', async () => (await emitted()).length > 0, { timeoutMs: 150_000, intervalMs: 2_000 });
		const emittedBefore = (await emitted()).length;

		// Events right before, during and after the update.
		await makeEvents();
		const started = Date.now();
		const updating = communityPackages(server!.url, cookie, 'PATCH', { name: PACKAGE_NAME, version: laterVersion });
		await makeEvents();
		const answer = await updating;
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		assert.equal(answer.status, 200, answer.message);
		assert.equal(answer.data.installedVersion, laterVersion);
		assert.equal(ledgerDependency(), laterVersion);
		const installedManifest = JSON.parse(readFileSync(path.join(installedDir(), 'package.json'), 'utf8')) as Json;
		assert.equal(installedManifest.version, laterVersion);
		await makeEvents();

		const expected = await sandbox.deliveryEventIdsAfter(activatedAt);
		assert.ok(expected.length >= 6, `events to count: ${expected.length}`);
		await waitFor(
			'every event to be emitted',
			async () => {
				const seen = new Set(await emitted());
				return expected.every((id) => seen.has(id));
			},
			{ timeoutMs: 240_000, intervalMs: 5_000 },
		).catch(() => undefined);
		// Executions still being written.
		await sleep(5_000);
		const all = await emitted();
		const counts = new Map<string, number>();
		for (const id of all) counts.set(id, (counts.get(id) ?? 0) + 1);
		const missed = expected.filter((id) => !counts.has(id));
		const duplicated = [...counts].filter(([id, count]) => count > 1 || !expected.includes(id)).map(([id, count]) => `${id} x${count}`);
		summary.push(
			`  update ${firstVersion} -> ${laterVersion}: ${seconds} s (PATCH /rest/community-packages); trigger across it: expected ${expected.length}, emitted ${counts.size} (${emittedBefore} before the update), missed ${missed.length}, duplicated ${duplicated.length}`,
		);
		assert.deepEqual(missed, [], 'missed events');
		assert.deepEqual(duplicated, [], 'duplicated events');

		// Both saved workflows answer as before the update, with the same credential.
		const apiOrder = await sandbox.get<Json>(`/integration/orders/${fixtures.orders.deliveredLevel0}`);
		const raw = await webhook('install-e2e-order-raw');
		const simplified = await webhook('install-e2e-order-simplified');
		assert.deepEqual(withoutLinkSignatures(raw), withoutLinkSignatures(answersAfterInstall.raw), 'Simplify off answers as before the update');
		assert.deepEqual(withoutLinkSignatures(simplified), withoutLinkSignatures(answersAfterInstall.simplified), 'Simplify on answers as before the update');
		assert.deepEqual(withoutLinkSignatures(raw), withoutLinkSignatures(apiOrder));
		assertSimplifiedOrder(simplified as Json, apiOrder);
	});

	it('uninstalls through the installer: the nodes are gone, a workflow using them opens with missing nodes, n8n keeps running', async () => {
		const started = Date.now();
		const answer = await communityPackages(server!.url, cookie, 'DELETE', { name: PACKAGE_NAME });
		const seconds = ((Date.now() - started) / 1000).toFixed(1);
		assert.equal(answer.status, 200, answer.message);
		// n8n 2.40's uninstall deletes the folder, the database record and the loaded types, but leaves the package's
		// line in the nodes folder's package.json (its removeNpmPackage does not call removePackageJsonDependency).
		await assertNothingInstalled('after the uninstall', { ledger: false });
		const leftover = ledgerDependency();
		const nodeTypes = await listLoadedNodeTypes(server!.url, cookie);
		for (const type of OLLANG_NODE_TYPES) assert.equal(nodeTypes.includes(type), false, `${type} still loaded after the uninstall`);

		// What the editor opens: the workflow, its nodes of a type n8n no longer has (the editor's missing-node state).
		const workflow = await restRequest<{ nodes: Array<{ type: string }> }>(server!.url, cookie, 'GET', `/rest/workflows/${workflows.simplified!}`);
		const missing = workflow.nodes.filter((node) => !nodeTypes.includes(node.type)).map((node) => node.type);
		assert.deepEqual(missing, [OLLANG_NODE]);
		await sleep(2_000);
		assert.equal(server!.child.exitCode, null, 'n8n is still running');
		const health = await n8nFetch(new URL('/healthz', server!.url));
		assert.equal(health.status, 200);
		summary.push(
			`  uninstall: ${seconds} s (DELETE /rest/community-packages); workflow ${workflows.simplified!} opens with missing node type ${missing.join(', ')}; n8n healthy; nodes/package.json still names ${PACKAGE_NAME}@${String(leftover)} (n8n leaves it)`,
		);
	});
});
