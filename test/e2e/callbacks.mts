// What the end-to-end tests of the Ollang Callback Trigger share (callbackTrigger.test.mts, queue.test.mts): a
// workflow of the trigger and a node after it, its production URL, orders that call it back, the sandbox's clock
// moved until every callback delivery has an outcome, and the completions each execution's trigger emitted.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';

import { ensureRuntime, readExecutionSummaries, readWorkflowStaticData, restRequest, type N8nExecution } from '../../scripts/n8n/runtime.mjs';
import { DEFAULT_SWEEP_MINUTES, sweepIntervalMs, sweepNodeId } from '../../nodes/OllangCallbackTrigger/sweep.ts';
import { recallBaseline } from '../../nodes/OllangTrigger/state.ts';
import type { CallbackDelivery } from '../../sandbox/callbacks.cts';
import { PACKAGE_NAME, SANDBOX_CREDENTIALS, triggerItems, waitFor, type SandboxClient, type WorkflowJson } from './harness.mts';

export type { CallbackDelivery };

export const CALLBACK_TRIGGER_NODE = `${PACKAGE_NAME}.ollangCallbackTrigger`;
/** The webhook path the node registers (its description); n8n serves it at /webhook/<webhookId>/<path>. */
export const CALLBACK_PATH = 'ollang-callback';
export const CALLBACK_TRIGGER = 'On Ollang callback';
export const RECEIVED = 'Received';

