import type { IDataObject, IExecuteFunctions, INodeProperties, NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest, settleConcurrent } from '../../transport';
import { forOperation, languageHint, memoryLocator } from '../common/fields';
import { asNodeError, parseEachItem } from '../common/outcomes';
import { checkNumberInRange, invalidField, readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { UnitField } from '../common/units';
import { batchUnits, readUnits, unitProperties } from '../common/units';
import type { BatchOutcome } from '../node.type';
import type { JobToWatch, WatchedJob } from './importJobs';
import { itemList, waitForJobs } from './importJobs';

/** The API takes at most this many units per import request. */
export const MAX_UNITS_PER_REQUEST = 1000;
/** Import requests (one job each) sent at the same time. */
export const IMPORT_REQUEST_CONCURRENCY = 4;

const unitFields: UnitField[] = [
	{
		key: 'sourceLanguage',
		displayName: 'Source Language',
		required: true,
		fallbackFor: true,
		description: `Language of the source texts. ${languageHint}.`,
	},
	{
		key: 'targetLanguage',
		displayName: 'Target Language',
		required: true,
		fallbackFor: true,
		description: `Language of the target texts. ${languageHint}.`,
	},
	{
		key: 'sourceText',
		displayName: 'Source Text',
		required: true,
		keepWhitespace: true,
		description: 'The original text',
	},
	{
		key: 'targetText',
		displayName: 'Target Text',
		required: true,
		keepWhitespace: true,
		description: 'Its translation',
	},
];

const properties: INodeProperties[] = [
	memoryLocator('The translation memory to add the units to. Items may name different memories.'),
	...unitProperties(
		unitFields,
		'[{ "sourceLanguage": "en", "targetLanguage": "de", "sourceText": "Save", "targetText": "Speichern" }]',
	),
	{
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: false,
		description:
			'Whether to wait until each import job has completed (units available to exact lookup) before the node finishes',
	},
	{
		displayName: 'Wait for Vectorization',
		name: 'waitForVectorization',
		type: 'boolean',
		default: false,
		displayOptions: { show: { waitForCompletion: [true] } },
		description: 'Whether to also wait until semantic matching is available for the imported units',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Poll Interval (Seconds)',
				name: 'pollIntervalSeconds',
				type: 'number',
				default: 5,
				typeOptions: { minValue: 0.5, numberPrecision: 1 },
				description: 'While waiting: how often to check the jobs',
			},
			{
				displayName: 'Timeout (Seconds)',
				name: 'timeoutSeconds',
				type: 'number',
				default: 600,
				typeOptions: { minValue: 1 },
				description: 'While waiting: the longest time to wait for all jobs together',
			},
			{
				displayName: 'Units per Request',
				name: 'unitsPerRequest',
				type: 'number',
				default: MAX_UNITS_PER_REQUEST,
				typeOptions: { minValue: 1, maxValue: MAX_UNITS_PER_REQUEST },
				description: 'Most units in one import request (one job per request); the API allows 1000',
			},
		],
	},
];

export const description = forOperation('memory', 'importItems', properties);

// Safe to repeat: the memory keeps one entry per source and target text, so an import sent again leaves the same memory.
export const kind = 'write' as const;

interface ItemUnits {
	memoryId: string;
	units: IDataObject[];
}

interface FailedRequest {
	memoryId: string;
	pairedItems: number[];
	error: NodeApiError | NodeOperationError;
}

interface QueuedJob extends JobToWatch {
	memoryId: string;
	unitsSent: number;
	answer: IDataObject;
}

function readSettings(ctx: IExecuteFunctions) {
	const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
	const unitsPerRequest = checkNumberInRange(ctx, options.unitsPerRequest ?? MAX_UNITS_PER_REQUEST, 'Units per Request', 0, {
		min: 1,
		max: MAX_UNITS_PER_REQUEST,
	});
	const timeoutSeconds = Number(options.timeoutSeconds ?? 600);
	if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) {
		throw invalidField(ctx, 0, 'Timeout (Seconds)', 'must be a number above 0');
	}
	const pollIntervalSeconds = Number(options.pollIntervalSeconds ?? 5);
	if (!Number.isFinite(pollIntervalSeconds) || pollIntervalSeconds < 0.5) {
		throw invalidField(ctx, 0, 'Poll Interval (Seconds)', 'must be at least 0.5');
	}
	const waitForCompletion = ctx.getNodeParameter('waitForCompletion', 0, false) as boolean;
	return {
		unitsPerRequest,
		waitForCompletion,
		waitForVectorization: waitForCompletion && (ctx.getNodeParameter('waitForVectorization', 0, false) as boolean),
		timeoutMs: timeoutSeconds * 1000,
		pollIntervalMs: pollIntervalSeconds * 1000,
	};
}

/**
 * Groups the units of all items by memory, sends them in requests of at most 1000 units (one import job
 * each) and returns one item per job; optionally waits for the jobs.
 */
