import type { IDataObject } from 'n8n-workflow';

// Where an order stands and whether a QC evaluation has finished, as the API shows them: the one definition the
// Callback Trigger (confirming a completion), Create and Wait (ending its wait), the Ollang Trigger (QC evaluations)
// and Order > Download Files use.

/** Statuses at which an order's work is done; the API's completion callback fires at the first. */
const DONE_STATUSES: readonly string[] = ['completed', 'delivered'];
/** Statuses at which an order will not complete (both spellings occur in the sources). */
const CANCELLED_STATUSES: readonly string[] = ['cancelled', 'canceled'];

/**
 * - done: completed or delivered (and, when its Auto QC evaluation is awaited, that evaluation finished);
 * - cancelled: it will never complete;
 * - underWay: anything else (queued, in progress, a rerun, an evaluation still running).
 */
export type OrderProgress = 'done' | 'cancelled' | 'underWay';

function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An evaluation that has finished: the API gives it an id and says it is not loading (a missing flag is not loading). */
export function isFinishedEvaluation(evaluation: unknown): evaluation is IDataObject {
	return isRecord(evaluation) && typeof evaluation.id === 'string' && evaluation.id !== '' && evaluation.isLoading !== true;
}

/** The order's latest QC evaluation once it has finished, else undefined (none yet, or still running). */
export function finishedEvaluationOf(order: IDataObject): IDataObject | undefined {
	return isFinishedEvaluation(order.latestEvaluation) ? order.latestEvaluation : undefined;
}

/** Whether the order's latest QC evaluation is still running. */
export function isEvaluationRunning(order: IDataObject): boolean {
	return isRecord(order.latestEvaluation) && order.latestEvaluation.isLoading === true;
}

/** Whether the order's status is a done one (its files are final). */
export function isDoneStatus(status: unknown): boolean {
	return DONE_STATUSES.includes(String(status ?? ''));
}

/** Where the order stands; with `awaitQc`, a done order counts as done only once its latest evaluation finished. */
export function orderProgress(order: IDataObject, awaitQc = false): OrderProgress {
	const status = String(order.status ?? '');
	if (CANCELLED_STATUSES.includes(status)) return 'cancelled';
	if (!isDoneStatus(status)) return 'underWay';
	if (awaitQc && finishedEvaluationOf(order) === undefined) return 'underWay';
	return 'done';
}
