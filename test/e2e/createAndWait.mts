// What the files that run Order > Create and Wait in a real n8n use: the example, its variants, and how a finished
// run is read (createAndWait.test.mts: n8n start; queue.test.mts and start.test.mts: queue mode, the resumed
// execution on a worker).
import assert from 'node:assert/strict';

import { activateWorkflow, callProductionWebhook, createWorkflow, readExecutions, type N8nExecution } from '../../scripts/n8n/runtime.mjs';
import { exampleNode, jsonOf, readExample, waitFor, type SandboxClient, type WorkflowJson } from './harness.mts';
import { asWebhookWorkflow } from './workflows.mts';

type Json = Record<string, unknown>;

const EXAMPLE_FILE = 'order-create-and-wait.json';
export const WAIT_NODE = 'Create orders and wait';
/** The example's step after the wait: it runs once the node carries on. */
export const SAVE_NODE = 'Save translated files';
export const FINISHED_STATUSES = ['completed', 'delivered'];
/** A document order completes (AI delivered) 11 simulated minutes after it is created (sandbox/README.md). */
export const MINUTES_TO_COMPLETE = 11;
export const ENDED = ['success', 'error', 'crashed', 'canceled'];

export interface Delivery {
	orderId: string;
	target: string;
	status: string;
	repeatOf: number | null;
	attempts: Array<{ sentAt: string; statusCode: number | null; error: string | null }>;
}

export const example = readExample(EXAMPLE_FILE);
/**
 * The example with another id and name; `filesDir`: where its last step writes the files (the folder n8n's Read/Write
 * Files node may touch in that n8n; the example names `.n8n-files`, npm start's); `checkEveryMinutes`: Check Every.
 */
export function variant(id: string, label: string, { filesDir, checkEveryMinutes }: { filesDir?: string; checkEveryMinutes?: number } = {}): WorkflowJson {
	const workflow = structuredClone(example);
	workflow.id = id;
	workflow.name = `${example.name} (${label})`;
	if (checkEveryMinutes !== undefined) (exampleNode(workflow, WAIT_NODE).parameters.options as Json).checkEvery = checkEveryMinutes;
	if (filesDir !== undefined) writeFilesTo(workflow, filesDir);
	return workflow;
}

/** Points the example's Read/Write Files step (any workflow's) at `filesDir`. */
export function writeFilesTo(workflow: WorkflowJson, filesDir: string): WorkflowJson {
	for (const node of workflow.nodes.filter((candidate) => candidate.type === 'n8n-nodes-base.readWriteFile')) {
		node.parameters.fileName = String(node.parameters.fileName).replace('.n8n-files', filesDir);
	}
	return workflow;
}

/** The target languages of the example's Create and Wait: one order each. */
export const exampleLanguages = (): unknown[] => (exampleNode(example, WAIT_NODE).parameters.targetLanguages as { language: unknown[] }).language;

/** The orders a waiting run created: the node's output before the wait. */
export const createdBy = (waiting: N8nExecution): string[] => jsonOf(waiting, WAIT_NODE).map((json) => String(json.orderId));

/** What one finished run of the example shows: the node's last run is its output (the wait's end). */
export function finalOrders(execution: N8nExecution): Json[] {
	assert.equal(execution.status, 'success', `execution ${execution.id} ended ${execution.status}: ${JSON.stringify(execution.data.resultData.error ?? {})}`);
	const runs = execution.data.resultData.runData[WAIT_NODE];
	return (runs[runs.length - 1].data?.main[0] ?? []).map((item) => item.json as Json);
}

/** The first node after the wait started this long (ms) after the last callback the run's orders sent. */
export function callbackToResumeMs(execution: N8nExecution, deliveries: Delivery[], created: string[]): number | undefined {
	const sent = deliveries
		.filter((delivery) => created.includes(delivery.orderId))
		.flatMap((delivery) => delivery.attempts.filter((attempt) => attempt.statusCode !== null && attempt.statusCode < 300).map((attempt) => Date.parse(attempt.sentAt)));
	const nextRuns = execution.data.resultData.runData[SAVE_NODE] ?? [];
	const resumed = nextRuns[nextRuns.length - 1]?.startTime;
	return sent.length > 0 && resumed !== undefined ? resumed - Math.max(...sent) : undefined;
}

