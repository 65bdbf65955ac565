// Ready for n8n 3.0, checked by n8n itself: its 3.0 migration report (Settings > Migration Report, the REST route
// `/rest/breaking-changes/report` with the v3 rules, read here through `POST .../report/refresh` so it is computed
// afresh) over a real n8n where every example workflow and workflows using every operation and every trigger event
// of this package are published. No finding may name our nodes, our credential or these workflows; of the instance
// findings, the one about this package is the unverified-packages default (docs/self-hosting.md "n8n 3.0" says what to set),
// and setting that variable clears it. Then n8n's SSRF protection (3.0 ships its block list, which covers
// loopback): our requests go through it as built-in nodes' do: blocked with an error naming the host when the
// sandbox's address is not allowed, working when it is, never a silent bypass.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';

import { activateWorkflow, restRequest, signIn, type RunningN8n } from '../../scripts/n8n/runtime.mjs';
import {
	EXAMPLES_DIR,
	exampleNode,
	N8nUserFolder,
	ollang,
	PACKAGE_NAME,
	pollTriggerWorkflow,
	readExample,
	SANDBOX_HOST,
	SandboxClient,
	stepsWorkflow,
	testCredentials,
	WITH_N8N_3_DEFAULTS,
	type N8nSettings,
	type WorkflowJson,
} from './harness.mts';
import { asWebhookWorkflow, everyOperationWorkflows } from './workflows.mts';

type Json = Record<string, unknown>;

interface RuleResult {
	ruleId: string;
	ruleTitle: string;
	nbAffectedWorkflows?: number;
	affectedWorkflows?: Array<{ id: string; name: string; issues: Json[] }>;
	instanceIssues?: Json[];
	recommendations?: Json[];
}

interface MigrationReport {
	report: { targetVersion: string; currentVersion: string; workflowResults: RuleResult[]; instanceResults: RuleResult[] };
}

/** The instance finding about this package: n8n 3.0 stops loading unverified community packages by default. */
const UNVERIFIED_PACKAGES_RULE = 'unverified-packages-v3';

/**
 * Instance findings about how this test runs n8n, which no package can change (read in n8n 2.40.7's rules/v3).
 * Anything else fails the test.
 */
const FINDINGS_OF_THE_TEST_MACHINE: Record<string, string> = {
	'workflow-import-url-removed-v3': 'reported on every instance: the editor drops "Import from URL"',
	'docker-only-deployment-v3': 'this test runs n8n from npm; 3.0 runs in Docker only (docker/ has the image and compose file)',
	'ssrf-default-blocked-ranges-v3': "only with SSRF protection on and n8n's built-in block list (the 3.0-defaults run), which grows in 3.0",
};

/**
 * The settings the report itself recommends for 3.0 that concern no package (task runner timeout, Compression node
 * limits at their 3.0 values), so what remains is about this package or the machine. N8N_UNVERIFIED_PACKAGES_ENABLED
 * is left unset, as on an instance that relies on the 2.x default.
 */
const PREPARED_FOR_3: N8nSettings = {
	N8N_RUNNERS_TASK_TIMEOUT: '60',
	N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(256 * 1024 * 1024),
	N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '1000',
	N8N_UNVERIFIED_PACKAGES_ENABLED: undefined,
};

const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
const CHAT_MODEL_NODE = 'Chat model';
const CHAT_MODEL_CREDENTIAL = { id: 'MigrationChatMdl', name: 'Chat model (migration report test)' };

/**
 * A workflow that is not ours and that one v3 rule does flag (an IF node, two outputs, with "Always Output Data"):
 * it shows the report reads the saved workflows, so its silence about ours means something.
 */
