import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { requireObject } from '../Ollang/actions/common/responses';
import type { OllangRequest } from '../Ollang/transport';
import { apiPath, apiRequest, apiRequestWithResponse, mapConcurrent } from '../Ollang/transport';
import { rotateAfter, runChecks } from './checks';
import type { ImportJobConfig, WatchedJob } from './config';
import type { PollOutcome, PollSession } from './pollSession';
import { asNodeError, failureKind, recordPollTime } from './pollSession';
import type { TriggerState } from './state';

/** Finished jobs kept in the state after their id was removed from the list. */
const REMEMBERED_REMOVED_JOBS = 100;

/** Jobs read by "Fetch Test Event". */
const SAMPLE_JOBS = 10;

/** How a job ended, as far as the trigger's settings are concerned. */
export type JobOutcome = 'completed' | 'failed' | 'vectorizationFailed';

interface Settled {
	outcome: JobOutcome;
	/** When it ended (service time, ms), or null when the job does not say (failed jobs carry no time). */
	endedAt: number | null;
}

function timeOrNull(value: unknown): number | null {
	const time = typeof value === 'string' ? Date.parse(value) : NaN;
	return Number.isNaN(time) ? null : time;
}

/** The job's end, or undefined while it (or, when waited for, its vectorization) is still running. */
export function settle(job: IDataObject, config: Pick<ImportJobConfig, 'waitForVectorization'>): Settled | undefined {
	if (job.status === 'failed') return { outcome: 'failed', endedAt: null };
	if (job.status !== 'completed') return undefined;
	if (!config.waitForVectorization) return { outcome: 'completed', endedAt: timeOrNull(job.completedAt) };
	if (job.vectorizationStatus === 'completed') {
		return { outcome: 'completed', endedAt: timeOrNull(job.vectorizationCompletedAt) };
	}
	if (job.vectorizationStatus === 'failed') return { outcome: 'vectorizationFailed', endedAt: null };
	return undefined;
}

function wanted(outcome: JobOutcome, config: ImportJobConfig): boolean {
	return outcome === 'completed' || config.includeFailed;
}

function jobItem(
	job: IDataObject,
	outcome: JobOutcome,
	memoryId: string | undefined,
	memory: IDataObject | null,
): IDataObject {
	return { ...job, outcome, memoryId: memoryId ?? null, memory };
}

async function fetchJob(this: IPollFunctions, jobId: string, session: PollSession): Promise<IDataObject> {
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/memories/import-jobs/${jobId}`,
		retry: 'safe',
		timeoutMs: session.requestTimeoutMs,
	};
	const response = await apiRequestWithResponse.call(this, request);
	session.noteAnswer(response.headers);
	return requireObject.call(this, request, response.body, ['status']);
}

/** The job's memory, or null when it is gone (deleted after the import). */
async function fetchMemory(this: IPollFunctions, memoryId: string, session: PollSession): Promise<IDataObject | null> {
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/memories/${memoryId}`,
		retry: 'safe',
		timeoutMs: session.requestTimeoutMs,
	};
	try {
		return requireObject.call(this, request, await apiRequest.call(this, request), ['id']);
	} catch (error) {
		if (failureKind(error) === 'notFound') return null;
		throw asNodeError(this.getNode(), error);
	}
}

/**
 * One production poll for finished import jobs. The API cannot list jobs: each given job is read until it
 * ends, then remembered as finished (and forgotten once it leaves the list). A job is new when it ends after the
 * baseline, or, for a job added to the list later, after the last poll before it was added.
 */