/** Where a queue-mode run of the example happens, and the output of n8n's processes (read as the run goes). */
export interface QueueRun {
	/** The main's REST API (directly or through the balancer). */
	restUrl: string;
	cookie: string;
	sandbox: SandboxClient;
	/** Where the start webhook is called: the main, a webhook process or the balancer. */
	startUrl: string;
	/** n8n's WEBHOOK_URL on the workers: the base of the resume URL the orders' callbacks go to. */
	webhookUrl: string;
	/** The folder n8n's Read/Write Files node may touch there (default: the example's own, `.n8n-files`). */
	filesDir?: string;
	/** Each worker's output lines and the main's. */
	workerLogs: () => string[][];
	mainLog: () => string[];
}

/**
 * Order > Create and Wait in queue mode, a production run: the example started by a webhook (`id` and `label` name
 * it), published on the main, started at `startUrl`, read until it waits, its orders completed (the sandbox's
 * clock), read until it ended (`first`: the first read of it). Asserts what every such run must show: the
 * callbacks went to the resume URL under `webhookUrl`, the execution that waited is the one that ended,
 * successfully, with every order it created confirmed finished, and it ran on the workers in two jobs (start and
 * resume), never on the main.
 */
export async function createAndWaitInQueueMode(run: QueueRun, id: string, label: string) {
	const { restUrl, cookie, sandbox, startUrl, webhookUrl } = run;
	const mainLines = run.mainLog().length;
	const { workflow, path: webhookPath } = asWebhookWorkflow(variant(id, label, { filesDir: run.filesDir }), 'queue');
	const { id: _id, active: _active, pinData: _pinData, ...toSave } = workflow;
	const saved = await createWorkflow(restUrl, cookie, toSave);
	await activateWorkflow(restUrl, cookie, saved.id);
	await sandbox.admin('PUT', 'callbacks/settings', { repeatProbability: 0 });
	const before = new Set((await readExecutions(restUrl, cookie, saved.id)).map((execution) => execution.id));
	const answer = await callProductionWebhook(startUrl, webhookPath, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
	assert.equal(answer.status, 200, answer.text);
	const settled = async (statuses: string[]) =>
		await waitFor(
			`the execution to be ${statuses.join(' or ')}`,
			async () => {
				const execution = (await readExecutions(restUrl, cookie, saved.id)).find((each) => !before.has(each.id));
				return execution && statuses.includes(execution.status) ? execution : undefined;
			},
			{ timeoutMs: 180_000, intervalMs: 500 },
		);
	// npm start's sandbox clock runs (60 times real time): its orders may complete, and the run end, before a read
	// sees it waiting. Its two jobs on the workers and its resume URL (below) show it waited all the same.
	const first = await settled(['waiting', ...ENDED]);
	if (first.status === 'waiting') await sandbox.advanceClock(MINUTES_TO_COMPLETE);
	const execution = first.status === 'waiting' ? await settled(ENDED) : first;
	const created = first.status === 'waiting' ? createdBy(first) : finalOrders(execution).map((order) => String(order.id));
	assert.equal(created.length, exampleLanguages().length, `orders created: ${created.join(', ')}`);
	const sent = (await sandbox.admin<{ deliveries: Delivery[] }>('GET', 'callbacks')).deliveries.filter((delivery) => created.includes(delivery.orderId));
	assert.ok(sent.length === created.length && sent.every((delivery) => delivery.target.startsWith(webhookUrl)), `callbacks sent to ${sent.map((delivery) => delivery.target).join(', ')}`);
	assert.equal(execution.id, first.id);
	assert.equal(execution.status, 'success', `execution ${execution.id} ended ${execution.status}`);
	const orders = finalOrders(execution);
	assert.deepEqual(orders.map((order) => order.id), created);
	assert.ok(orders.every((order) => FINISHED_STATUSES.includes(String(order.status)) && order.done === true), JSON.stringify(orders.map((order) => [order.status, order.done])));
	for (const delivery of sent) assert.ok(delivery.target.startsWith(`${webhookUrl}webhook-waiting/${execution.id}?`), delivery.target);
	// A worker logs each job it starts: the first part and the resumed part of the execution are two jobs.
	const starts = run.workerLogs().map((lines) => lines.filter((line) => line.includes(`Worker started execution ${execution.id} `)).length);
	assert.ok(starts.reduce((sum, count) => sum + count, 0) >= 2, `worker starts of execution ${execution.id}: ${starts.join(' / ')}`);
	assert.ok(!run.mainLog().slice(mainLines).some((line) => /started execution/i.test(line)), 'the main process ran an execution itself');
	// The callbacks' first answers (n8n holds or refuses those that reach it while the execution resumes).
	const codes = sent.map((delivery) => delivery.attempts[0].statusCode ?? `none (${delivery.attempts[0].error ?? ''})`);
	return { first, execution, created, sent, starts, codes, latency: callbackToResumeMs(execution, sent, created) };
}
