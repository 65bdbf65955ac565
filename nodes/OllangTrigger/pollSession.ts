import type { IDataObject, INode, IPollFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequestWithResponse, parseHttpDate } from '../Ollang/transport';

// How a failed request counts (the transport's one FailureKind): the trigger's polls read it.
export { failureKind } from '../Ollang/transport';

/** What one production poll found: the items to emit (the state changes are in the working copy). */
export interface PollOutcome {
	items: IDataObject[];
}

/** Errors leave the trigger as NodeApiError (the API's answer) or NodeOperationError (anything else). */
export function asNodeError(node: INode, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(node, error instanceof Error ? error : String(error));
}

/** What getPollBudgetMs() is taken to be where n8n does not provide it (older versions): below the 45 s default. */
const FALLBACK_BUDGET_MS = 30_000;
/** Share of the budget after which no new request starts; the rest covers requests in flight and their retries. */
const START_REQUESTS_WITHIN = 0.5;

/**
 * The limits of one poll: the time budget n8n gives it, and whether the service looked healthy so far.
 * After the first transient failure no new request starts; what is left waits for the next poll.
 */
export class PollSession {
	private readonly stopAt: number;

	readonly requestTimeoutMs: number;

	transientError: Error | undefined;

	/**
	 * The earliest service time (Date header) of the answers this poll read: when it began to look. What happened
	 * after it may have escaped this poll (an order created after its listing, while it still read details), so an
	 * edit starts what it newly watches from here, never from the poll's last answer.
	 */
	serviceTime: number | undefined;

	constructor(ctx: IPollFunctions) {
		const budget = typeof ctx.getPollBudgetMs === 'function' ? ctx.getPollBudgetMs() : FALLBACK_BUDGET_MS;
		const budgetMs = Number.isFinite(budget) && budget > 0 ? budget : FALLBACK_BUDGET_MS;
		this.stopAt = Date.now() + budgetMs * START_REQUESTS_WITHIN;
		this.requestTimeoutMs = Math.round(Math.min(30_000, Math.max(2_000, budgetMs / 4)));
	}

	/** Whether another request may start now. */
	get open(): boolean {
		return this.transientError === undefined && Date.now() < this.stopAt;
	}

	noteTransient(error: Error): void {
		this.transientError ??= error;
	}

	noteAnswer(headers: Record<string, string>): void {
		const time = parseHttpDate(headers.date);
		if (time !== undefined) this.serviceTime = Math.min(this.serviceTime ?? time, time);
	}
}


/**
 * The service's current time, from the Date header of a light request any valid key may make. Used once, when
 * the trigger sets its baseline: event and job times are stamped by the service's clock, so "now" must be too.
 */
export async function fetchServiceTime(this: IPollFunctions, session: PollSession): Promise<number> {
	const response = await apiRequestWithResponse.call(this, {
		method: 'GET',
		path: '/integration/custom-instructions/suggestions',
		retry: 'safe',
		timeoutMs: session.requestTimeoutMs,
	});
	session.noteAnswer(response.headers);
	// Without a Date header (a proxy that strips it), this machine's clock is the best estimate there is.
	return parseHttpDate(response.headers.date) ?? Date.now();
}

/**
 * Moves the state's `serviceTime` (the last poll, from which what an edit newly watches starts) to when this poll
 * began to look (its first answer). A poll that read nothing asks the service for its time, unless it stopped early.
 */
export async function recordPollTime(this: IPollFunctions, state: { serviceTime: number }, session: PollSession): Promise<void> {
	if (session.serviceTime === undefined && session.open) {
		// Only the edit's starting point depends on it: a failure keeps the previous time, the poll goes on.
		await fetchServiceTime.call(this, session).catch(() => undefined);
	}
	if (session.serviceTime !== undefined) state.serviceTime = Math.max(state.serviceTime, session.serviceTime);
}
