import type { ImportJobRecord, MemoryItem, MemoryRecord } from '../types.cts';
import type { World } from '../world.cts';

/**
 * Memory import jobs (transitions are ours; the spec gives only the values):
 *   pending -(1 min)-> processing, progress rising each minute (1 step per 250 units)
 *           -> completed (units stored, itemsCount, completedAt; vectorizationStatus pending)
 *           or failed (error set, progress where it stopped, itemsCount and completedAt stay null)
 *   vectorization: pending -(1 min)-> processing, rising each minute (1 step per 500 units) -> completed or failed.
 * A unit whose text contains FAIL_IMPORT_MARKER fails its job; FAIL_VECTORIZATION_MARKER fails vectorization;
 * otherwise settings.jobFailureRate / vectorizationFailureRate decide, from the seeded RNG.
 */
export const FAIL_IMPORT_MARKER = '__FAIL_IMPORT__';
export const FAIL_VECTORIZATION_MARKER = '__FAIL_VECTORIZATION__';

const UNITS_PER_IMPORT_STEP = 250;
const UNITS_PER_VECTOR_STEP = 500;

export function memoryItemKey(item: Pick<MemoryItem, 'sourceLanguage' | 'targetLanguage' | 'sourceText'>): string {
	return `${item.sourceLanguage}\u0000${item.targetLanguage}\u0000${item.sourceText}`;
}

export function startImportJob(world: World, memory: MemoryRecord, items: MemoryItem[]): ImportJobRecord {
	const job: ImportJobRecord = {
		jobId: world.ids.next(world.clock.nowMillis()),
		memoryId: memory.id,
		status: 'pending',
		progress: 0,
		itemsCount: null,
		error: null,
		completedAt: null,
		vectorizationStatus: null,
		vectorizationProgress: null,
		vectorizationError: null,
		vectorizationCompletedAt: null,
		createdAt: world.clock.nowIso(),
		pendingItems: items,
	};
	world.state.importJobs.set(job.jobId, job);
	const markerRow = (marker: string) => items.findIndex((item) => item.sourceText.includes(marker) || item.targetText.includes(marker));
	const badRow = markerRow(FAIL_IMPORT_MARKER);
	const importFails = badRow >= 0 || world.rng.jobs.chance(world.settings.jobFailureRate);
	const vectorizationFails = markerRow(FAIL_VECTORIZATION_MARKER) >= 0 || world.rng.jobs.chance(world.settings.vectorizationFailureRate);

	ramp(world, {
		steps: Math.ceil(items.length / UNITS_PER_IMPORT_STEP),
		fails: importFails,
		// The memory may be deleted while the job runs: the job then fails.
		canContinue: () => {
			if (world.state.memories.has(job.memoryId)) return true;
			failImport(job, 'The translation memory was deleted before the import finished');
			return false;
		},
		onStart: () => {
			job.status = 'processing';
		},
		onProgress: (percent) => {
			job.progress = percent;
		},
		onFail: () => failImport(job, `Import failed at unit ${Math.max(1, badRow + 1)}: the translation unit could not be parsed`),
		onDone: () => {
			completeImport(world, job);
			ramp(world, {
				steps: Math.ceil(items.length / UNITS_PER_VECTOR_STEP),
				fails: vectorizationFails,
				canContinue: () => true,
				onStart: () => {
					job.vectorizationStatus = 'processing';
				},
				onProgress: (percent) => {
					job.vectorizationProgress = percent;
				},
				onFail: () => {
					job.vectorizationStatus = 'failed';
					job.vectorizationError = 'Vectorization failed: the embedding service rejected the batch';
				},
				onDone: () => {
					job.vectorizationStatus = 'completed';
					job.vectorizationCompletedAt = world.clock.nowIso();
				},
			});
		},
	});
	return job;
}

interface RampPlan {
	steps: number;
	/** Fails halfway through instead of finishing. */
	fails: boolean;
	canContinue: () => boolean;
	onStart: () => void;
	onProgress: (percent: number) => void;
	onFail: () => void;
	onDone: () => void;
}

/** One minute to start, then one step a minute, each raising the progress, until done (or failed halfway). */
function ramp(world: World, plan: RampPlan): void {
	const steps = Math.max(1, plan.steps);
	const failAt = Math.ceil(steps / 2);
	const step = (n: number) =>
		world.clock.scheduleIn(1, () => {
			if (!plan.canContinue()) return;
			if (plan.fails && n === failAt) {
				plan.onFail();
				return;
			}
			plan.onProgress(Math.round((100 * n) / steps));
			if (n < steps) step(n + 1);
			else plan.onDone();
		});
	world.clock.scheduleIn(1, () => {
		if (!plan.canContinue()) return;
		plan.onStart();
		step(1);
	});
}

function failImport(job: ImportJobRecord, message: string): void {
	job.status = 'failed';
	job.error = message;
	job.pendingItems = null;
}

function completeImport(world: World, job: ImportJobRecord): void {
	const memory = world.state.memories.get(job.memoryId) as MemoryRecord;
	const items = job.pendingItems ?? [];
	const now = world.clock.nowIso();
	for (const item of items) memory.items.set(memoryItemKey(item), { ...item, updatedAt: now });
	memory.updatedAt = now;
	job.status = 'completed';
	job.progress = 100;
	job.itemsCount = items.length;
	job.completedAt = now;
	job.pendingItems = null;
	job.vectorizationStatus = 'pending';
	job.vectorizationProgress = 0;
}

/** GET /integration/memories/import-jobs/{jobId}: the spec's fields only. */
export function importJobView(job: ImportJobRecord) {
	return {
		jobId: job.jobId,
		status: job.status,
		progress: job.progress,
		itemsCount: job.itemsCount,
		error: job.error,
		completedAt: job.completedAt,
		vectorizationStatus: job.vectorizationStatus,
		vectorizationProgress: job.vectorizationProgress,
		vectorizationError: job.vectorizationError,
		vectorizationCompletedAt: job.vectorizationCompletedAt,
	};
}