export async function executeBatch(this: IExecuteFunctions, itemCount: number): Promise<BatchOutcome[]> {
	const settings = readSettings(this);
	const { parsed, failures } = await parseEachItem<ItemUnits>(this, itemCount, (itemIndex) => ({
		memoryId: readId(this, 'memoryId', 'Memory', itemIndex),
		units: readUnits(this, itemIndex, unitFields),
	}));

	const outcomes: BatchOutcome[] = [...failures];
	const continueOnFail = this.continueOnFail();
	const batches = batchUnits(parsed, (value) => value.memoryId, { units: settings.unitsPerRequest });
	// Each request queues an independent job: a few go at once. Without "continue on fail" none starts after a
	// failure; the ones already under way finish, so every job that was queued is known.
	const sent = await settleConcurrent(
		batches,
		IMPORT_REQUEST_CONCURRENCY,
		async ({ key: memoryId, units, pairedItems }): Promise<QueuedJob> => {
			const request: OllangRequest = {
				method: 'POST',
				path: apiPath`/integration/memories/${memoryId}/items/import`,
				body: { items: units },
				// Each request queues a job: never repeated where the service may have acted.
				retry: 'once',
				itemIndex: pairedItems[0],
			};
			const answer = requireObject.call(this, request, await apiRequest.call(this, request), ['jobId']);
			return { memoryId, jobId: String(answer.jobId), pairedItems, unitsSent: units.length, answer };
		},
		{ stopAfterFailure: !continueOnFail },
	);
	const queued: QueuedJob[] = [];
	const failed: FailedRequest[] = [];
	sent.forEach((outcome, index) => {
		if (outcome === undefined) return;
		const { key: memoryId, pairedItems } = batches[index];
		if (outcome.ok) queued.push(outcome.value);
		else failed.push({ memoryId, pairedItems, error: asNodeError(this, outcome.error, pairedItems[0]) });
	});
	const stopped = failed.length > 0 && !continueOnFail;
	if (stopped) describeWhatElseHappened(queued, failed);
	outcomes.push(...failed.map(({ pairedItems, error }) => ({ pairedItems, error })));

	// A node that stops on this failure needs no job states: waiting would only delay the error (up to the timeout).
	const watched = settings.waitForCompletion && !stopped ? await waitForJobs.call(this, queued, settings) : undefined;
	for (const job of queued) {
		const base: IDataObject = { memoryId: job.memoryId, unitsSent: job.unitsSent, ...job.answer };
		const state = watched?.get(job.jobId);
		if (state === undefined) {
			outcomes.push({ pairedItems: job.pairedItems, result: { json: base } });
		} else if ('error' in state) {
			outcomes.push({ pairedItems: job.pairedItems, error: state.error });
		} else {
			outcomes.push({ pairedItems: job.pairedItems, result: { json: { ...base, ...state.job } } });
		}
	}
	if (watched && !continueOnFail) nameOtherJobs(queued, watched);
	return outcomes;
}

/**
 * Without "continue on fail" the node stops on a failed request and shows only that error. The requests beside it
 * (a few go at once) may have queued jobs or failed too: each failure names them, so no unit is imported twice, or
 * left out, to find out.
 */
function describeWhatElseHappened(queued: QueuedJob[], failed: FailedRequest[]): void {
	const jobs = queued.map((job) => `${job.jobId} (memory ${job.memoryId})`);
	const queuedNote = jobs.length > 0 ? `Jobs already queued by this run: ${jobs.join(', ')}.` : '';
	const failureNotes = failed.map(({ memoryId, pairedItems, error }) => {
		const what = `memory ${memoryId} (${itemList(pairedItems)}): ${error.message}.`;
		return `Also failed in this run: ${what} ${error.description ?? ''}`.trim();
	});
	failed.forEach(({ error }, index) => {
		const others = failureNotes.filter((_, other) => other !== index);
		error.description = [error.description ?? '', queuedNote, ...others].filter((part) => part !== '').join(' ');
	});
}

/**
 * Without "continue on fail" the node fails with the error of the first job that did not complete, and shows no
 * other outcome: that error names what became of the other jobs, so none is imported again to find out.
 */
function nameOtherJobs(queued: QueuedJob[], watched: Map<string, WatchedJob>): void {
	const failureOf = (job: QueuedJob) => {
		const state = watched.get(job.jobId);
		return state !== undefined && 'error' in state ? state : undefined;
	};
	const first = queued.find((job) => failureOf(job) !== undefined);
	const thrown = first && failureOf(first);
	if (!thrown) return;
	const others = queued
		.filter((job) => job !== first)
		.map((job) => {
			const failed = failureOf(job);
			const stage = failed === undefined ? 'completed' : failed.stillRunning ? 'still running' : 'failed';
			return `${stage}: job ${job.jobId} (${itemList(job.pairedItems)})`;
		});
	if (others.length === 0) return;
	thrown.error.description = `${thrown.error.description ?? ''} Other jobs of this run: ${others.join('; ')}.`.trim();
}