/** A published-style workflow: Ollang Callback Trigger (both events, the owner key) -> No Op "Received". */
export function callbackWorkflow(id: string, name: string, parameters: Record<string, unknown> = {}): { workflow: WorkflowJson; webhookId: string } {
	const webhookId = randomUUID();
	const workflow: WorkflowJson = {
		id,
		name,
		nodes: [
			{
				id: `${id}-trigger`,
				name: CALLBACK_TRIGGER,
				type: CALLBACK_TRIGGER_NODE,
				typeVersion: 1,
				position: [0, 0],
				webhookId,
				parameters: { events: ['orderCompleted', 'qcEvaluationCompleted'], ...parameters },
				credentials: { ollangApi: SANDBOX_CREDENTIALS.owner },
			},
			{ id: `${id}-noop`, name: RECEIVED, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { [CALLBACK_TRIGGER]: { main: [[{ node: RECEIVED, type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
		pinData: {},
	};
	return { workflow, webhookId };
}

/** The trigger's production URL in an n8n at `baseUrl`, with `?token=` when the node has a secret token. */
export function productionUrl(baseUrl: string, webhookId: string, token?: string): string {
	return `${baseUrl}/webhook/${webhookId}/${CALLBACK_PATH}${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`;
}

/** Resolves once n8n serves the published trigger's webhook (n8n 2.40 registers it shortly after publication). */
export async function untilRegistered(url: string): Promise<void> {
	await waitFor(
		`n8n to register ${url}`,
		async () => {
			const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'probe' });
			const text = await response.text();
			return !(response.status === 404 && text.includes('not registered'));
		},
		{ timeoutMs: 60_000, intervalMs: 250 },
	);
}

/**
 * Resolves once the published trigger's first sweep ran, the one that sets its baseline (completions after it are
 * the sweep's to find); at once when its sweep is off. n8n 2.40 answers a publication before it activates the
 * workflow, and registers the webhook before it runs the trigger: orders made as soon as the webhook answers could
 * complete before the baseline, where the sweep counts them as history. n8n saves the static data once the
 * activation ran, with the sweeps' baselines.
 */
export async function untilSweepBaseline(baseUrl: string, cookie: string, workflow: WorkflowJson): Promise<void> {
	const trigger = workflow.nodes.find((node) => node.type === CALLBACK_TRIGGER_NODE)!;
	const parameters = trigger.parameters as { events?: string[]; options?: { sweepMinutes?: number } };
	if (sweepIntervalMs(parameters.options?.sweepMinutes ?? DEFAULT_SWEEP_MINUTES) === 0) return;
	const sweepNodes = (parameters.events ?? []).map((event) => sweepNodeId(String(trigger.id), event));
	await waitFor(
		`the first sweep of ${workflow.name} (its baseline in n8n's static data)`,
		async () => {
			const global = ((await readWorkflowStaticData(baseUrl, cookie, workflow.id)) as { global?: Record<string, unknown> }).global ?? {};
			return sweepNodes.every((nodeId) => recallBaseline(global as never, nodeId) !== undefined);
		},
		{ timeoutMs: 120_000, intervalMs: 250 },
	);
}

/**
 * Document orders (level 0: the sandbox completes them 11 simulated minutes later) calling `callbackUrl` back, made
 * ten at a time (one per target language), all in the current simulated minute while the clock stands still.
 */
export async function createOrders(sandbox: SandboxClient, count: number, callbackUrl: string): Promise<string[]> {
	const fixtures = await sandbox.fixtures();
	const languages = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'ja', 'ko', 'pl', 'sv'];
	const orderIds: string[] = [];
	while (orderIds.length < count) {
		const answer = await sandbox.call<Array<{ orderId: string }>>('POST', '/integration/orders/create', {
			body: {
				orderType: 'document',
				level: 0,
				projectId: fixtures.projects.writable,
				targetLanguageConfigs: languages.slice(0, Math.min(languages.length, count - orderIds.length)).map((language) => ({ language })),
				callbackUrl,
			},
		});
		if (answer.status !== 201) throw new Error(`creating orders: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
		orderIds.push(...answer.body.map((created) => created.orderId));
	}
	return orderIds;
}

export async function deliveries(sandbox: SandboxClient): Promise<CallbackDelivery[]> {
	return (await sandbox.admin<{ deliveries: CallbackDelivery[] }>('GET', 'callbacks')).deliveries;
}

/** Resolves once no callback attempt is in flight (each POST has its answer, or its failure). */
export async function untilNoneSending(sandbox: SandboxClient): Promise<CallbackDelivery[]> {
	return await waitFor('callback attempts in flight to end', async () => {
		const all = await deliveries(sandbox);
		return all.every((delivery) => delivery.status !== 'sending') ? all : undefined;
	}, { timeoutMs: 60_000, intervalMs: 200 });
}

/**
 * Moves the sandbox's clock a minute at a time, each minute's attempts answered before the next, until `done` holds
 * for the deliveries (at least `minMinutes`, at most `maxMinutes`): retries come 1, 5 and 15 minutes after a failed
 * attempt and repeats up to 2 minutes after their original. Returns the deliveries as they then are.
 */
export async function runClockUntil(
	sandbox: SandboxClient,
	done: (all: CallbackDelivery[]) => boolean,
	{ minMinutes = 0, maxMinutes = 40 } = {},
): Promise<CallbackDelivery[]> {
	let all = await untilNoneSending(sandbox);
	for (let minute = 0; minute < minMinutes || !done(all); minute++) {
		if (minute >= maxMinutes) throw new Error(`callbacks not settled after ${maxMinutes} simulated minutes: ${JSON.stringify(all.map(({ id, orderId, status, attempts }) => ({ id, orderId, status, codes: attempts.map((a) => a.statusCode ?? a.error) })))}`);
		await sandbox.advanceClock(1);
		all = await untilNoneSending(sandbox);
	}
	return all;
}

/** Every delivery of these orders answered (2xx) or given up, and each original's repeat made (repeatProbability 1). */
export function settledWithRepeats(orderIds: string[]): (all: CallbackDelivery[]) => boolean {
	return (all) => {
		const ours = all.filter((delivery) => orderIds.includes(delivery.orderId));
		const originals = ours.filter((delivery) => delivery.repeatOf === null);
		return originals.length >= orderIds.length && ours.length === 2 * originals.length && ours.every((delivery) => delivery.status === 'delivered' || delivery.status === 'failed');
	};
}

/** An execution as n8n lists it, without its run data. */
export type ExecutionSummary = Omit<N8nExecution, 'data'>;

/** n8n's own flatted parse (how it stores and sends run data). */
async function flattedParse(): Promise<(text: string) => N8nExecution['data']> {
	return (createRequire(path.join((await ensureRuntime()).paths.n8nPrefix, 'node_modules', 'n8n', 'package.json'))('flatted') as { parse: (text: string) => N8nExecution['data'] }).parse;
}

/**
 * The workflow's executions once none is running any more (n8n writes each before and after it runs). Waits on n8n's
 * execution list (summaries), then reads each execution's data once: a burst's hundreds of executions are not read
 * again every second. `besides`: executions left out (read before), so `atLeast` counts new ones only. `quietMs`:
 * also until no execution was added for that long (a callback the sandbox gave up waiting for may still become an
 * execution after its retry was answered). `summaries`: where the list comes from (n8n's REST API by default).
 */
export async function finishedExecutions(
	baseUrl: string,
	cookie: string,
	workflowId: string,
	atLeast: number,
	{
		timeoutMs = 60_000,
		quietMs = 0,
		besides = new Set<string>(),
		summaries = async () => await readExecutionSummaries(baseUrl, cookie, workflowId, { limit: 2000 }),
	}: { timeoutMs?: number; quietMs?: number; besides?: Set<string>; summaries?: () => Promise<ExecutionSummary[]> } = {},
): Promise<N8nExecution[]> {
	const running = (status: string) => ['new', 'running', 'waiting'].includes(status);
	const parse = await flattedParse();
	let seen: ExecutionSummary[] = [];
	let unchangedSince = { count: -1, at: Date.now() };
	try {
		const finished = await waitFor(
			`${atLeast} finished executions of workflow ${workflowId}${besides.size > 0 ? ` besides ${besides.size} read before` : ''}`,
			async () => {
				seen = (await summaries()).filter((execution) => !besides.has(execution.id));
				if (seen.length !== unchangedSince.count) unchangedSince = { count: seen.length, at: Date.now() };
				return seen.length >= atLeast && !seen.some((execution) => running(execution.status)) && Date.now() - unchangedSince.at >= quietMs ? seen : undefined;
			},
			{ timeoutMs, intervalMs: 1000 },
		);
		const executions: N8nExecution[] = [];
		for (const summary of finished) {
			const detail = await restRequest<{ data: string }>(baseUrl, cookie, 'GET', `/rest/executions/${summary.id}`);
			executions.push({ ...summary, data: parse(detail.data) });
		}
		return executions;
	} catch (error) {
		const found = seen.map((execution) => `${execution.id} ${execution.mode} ${execution.status}`);
		throw new Error(`${(error as Error).message}; found ${seen.length}: ${found.join('; ')}`);
	}
}

/** What the trigger emitted, one entry per item of each execution (a repeat would show twice). */
export function emittedItems(executions: N8nExecution[], triggerName = CALLBACK_TRIGGER): Array<Record<string, unknown> & { executionId: string }> {
	return executions.flatMap((execution) => triggerItems(execution, triggerName).map((item) => ({ ...item, executionId: execution.id })));
}

/**
 * The executions with the run data n8n stored for those its REST API redacts: n8n 2.40 redacts an execution's items
 * for every user when, under a burst, the process that started it could not check the workflow's credentials in
 * time ("redacting run for everyone", docs/internals/push.md). `storedData(id)` reads the execution's data from n8n's
 * database (flatted, as n8n stores it). Returns the executions and how many were read from the database.
 */
export async function withStoredData(executions: N8nExecution[], storedData: (id: string) => string | undefined): Promise<{ executions: N8nExecution[]; fromDatabase: number }> {
	const parse = await flattedParse();
	let fromDatabase = 0;
	const read = executions.map((execution) => {
		if ((execution.data as { redactionInfo?: { isRedacted?: boolean } }).redactionInfo?.isRedacted !== true) return execution;
		const stored = storedData(execution.id);
		if (stored === undefined) throw new Error(`execution ${execution.id} is redacted by n8n and not in its database`);
		fromDatabase++;
		return { ...execution, data: parse(stored) };
	});
	return { executions: read, fromDatabase };
}
