import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { allOrderTypes, orderStatuses } from '../Ollang/actions/order/values';
import { pathIdProblem } from '../Ollang/transport';

const STATUS_VALUES = orderStatuses.map((option) => String(option.value));
const TYPE_VALUES = allOrderTypes.map((option) => String(option.value));

export const DELIVERY_EVENT_TYPES = [
	'ai_delivered',
	'translator_delivered',
	'lsp_approved',
	'order_delivered',
] as const;
export type DeliveryEventType = (typeof DELIVERY_EVENT_TYPES)[number];

/** Which orders the Order Delivery Event watches. */
export interface OrderWatch {
	mode: 'recentOrders' | 'orderIds';
	/** Empty: any. One value is sent as a server-side filter; several are applied to the listed rows. */
	statuses: string[];
	types: string[];
	folderId?: string;
	/** recentOrders: orders created within this many days (service time). */
	lookbackDays: number;
	/** orderIds: the orders to follow (not part of the config key: ids are added and removed one by one). */
	orderIds: string[];
}

/** Events found by reading watched orders: entries of their delivery log, or their latest QC evaluation finishing. */
export type OrderEvent = 'orderDeliveryEvent' | 'qcEvaluationFinished';

export interface OrderEventConfig {
	event: OrderEvent;
	/** orderDeliveryEvent: the delivery event types to emit (empty for qcEvaluationFinished). */
	eventTypes: DeliveryEventType[];
	watch: OrderWatch;
	emitExisting: boolean;
	/**
	 * recentOrders: unchanged watched orders re-read per poll in rotation, a fixed number so a poll's cost does
	 * not grow with the account; each of N is re-read within ceil(N / recheckPerPoll) polls.
	 */
	recheckPerPoll: number;
	concurrency: number;
}

export interface WatchedJob {
	jobId: string;
	/** From a "memoryId:jobId" entry, else the Memory option. */
	memoryId?: string;
}

export interface ImportJobConfig {
	event: 'importJobFinished';
	jobs: WatchedJob[];
	includeFailed: boolean;
	waitForVectorization: boolean;
	emitExisting: boolean;
	concurrency: number;
}

export type TriggerConfig = OrderEventConfig | ImportJobConfig;

export const DEFAULT_LOOKBACK_DAYS = 14;
export const DEFAULT_RECHECK_PER_POLL = 10;
export const MAX_RECHECK_PER_POLL = 200;
export const DEFAULT_CONCURRENCY = 4;

