import type {
	IAdditionalCredentialOptions,
	IAllExecuteFunctions,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	IPollFunctions,
	IRun,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { OrderEvent } from '../OllangTrigger/config';
import { DEFAULT_LOOKBACK_DAYS } from '../OllangTrigger/config';
import { pollTrigger } from '../OllangTrigger/poll';
import { markForDetailRead } from '../OllangTrigger/state';
import type { OrderRead } from '../shared/readOrder';
import { readOrder } from '../shared/readOrder';
import type { SharedReads } from '../shared/sharedReads';
import { sharedRead } from '../shared/sharedReads';
import { SWEEP_HANDOVER_WAIT_MS } from '../shared/waits';
import type { Arrival } from './arrival';
import { arrivalItem } from './arrival';
import { COMPLETING_EVENTS, CONFIRMING } from './confirm';
import { readsOf, takeNotedForSweep, triggerScope } from './processed';
import { handOver, ranThrough, refused, settle, UNSETTLED_AT_MOST } from './unsettled';

/**
 * The safety net under push. Callbacks are the fast path; the API gives up on a delivery after its retries (a burst
 * n8n could not answer, a deploy, n8n down longer than the API retries), and such a completion would never start a
 * workflow. So the trigger also reads the API on a schedule, as the Ollang Trigger polls (the same code: its order
 * delivery events and QC evaluations, its cursors, its restarts): every completing delivery event (AI delivery, LSP
 * approval) and every finished QC evaluation of the orders created within the look-back. Each is emitted under the
 * same key a callback's completion has (order:<id>:<occurredAt>, qc:<evalId>), so whichever of push and sweep comes
 * first emits it and the other is dropped by the execution's claim (emitOnce.ts).
 *
 * n8n runs a node's trigger() beside its webhooks when the workflow is published, on the leader main only in queue
 * mode; its static data (the cursors) is saved when it emits and when the workflow is activated. The first sweep runs
 * at activation: after n8n was down, it emits what completed meanwhile; on a first activation it sets the baseline.
 */

export const DEFAULT_SWEEP_MINUTES = 5;

const LOG = 'Ollang Callback Trigger:';

/** How often a sleeping sweep loop checks that the workflow was not deactivated meanwhile. */
const STOP_CHECK_MS = 1_000;

/** The sweep's period in ms from the node's Sweep Every (Minutes), 0 when it is off. */
export function sweepIntervalMs(minutes: unknown): number {
	const value = typeof minutes === 'string' && minutes.trim() !== '' ? Number(minutes) : minutes;
	return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.max(1_000, Math.round(value * 60_000)) : 0;
}

/**
 * A sweep is not one of n8n's polls (it runs on its own timer, beside the webhook), so n8n's poll budget does not
 * bound it: its requests start within half of this, a few at a time, so that a burst the API gave up on (hundreds
 * of orders to read) is caught up in one sweep.
 */
const SWEEP_BUDGET_MS = 120_000;
const SWEEP_CONCURRENCY = 8;

type Helpers = ITriggerFunctions['helpers'];

/** How long an order the sweep read serves its execution: the sweep waits a minute for n8n to start it. */
const SWEPT_KEEP_MS = 5 * 60 * 1000;

/**
 * One sweep's reads, shared by its events (nodes/shared/sharedReads.ts, for the sweep's lifetime): the delivery-event
 * and QC sweeps list the same orders and read the same ones, so each GET is sent once per sweep and its answer read
 * by both. A read that failed or was refused is sent again by the next event that asks.
 */
function sharedReads(helpers: Helpers): Helpers {
	const answers: SharedReads = new Map();
	const shared = Object.create(helpers) as Helpers;
	shared.httpRequestWithAuthentication = async function (this: IAllExecuteFunctions, type: string, options: IHttpRequestOptions, extra?: IAdditionalCredentialOptions) {
		const send = async (): Promise<unknown> => await helpers.httpRequestWithAuthentication.call(this, type, options, extra);
		if ((options.method ?? 'GET') !== 'GET' || options.body !== undefined) return await send();
		return await sharedRead(answers, options.url, send, { keepFor: (raw) => (Math.floor(Number((raw as IDataObject).statusCode) / 100) === 2 ? Infinity : 0) });
	};
	return shared;
}

/** Which of the Ollang Trigger's order events finds each callback event. */
const SWEPT: Record<string, OrderEvent> = { orderCompleted: 'orderDeliveryEvent', qcEvaluationCompleted: 'qcEvaluationFinished' };

/** The node id one event's sweep polls under: it salts the account digest and names the baseline (state.ts). */
export function sweepNodeId(nodeId: string, event: string): string {
	return `${nodeId}:sweep:${event}`;
}

/**
 * The Ollang Trigger's poll, run for one callback event inside this node: its parameters fixed (completing delivery
 * events or QC evaluations of recent orders), its state in a part of this node's static data of its own, and its
 * node id set apart (the id salts its account digest and names its baseline), so the two events never share cursors.
 */
function pollContext(ctx: ITriggerFunctions, event: string, lookbackDays: number, helpers: Helpers): IPollFunctions {
	const node = ctx.getNode();
	const sweepNode: INode = { ...node, id: sweepNodeId(node.id, event) };
	const parameters: IDataObject = {
		event: SWEPT[event],
		eventTypes: [...COMPLETING_EVENTS],
		watch: 'recentOrders',
		filters: {},
		'filters.folderId': '',
		lookbackDays,
		options: { concurrency: SWEEP_CONCURRENCY },
	};
	const nodeData = ctx.getWorkflowStaticData('node');
	const stateKey = `sweep:${event}`;
	const context = {
		getNode: () => sweepNode,
		getNodeParameter: (name: string, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
		getWorkflowStaticData: (type: string) => {
			if (type !== 'node') return ctx.getWorkflowStaticData(type);
			if (nodeData[stateKey] === undefined || typeof nodeData[stateKey] !== 'object') nodeData[stateKey] = {};
			return nodeData[stateKey] as IDataObject;
		},
		getMode: () => ctx.getMode(),
		getWorkflow: () => ctx.getWorkflow(),
		getCredentials: async (type: string) => await ctx.getCredentials(type),
		getPollBudgetMs: () => SWEEP_BUDGET_MS,
		logger: ctx.logger,
		helpers,
	};
	return context as unknown as IPollFunctions;
}

/**
 * An AI delivery completes an AI-only order (level 0); a reviewed order (level 1) goes on to its translator and is
 * completed by the LSP's approval, so its AI delivery is no completion (the API sends no callback for it either).
 */
function completesOrder(json: IDataObject): boolean {
	const level = Number((json.order as IDataObject | undefined)?.level ?? 0);
	return json.type !== 'ai_delivered' || !(Number.isFinite(level) && level >= 1);
}

/** A completion the poll found, as the arrival the execution confirms and claims (undefined: not a completion). */
function sweptArrival(event: string, json: IDataObject): Arrival | undefined {
	const orderId = String(json.orderId);
	const order = json.order as IDataObject;
	if (event === 'orderCompleted') {
		if (!completesOrder(json)) return undefined;
		const completedAt = String(json.occurredAt);
		const deliveryEvent = { type: json.type, occurredAt: json.occurredAt, actorType: json.actorType, actorId: json.actorId };
		return { arrivedBy: 'sweep', callback: { event: 'orderCompleted', orderId, completedAt }, completionKey: `order:${orderId}:${completedAt}`, found: { order, deliveryEvent } };
	}
	const evalId = String(json.evaluationId);
	const evaluation = { id: evalId, createdAt: json.requestedAt, textSummary: json.textSummary, scores: json.scores, segmentEvals: json.segmentEvals };
	return { arrivedBy: 'sweep', callback: { event: 'qcEvaluationCompleted', orderId, evalId }, completionKey: `qc:${evalId}`, found: { order, evaluation } };
}

/** One sweep of every watched event: the arrivals it found (a failed event is logged; its cursors stay for the next). */
export async function sweepOnce(this: ITriggerFunctions): Promise<IDataObject[]> {
	const events = (this.getNodeParameter('events', []) as string[]).filter((event) => event in SWEPT);
	const lookbackDays = Number(this.getNodeParameter('options.sweepLookbackDays', DEFAULT_LOOKBACK_DAYS));
	const found: IDataObject[] = [];
	const scope = triggerScope(this);
	const noted = takeNotedForSweep(scope);
	const helpers = sharedReads(this.helpers);
	const foundOrders = new Set<string>();
	for (const event of events) {
		let polled: INodeExecutionData[][] | null;
		try {
			const context = pollContext(this, event, lookbackDays, helpers);
			markForDetailRead(context.getWorkflowStaticData('node'), noted);
			polled = await pollTrigger.call(context);
		} catch (error) {
			this.logger.warn(`${LOG} the sweep for ${event} failed (${(error as Error).message}); it goes on from where it was at the next sweep`);
			continue;
		} finally {
			// n8n saves static data it saw changed: the poll wrote below this node's own object, so say so at its level.
			const nodeData = this.getWorkflowStaticData('node');
			nodeData[`sweep:${event}`] = { ...(nodeData[`sweep:${event}`] as IDataObject) };
		}
		for (const item of polled?.[0] ?? []) {
			const arrival = sweptArrival(event, item.json);
			if (arrival === undefined) continue;
			found.push(arrivalItem(arrival));
			foundOrders.add(arrival.callback.orderId);
		}
	}
	// The full orders, as the poll just read them (from the shared reads, not sent again), kept for the execution.
	const context = pollContext(this, events[0] ?? 'orderCompleted', lookbackDays, helpers);
	const keep = { freshEveryMs: 0, keepFor: (read: OrderRead) => ('order' in read ? SWEPT_KEEP_MS : 0) };
	await Promise.all([...foundOrders].map(async (orderId) => await sharedRead(readsOf(scope), `sweep:${orderId}`, async () => await readOrder(context, orderId, CONFIRMING), keep).catch(() => undefined)));
	return found;
}

/** Sleeps until `until`, or until `stopped()`. */
async function pause(until: number, stopped: () => boolean): Promise<void> {
	while (!stopped() && Date.now() < until) await sleep(Math.min(STOP_CHECK_MS, until - Date.now()));
}

/**
 * Hands what a sweep found to n8n as one execution, with every completion an earlier sweep handed over that no
 * execution has been seen to run through (unsettled.ts), and waits a while for n8n to end it (a later sweep hands
 * over again what it did not). Resolves with the items handed over.
 */
async function emitFound(ctx: ITriggerFunctions, found: IDataObject[], stopped: () => boolean): Promise<IDataObject[]> {
	if (stopped()) return [];
	const { items, keys, givenUp } = handOver(ctx.getWorkflowStaticData('node'), found, Date.now(), SWEEP_HANDOVER_WAIT_MS);
	if (givenUp > 0) ctx.logger.warn(`${LOG} ${givenUp} completions n8n never ran through were given up (more than ${UNSETTLED_AT_MOST} waited)`);
	if (items.length === 0) return [];
	const done = ctx.helpers.createDeferredPromise<IRun>();
	let ended = false;
	done.promise.then(
		(run) => {
			ended = true;
			if (ranThrough(run)) settle(ctx.getWorkflowStaticData('node'), keys);
			else ctx.logger.warn(`${LOG} the execution of ${items.length} completions the sweep handed over did not run through; the next sweep hands them over again`);
		},
		(error: Error) => {
			ended = true;
			refused(ctx.getWorkflowStaticData('node'), keys);
			ctx.logger.warn(`${LOG} n8n did not start the execution of ${items.length} completions the sweep handed over (${error.message}); the next sweep hands them over again`);
		},
	);
	ctx.emit([items.map((json) => ({ json }))], undefined, done);
	const until = Date.now() + SWEEP_HANDOVER_WAIT_MS;
	while (!ended && !stopped() && Date.now() < until) await sleep(Math.min(STOP_CHECK_MS / 10, until - Date.now()));
	return items;
}

/** One sweep now, and its hand-over to n8n (as the sweep's loop runs each after the first): the items handed over. */
export async function sweepAndEmit(this: ITriggerFunctions, stopped: () => boolean = () => false): Promise<IDataObject[]> {
	return await emitFound(this, await sweepOnce.call(this), stopped);
}

/**
 * Sweeps while the workflow is published: once at activation (awaited, so n8n saves the baseline or the cursors
 * with the activation), then every Sweep Every (Minutes), each emitting what it found in one execution.
 */
export async function startSweeps(this: ITriggerFunctions): Promise<ITriggerResponse> {
	const intervalMs = sweepIntervalMs(this.getNodeParameter('options.sweepMinutes', DEFAULT_SWEEP_MINUTES));
	if (this.getMode() === 'manual' || intervalMs === 0) return {};
	let stopped = false;
	const isStopped = () => stopped;
	const first = await sweepOnce.call(this);
	// Any error of one sweep is logged and the next sweep runs: the loop ends only when the workflow is unpublished.
	const survived = async (sweep: () => Promise<unknown>) => {
		try {
			await sweep();
		} catch (error) {
			this.logger.error(`${LOG} a sweep failed (${error instanceof Error ? error.message : String(error)}); the next sweep runs as planned`);
		}
	};
	void (async () => {
		// After trigger() returned: n8n has the activation, and its executions, in hand.
		await sleep(1);
		await survived(async () => await emitFound(this, first, isStopped));
		while (!stopped) {
			await pause(Date.now() + intervalMs, isStopped);
			if (stopped) break;
			await survived(async () => await sweepAndEmit.call(this, isStopped));
		}
	})();
	return {
		closeFunction: async () => {
			stopped = true;
		},
	};
}
