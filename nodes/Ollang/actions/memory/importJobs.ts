import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { requireObject } from '../common/responses';

/** Reads one memory import job (GET /integration/memories/import-jobs/{jobId}). */
export async function fetchImportJob(this: IExecuteFunctions, jobId: string, itemIndex: number): Promise<IDataObject> {
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/memories/import-jobs/${jobId}`,
		retry: 'safe',
		itemIndex,
	};
	return requireObject.call(this, request, await apiRequest.call(this, request), ['status']);
}

export interface JobToWatch {
	jobId: string;
	/** The input items whose units the job holds. */
	pairedItems: number[];
}

export interface WaitSettings {
	waitForVectorization: boolean;
	timeoutMs: number;
	pollIntervalMs: number;
}

/** How a watched job ended: its final state, or an error saying it failed or was still running at the deadline. */
export type WatchedJob = { job: IDataObject } | { error: NodeOperationError; stillRunning: boolean };

export function itemList(items: number[]): string {
	return items.length === 1 ? `item ${items[0]}` : `items ${items.join(', ')}`;
}

/** Settled when the job completed (and, if asked, its vectorization), or failed; undefined while still running. */
function settle(this: IExecuteFunctions, watched: JobToWatch, job: IDataObject, settings: WaitSettings): WatchedJob | undefined {
	const node = this.getNode();
	const itemIndex = watched.pairedItems[0];
	if (job.status === 'failed') {
		return {
			error: new NodeOperationError(
				node,
				`Memory import job ${watched.jobId} failed: ${String(job.error ?? 'the service gave no reason')}`,
				{
					itemIndex,
					description: `The units of ${itemList(watched.pairedItems)} were not imported by this job. Fix them and import them again.`,
				},
			),
			stillRunning: false,
		};
	}
	if (job.status !== 'completed') return undefined;
	if (!settings.waitForVectorization) return { job };
	if (job.vectorizationStatus === 'completed') return { job };
	if (job.vectorizationStatus === 'failed') {
		return {
			error: new NodeOperationError(
				node,
				`Vectorization of memory import job ${watched.jobId} failed: ${String(job.vectorizationError ?? 'the service gave no reason')}`,
				{
					itemIndex,
					description: `The units of ${itemList(watched.pairedItems)} were imported and are available to exact lookup, but not to semantic matching.`,
				},
			),
			stillRunning: false,
		};
	}
	return undefined;
}

/**
 * Polls every job until it completes or fails (and, if asked, until vectorization completes), within one
 * overall timeout. A job still running at the deadline is reported as an error; the others keep their results.
 */
export async function waitForJobs(
	this: IExecuteFunctions,
	jobs: JobToWatch[],
	settings: WaitSettings,
): Promise<Map<string, WatchedJob>> {
	const settled = new Map<string, WatchedJob>();
	const latest = new Map<string, IDataObject>();
	const deadline = Date.now() + settings.timeoutMs;
	let pending = [...jobs];
	for (;;) {
		const stillPending: JobToWatch[] = [];
		for (const watched of pending) {
			const job = await fetchImportJob.call(this, watched.jobId, watched.pairedItems[0]);
			latest.set(watched.jobId, job);
			const outcome = settle.call(this, watched, job, settings);
			if (outcome) settled.set(watched.jobId, outcome);
			else stillPending.push(watched);
		}
		pending = stillPending;
		if (pending.length === 0) return settled;
		if (Date.now() + settings.pollIntervalMs > deadline) break;
		await sleep(settings.pollIntervalMs);
	}
	const seconds = Math.round(settings.timeoutMs / 1000);
	for (const watched of pending) {
		const job = latest.get(watched.jobId) ?? {};
		const stage =
			job.status === 'completed'
				? `vectorization is ${String(job.vectorizationStatus ?? 'not started')}`
				: `the job is ${String(job.status)} (${String(job.progress ?? 0)}%)`;
		settled.set(watched.jobId, {
			error: new NodeOperationError(
				this.getNode(),
				`Memory import job ${watched.jobId} did not finish within ${seconds} s: ${stage}`,
				{
					itemIndex: watched.pairedItems[0],
					description: `The job goes on in Ollang. Check it later with Memory > Get Import Job (job ID ${watched.jobId}), or raise the timeout.`,
				},
			),
			stillRunning: true,
		});
	}
	return settled;
}