/** A configuration error: names the field and the rule. Nothing was sent. */
function invalid(ctx: IPollFunctions, field: string, rule: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Invalid ${field}: ${rule}`, {
		description: 'Nothing was sent to Ollang. Correct the field and activate the workflow again.',
	});
}

function wholeNumber(ctx: IPollFunctions, value: unknown, field: string, min: number, max: number): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
		throw invalid(ctx, field, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
	}
	return number;
}

/** A list given as text (comma, semicolon, space or newline separated) or, through an expression, as an array. */
export function splitList(value: unknown): unknown[] {
	if (value === undefined || value === null) return [];
	if (Array.isArray(value)) return value.flatMap((entry) => (typeof entry === 'string' ? splitList(entry) : [entry]));
	if (typeof value === 'string') return value.split(/[\s,;]+/).filter((entry) => entry !== '');
	return [value];
}

function checkedId(ctx: IPollFunctions, value: unknown, field: string, position: number): string {
	const problem = pathIdProblem(value);
	if (problem !== undefined) {
		throw invalid(ctx, field, `entry ${position} (${JSON.stringify(value)}) ${problem}`);
	}
	return String(value).trim();
}

function uniqueIds(ctx: IPollFunctions, value: unknown, field: string): string[] {
	const ids = splitList(value).map((entry, index) => checkedId(ctx, entry, field, index + 1));
	return [...new Set(ids)];
}

function choices<T extends string>(ctx: IPollFunctions, value: unknown, field: string, allowed: readonly T[]): T[] {
	const list = splitList(value);
	for (const entry of list) {
		if (!allowed.includes(entry as T)) {
			throw invalid(ctx, field, `"${String(entry)}" is not one of ${allowed.join(', ')}`);
		}
	}
	return [...new Set(list as T[])].sort();
}

function readFolderId(ctx: IPollFunctions): string | undefined {
	const value = ctx.getNodeParameter('filters.folderId', '', { extractValue: true }) as unknown;
	if (value === undefined || value === null || value === '') return undefined;
	return checkedId(ctx, value, 'Folder', 1);
}

function readOrderEventConfig(ctx: IPollFunctions, options: IDataObject, event: OrderEvent): OrderEventConfig {
	let eventTypes: DeliveryEventType[] = [];
	if (event === 'orderDeliveryEvent') {
		eventTypes = choices(ctx, ctx.getNodeParameter('eventTypes', []), 'Event Types', DELIVERY_EVENT_TYPES);
		if (eventTypes.length === 0) throw invalid(ctx, 'Event Types', 'choose at least one event type');
	}
	const mode = ctx.getNodeParameter('watch', 'recentOrders') as string;
	if (mode !== 'recentOrders' && mode !== 'orderIds') {
		throw invalid(ctx, 'Watch', `"${mode}" is not one of recentOrders, orderIds`);
	}
	const watch: OrderWatch = { mode, statuses: [], types: [], lookbackDays: DEFAULT_LOOKBACK_DAYS, orderIds: [] };
	if (mode === 'orderIds') {
		watch.orderIds = uniqueIds(ctx, ctx.getNodeParameter('orderIds', ''), 'Order IDs');
	} else {
		const filters = ctx.getNodeParameter('filters', {}) as IDataObject;
		watch.statuses = choices(ctx, filters.statuses, 'Statuses', STATUS_VALUES);
		watch.types = choices(ctx, filters.types, 'Order Types', TYPE_VALUES);
		watch.folderId = readFolderId(ctx);
		watch.lookbackDays = wholeNumber(
			ctx,
			ctx.getNodeParameter('lookbackDays', DEFAULT_LOOKBACK_DAYS),
			'Look-Back Days',
			1,
			365,
		);
	}
	return {
		event,
		eventTypes,
		watch,
		emitExisting: options.emitExisting === true,
		recheckPerPoll: wholeNumber(
			ctx,
			options.recheckPerPoll ?? DEFAULT_RECHECK_PER_POLL,
			'Orders Rechecked per Poll',
			1,
			MAX_RECHECK_PER_POLL,
		),
		concurrency: wholeNumber(ctx, options.concurrency ?? DEFAULT_CONCURRENCY, 'Parallel Requests', 1, 10),
	};
}

function readImportJobConfig(ctx: IPollFunctions, options: IDataObject): ImportJobConfig {
	const defaultMemory = ctx.getNodeParameter('memoryId', '', { extractValue: true }) as unknown;
	const defaultMemoryId =
		defaultMemory === undefined || defaultMemory === null || defaultMemory === ''
			? undefined
			: checkedId(ctx, defaultMemory, 'Memory', 1);
	const jobs = new Map<string, WatchedJob>();
	splitList(ctx.getNodeParameter('jobIds', '')).forEach((entry, index) => {
		const text = typeof entry === 'string' ? entry : String(entry);
		const separator = text.indexOf(':');
		const memoryId =
			separator >= 0 ? checkedId(ctx, text.slice(0, separator), 'Import Job IDs', index + 1) : defaultMemoryId;
		const jobId = checkedId(ctx, separator >= 0 ? text.slice(separator + 1) : entry, 'Import Job IDs', index + 1);
		jobs.set(jobId, { jobId, memoryId });
	});
	return {
		event: 'importJobFinished',
		jobs: [...jobs.values()],
		includeFailed: ctx.getNodeParameter('includeFailed', false) === true,
		waitForVectorization: ctx.getNodeParameter('waitForVectorization', false) === true,
		emitExisting: options.emitExisting === true,
		concurrency: wholeNumber(ctx, options.concurrency ?? DEFAULT_CONCURRENCY, 'Parallel Requests', 1, 10),
	};
}

export function readConfig(ctx: IPollFunctions): TriggerConfig {
	const event = ctx.getNodeParameter('event', 'orderDeliveryEvent') as string;
	const options = ctx.getNodeParameter('options', {}) as IDataObject;
	if (event === 'orderDeliveryEvent' || event === 'qcEvaluationFinished')
		return readOrderEventConfig(ctx, options, event);
	if (event === 'importJobFinished') return readImportJobConfig(ctx, options);
	throw invalid(ctx, 'Event', `"${event}" is not one of orderDeliveryEvent, qcEvaluationFinished, importJobFinished`);
}

/**
 * What is watched, as a stable string: a change is an edit, which `edits.ts` applies to the stored cursors. Ids of
 * watched orders and jobs are left out (each id is followed on its own, from the poll before it was added), and so
 * are the cost settings.
 */
export function configKey(config: TriggerConfig): string {
	if (config.event === 'importJobFinished') {
		return JSON.stringify([config.event, config.includeFailed, config.waitForVectorization, config.emitExisting]);
	}
	const { watch } = config;
	return JSON.stringify([
		config.event,
		config.eventTypes,
		watch.mode,
		watch.statuses,
		watch.types,
		watch.folderId ?? null,
		watch.mode === 'recentOrders' ? watch.lookbackDays : null,
		config.emitExisting,
	]);
}

/** What a stored configKey() says about the event and, for Order Delivery Event, its types ([] when unreadable). */
export function keyEvent(key: string): { event: string; eventTypes: string[] } {
	let parsed: unknown;
	try {
		parsed = JSON.parse(key);
	} catch {
		return { event: '', eventTypes: [] };
	}
	if (!Array.isArray(parsed)) return { event: '', eventTypes: [] };
	const event = typeof parsed[0] === 'string' ? parsed[0] : '';
	const types = event === 'orderDeliveryEvent' && Array.isArray(parsed[1]) ? parsed[1] : [];
	return { event, eventTypes: types.filter((type): type is string => typeof type === 'string') };
}
