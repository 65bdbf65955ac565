// What both files that run Order > Create and Wait in a real n8n use: the example, its variants, and how a finished
// run is read (createAndWait.test.mts: n8n start; queue.test.mts: queue mode, the resumed execution on a worker).
import assert from 'node:assert/strict';

import type { N8nExecution } from '../../scripts/n8n/runtime.mjs';
import { exampleNode, jsonOf, readExample, type WorkflowJson } from './harness.mts';

type Json = Record<string, unknown>;

const EXAMPLE_FILE = 'order-create-and-wait.json';
export const WAIT_NODE = 'Create orders and wait';
export const LOOP_NODE = 'Check again?';
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
/** The example with another id and name, and Check Again Every in minutes (the lost-callback run uses 1). */
export function variant(id: string, label: string, checkAgainMinutes?: number): WorkflowJson {
	const workflow = structuredClone(example);
	workflow.id = id;
	workflow.name = `${example.name} (${label})`;
	if (checkAgainMinutes !== undefined) (exampleNode(workflow, WAIT_NODE).parameters.options as Json).checkAgainEvery = checkAgainMinutes;
	return workflow;
}

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
	const loopRuns = execution.data.resultData.runData[LOOP_NODE] ?? [];
	const resumed = loopRuns[loopRuns.length - 1]?.startTime;
	return sent.length > 0 && resumed !== undefined ? resumed - Math.max(...sent) : undefined;
}