const CONTROL_RULE = 'always-output-data-multi-output-v3';
const CONTROL: WorkflowJson = {
	id: 'MigrationControl',
	name: 'Control: not ours (IF with Always Output Data)',
	nodes: [
		{ id: 'control-start', name: 'Start', type: MANUAL_TRIGGER, typeVersion: 1, position: [0, 0], parameters: {} },
		{ id: 'control-if', name: 'If', type: 'n8n-nodes-base.if', typeVersion: 2, position: [240, 0], parameters: {}, alwaysOutputData: true },
	],
	connections: { Start: { main: [[{ node: 'If', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
	pinData: {},
};

/** One read, run with SSRF protection on. */
const SSRF_WORKFLOW = stepsWorkflow('MigrationSsrf001', 'Migration: SSRF', [ollang('Get credit wallet', 'creditWallet', 'get')]);

const TRIGGER_EVENTS: Array<{ id: string; event: string; parameters: Json }> = [
	{ id: 'MigrationTrig001', event: 'orderDeliveryEvent', parameters: { eventTypes: ['ai_delivered', 'order_delivered'], watch: 'recentOrders', lookbackDays: 7 } },
	{ id: 'MigrationTrig002', event: 'qcEvaluationFinished', parameters: { watch: 'recentOrders', lookbackDays: 7 } },
	{ id: 'MigrationTrig003', event: 'importJobFinished', parameters: {} },
];

describe("n8n 3.0's migration report and SSRF protection", { timeout: 15 * 60_000 }, () => {
	let sandbox: SandboxClient;
	let n8n: N8nUserFolder;
	let server: RunningN8n | undefined;
	let cookie: string;
	/** Every workflow of this instance (all of them ours), and those of them published. */
	const saved: WorkflowJson[] = [];
	const published: WorkflowJson[] = [];

	before(async () => {
		sandbox = await SandboxClient.start();
		n8n = N8nUserFolder.create('migration');
		await n8n.install();

		const fixtures = await sandbox.fixtures();
		// A real import job for the Memory Import Job Finished trigger to watch.
		const memory = await sandbox.call<{ id: string }>('POST', '/integration/memories', { body: { title: 'Migration report memory' } });
		const job = await sandbox.call<{ jobId: string }>('POST', `/integration/memories/${memory.body.id}/items/import`, {
			body: { items: [{ sourceLanguage: 'en', targetLanguage: 'de', sourceText: 'Report', targetText: 'Bericht' }] },
		});
		assert.ok(job.status < 300 && job.body.jobId, `the import job: ${job.status} ${JSON.stringify(job.body)}`);
		const [translator] = await sandbox.admin<Array<{ id: string }>>('GET', 'translators');
		const orders = fixtures.orders;
		const everyOperation = everyOperationWorkflows(fixtures, {
			pendingOrderId: orders.byStatus.pending,
			rerunOrderId: orders.completedLevel0,
			qcOrderId: orders.completedLevel0,
			revisionOrderId: orders.completedLevel0,
			translatorId: translator.id,
		}).map((workflow) => asWebhookWorkflow(workflow, 'migration').workflow);
		const triggers = TRIGGER_EVENTS.map(({ id, event, parameters }) =>
			pollTriggerWorkflow(id, `Migration: ${event}`, 'Ollang Trigger', {
				event,
				...parameters,
				...(event === 'importJobFinished' ? { jobIds: `${memory.body.id}:${job.body.jobId}` } : {}),
			}),
		);
		const examples = readdirSync(EXAMPLES_DIR).filter((name) => name.endsWith('.json')).map(readExample);
		// The assistant's chat model gets a credential, as its user gives it one (nothing calls the model here).
		const assistant = examples.find((workflow) => workflow.nodes.some((node) => node.name === CHAT_MODEL_NODE))!;
		exampleNode(assistant, CHAT_MODEL_NODE).credentials = { openAiApi: CHAT_MODEL_CREDENTIAL };
		// One import of each kind: every n8n command starts n8n anew (tens of seconds on a busy machine).
		await n8n.importCredentials([
			...testCredentials(sandbox),
			{ ...CHAT_MODEL_CREDENTIAL, type: 'openAiApi', data: { apiKey: 'sk-migration-report-test', url: 'http://127.0.0.1:9/v1' } },
		]);
		saved.push(...examples, ...everyOperation, ...triggers, SSRF_WORKFLOW);
		await n8n.importWorkflows([...saved, CONTROL]);
		// Published once n8n runs (below); an example started only by hand (the memory import, create and wait) cannot be, and is saved
		// as a user imports it: the report reads every saved workflow.
		published.push(...saved.filter((workflow) => workflow.nodes.some((node) => /trigger|webhook/i.test(node.type) && node.type !== MANUAL_TRIGGER)));
	});

	after(async () => {
		await server?.stop();
		await sandbox?.stop();
		n8n?.remove();
	});

	const refreshReport = async (): Promise<MigrationReport['report']> =>
		(await restRequest<MigrationReport>(server!.url, cookie, 'POST', '/rest/breaking-changes/report/refresh?version=v3')).report;

	it('finds nothing in our nodes, credential or workflows; of the instance, only the unverified-packages default', async () => {
		server = await n8n.start(PREPARED_FOR_3);
		cookie = await signIn(server.url);

		// Published as the editor's Publish button does it (one CLI start per workflow would take minutes); n8n
		// activates each at once (an activation that fails, e.g. a trigger's first poll, fails the request).
		for (const workflow of published) {
			await activateWorkflow(server.url, cookie, workflow.id);
		}
		const inactive: string[] = [];
		for (const workflow of published) {
			const stored = await restRequest<{ active: boolean }>(server.url, cookie, 'GET', `/rest/workflows/${workflow.id}`);
			if (!stored.active) inactive.push(workflow.name);
		}
		assert.deepEqual(inactive, []);
		// All but those started only by hand: the memory import, create-and-wait and subtitles examples and the SSRF check's workflow.
		assert.deepEqual(saved.filter((workflow) => !published.includes(workflow)).map((workflow) => workflow.id).sort(), ['MigrationSsrf001', 'ollangCreateWait', 'ollangMemImport1', 'ollangSubsVideo1']);
		const nodeTypes = new Set(saved.flatMap((workflow) => workflow.nodes.map((node) => `${node.type}@${String(node.typeVersion)}`)));
		const operations = new Set(saved.flatMap((workflow) => workflow.nodes.filter((node) => node.type === `${PACKAGE_NAME}.ollang`).map((node) => `${String(node.parameters.resource)}.${String(node.parameters.operation)}`)));
		assert.ok(operations.size >= 53, `only ${operations.size} operations in the published workflows`);

		const report = await refreshReport();
		assert.equal(report.targetVersion, 'v3');
		const findings = [...report.workflowResults, ...report.instanceResults];
		const affected = report.workflowResults.filter((rule) => (rule.nbAffectedWorkflows ?? 0) > 0);
		const details = await Promise.all(affected.map(async (rule) => await restRequest<RuleResult>(server!.url, cookie, 'GET', `/rest/breaking-changes/report/${rule.ruleId}`)));
		const instanceRules = report.instanceResults.map((rule) => rule.ruleId).sort();
		console.log(
			`migration report v3 (n8n ${report.currentVersion}${WITH_N8N_3_DEFAULTS ? ', 3.0 defaults' : ''}) over ${saved.length} workflows, ${published.length} published ` +
				`(${operations.size} operations, ${nodeTypes.size} node type versions): ${report.workflowResults.length} workflow rules with results (${affected.map((rule) => rule.ruleId).join(', ') || 'none'}), ` +
				`${affected.length} with affected workflows; instance findings by rule: ${instanceRules.join(', ') || 'none'}`,
		);
		const ours = new Set(saved.map((workflow) => workflow.id));
		assert.deepEqual(
			details.flatMap((rule) =>
				(rule.affectedWorkflows ?? []).filter((workflow) => ours.has(workflow.id)).map((workflow) => `${rule.ruleId}: ${workflow.name}: ${JSON.stringify(workflow.issues)}`),
			),
			[],
		);
		// The control is found: the report did read the saved workflows.
		assert.deepEqual(
			details.map((rule) => ({ rule: rule.ruleId, workflows: (rule.affectedWorkflows ?? []).map((workflow) => workflow.id) })),
			[{ rule: CONTROL_RULE, workflows: [CONTROL.id] }],
		);
		// No finding's text names the package, its node types or its credential type (the control's names none).
		const mentions = findings.filter((rule) => /ollang/i.test(JSON.stringify(rule))).map((rule) => rule.ruleId);
		assert.deepEqual(mentions, []);

		assert.ok(instanceRules.includes(UNVERIFIED_PACKAGES_RULE), `the unverified-packages finding is missing: ${instanceRules.join(', ')}`);
		const unexpected = instanceRules.filter((rule) => rule !== UNVERIFIED_PACKAGES_RULE && !(rule in FINDINGS_OF_THE_TEST_MACHINE));
		assert.deepEqual(unexpected, []);
	});

	it('clears the unverified-packages finding once N8N_UNVERIFIED_PACKAGES_ENABLED=true is set, as the README says', async () => {
		await server?.stop();
		server = await n8n.start({ ...PREPARED_FOR_3, N8N_UNVERIFIED_PACKAGES_ENABLED: 'true' });
		cookie = await signIn(server.url);
		const report = await refreshReport();
		const instanceRules = report.instanceResults.map((rule) => rule.ruleId);
		assert.ok(!instanceRules.includes(UNVERIFIED_PACKAGES_RULE), `still reported: ${instanceRules.join(', ')}`);
		assert.deepEqual(instanceRules.filter((rule) => !(rule in FINDINGS_OF_THE_TEST_MACHINE)), []);
		await server.stop();
		server = undefined;
	});

	it("is subject to n8n's SSRF protection: the sandbox's address blocked with an error naming it, allowed when listed", async () => {
		const workflow = SSRF_WORKFLOW;
		const protection: N8nSettings = { N8N_SSRF_PROTECTION_ENABLED: 'true', N8N_SSRF_BLOCKED_IP_RANGES: undefined, N8N_SSRF_ALLOWED_HOSTNAMES: undefined };
		const walletRequests = async () => (await sandbox.requests()).filter((request) => request.path === '/integration/credits').length;

		await sandbox.clearRequests();
		const blocked = await n8n.executeFailing(workflow.id, { ...protection, N8N_SSRF_ALLOWED_IP_RANGES: undefined });
		const error = blocked.data.resultData.error as { message?: string; description?: string } | undefined;
		const text = `${error?.message ?? ''} | ${error?.description ?? ''}`;
		console.log(`SSRF protection on, the sandbox's address not allowed: ${text}`);
		assert.match(text, /SSRF protection blocked the request to http:\/\/127\.0\.0\.1:\d+/);
		assert.match(text, new RegExp(`The target ${SANDBOX_HOST.replace(/\./g, '\\.')} is not allowed`));
		assert.match(text, /N8N_SSRF_ALLOWED_IP_RANGES/);
		// Refused before any connection: nothing reached the API, no retry was attempted.
		assert.equal(await walletRequests(), 0);
		assert.doesNotMatch(text, /attempts/);

		const allowed = await n8n.execute(workflow.id, { ...protection, N8N_SSRF_ALLOWED_IP_RANGES: `${SANDBOX_HOST}/32` });
		assert.equal(await walletRequests(), 1);
		const [wallet] = allowed.data.resultData.runData['Get credit wallet'][0].data!.main[0]!;
		assert.deepEqual(wallet.json, await sandbox.get('/integration/credits'));
	});
});