export async function pollImportJobs(
	this: IPollFunctions,
	config: ImportJobConfig,
	state: TriggerState,
	session: PollSession,
	isBaselinePoll: boolean,
): Promise<PollOutcome> {
	const given = new Set(config.jobs.map((job) => job.jobId));
	// Finished jobs no longer given are remembered a while (the most recent ones), so one given again is not
	// emitted again: a failure carries no time that would tell.
	let removed = [...state.finishedJobs].filter((jobId) => !given.has(jobId)).length;
	for (const jobId of state.finishedJobs) {
		if (removed <= REMEMBERED_REMOVED_JOBS) break;
		if (!given.has(jobId)) {
			state.finishedJobs.delete(jobId);
			removed--;
		}
	}
	const addedSince = isBaselinePoll ? state.since : state.serviceTime;
	for (const jobId of state.jobsSince.keys()) {
		if (!given.has(jobId) || state.finishedJobs.has(jobId)) state.jobsSince.delete(jobId);
	}
	for (const jobId of given) {
		if (!state.finishedJobs.has(jobId) && !state.jobsSince.has(jobId)) state.jobsSince.set(jobId, addedSince);
	}
	const running = config.jobs
		.filter((job) => !state.finishedJobs.has(job.jobId))
		.map((job) => ({ id: job.jobId, job }));
	const ordered = rotateAfter(running, state.sweepAfter);
	const items: IDataObject[] = [];
	const missing: string[] = [];

	const check = async (watched: WatchedJob): Promise<void> => {
		const job = await fetchJob.call(this, watched.jobId, session);
		const settled = settle(job, config);
		if (settled === undefined) return;
		// A job that ended before its `since` is history; one whose end has no time (a failure) is new unless the
		// baseline was set by this very poll (it was over before the trigger looked).
		const since = state.jobsSince.get(watched.jobId) ?? state.since;
		const isNew = settled.endedAt !== null ? settled.endedAt > since : !(isBaselinePoll && state.since > 0);
		if (isNew && wanted(settled.outcome, config)) {
			const memory = watched.memoryId === undefined ? null : await fetchMemory.call(this, watched.memoryId, session);
			items.push(jobItem(job, settled.outcome, watched.memoryId, memory));
		}
		state.finishedJobs.add(watched.jobId);
		state.jobsSince.delete(watched.jobId);
	};

	const started = await runChecks(session, ordered, config.concurrency, async ({ job }) => {
		try {
			await check(job);
		} catch (error) {
			const kind = failureKind(error);
			if (kind === 'transient') session.noteTransient(error as Error);
			else if (kind === 'notFound' || kind === 'forbidden' || kind === 'rejected') {
				missing.push(`${job.jobId} (${(error as Error).message})`);
			} else throw asNodeError(this.getNode(), error);
		}
	});
	if (missing.length > 0) {
		throw new NodeOperationError(this.getNode(), `Invalid Import Job IDs: ${missing.join('; ')}`, {
			description:
				'Remove these IDs from "Import Job IDs" (or fix their memory) or check that the API key can read them. The other jobs keep their place and nothing was emitted.',
		});
	}
	const checked = ordered.filter((entry) => started.has(entry.id));
	if (checked.length > 0) state.sweepAfter = checked[checked.length - 1].id;
	await recordPollTime.call(this, state, session);
	return { items };
}

/** "Fetch Test Event": the watched job that ended last (of the wanted outcomes). Changes nothing. */
export async function sampleImportJob(
	this: IPollFunctions,
	config: ImportJobConfig,
	session: PollSession,
): Promise<IDataObject> {
	if (config.jobs.length === 0) {
		throw new NodeOperationError(this.getNode(), 'Invalid Import Job IDs: give at least one job ID to watch', {
			description:
				'The API cannot list import jobs. Put the job IDs that Memory > Import Items returned (or an expression that gives them) in "Import Job IDs".',
		});
	}
	const watched = config.jobs.slice(0, SAMPLE_JOBS);
	const jobs = await mapConcurrent(watched, config.concurrency, async (entry) => ({
		entry,
		job: await fetchJob.call(this, entry.jobId, session),
	}));
	let latest: { entry: WatchedJob; job: IDataObject; settled: Settled } | undefined;
	for (const { entry, job } of jobs) {
		const settled = settle(job, config);
		if (settled === undefined || !wanted(settled.outcome, config)) continue;
		if (latest === undefined || (settled.endedAt ?? 0) >= (latest.settled.endedAt ?? 0))
			latest = { entry, job, settled };
	}
	if (latest === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`None of the ${watched.length} watched import jobs has finished${config.includeFailed ? '' : ' successfully'} yet`,
			{
				description:
					'Fetch Test Event shows a finished job so its fields can be mapped. Try again when one has finished.',
			},
		);
	}
	const memory =
		latest.entry.memoryId === undefined ? null : await fetchMemory.call(this, latest.entry.memoryId, session);
	return jobItem(latest.job, latest.settled.outcome, latest.entry.memoryId, memory);
}
