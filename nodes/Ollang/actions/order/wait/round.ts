import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../../common/outcomes';
import type { ReadOrder } from './confirm';
import { allSettled, readOrders } from './confirm';
import { nextCheckAt } from './limit';
import { runAgainWhenResumed } from './nextCheck';
import { limitReached, resultItems, waitingItems } from './outputs';
import type { WaitState } from './state';
import { clearWaitState, saveWaitState } from './state';

/**
 * Reads the orders and ends the wait or goes on waiting: every order done or cancelled, their results; Wait at Most
 * passed, the orders not done as an error; otherwise the execution waits until the next check (Check Every, or
 * the limit if sooner) or a callback, whichever comes first, and n8n runs the node again then (nextCheck.ts).
 * A read that fails (the API unreachable after the transport's retries) is tried again at the next check, until
 * the limit. `whileWaiting`: what the node shows while the execution waits (by default, the orders it waits for).
 */
export async function checkOrders(
	ctx: IExecuteFunctions,
	state: WaitState,
	now: number,
	whileWaiting?: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	let reads: ReadOrder[] | undefined;
	try {
		reads = await readOrders(ctx, state);
	} catch (error) {
		if (now >= state.deadline) {
			clearWaitState(ctx);
			throw asNodeError(ctx, error, 0);
		}
		ctx.logger.warn(`Ollang Create and Wait: the orders could not be read (${(error as Error).message}); reading them again at the next check`);
	}
	if (reads !== undefined && allSettled(reads)) {
		clearWaitState(ctx);
		return await resultItems(ctx, state, reads);
	}
	if (reads !== undefined && now >= state.deadline) {
		clearWaitState(ctx);
		return await limitReached(ctx, state, reads, now - state.startedAt);
	}
	const next: WaitState = { ...state, round: state.round + 1 };
	saveWaitState(ctx, next);
	runAgainWhenResumed(ctx);
	await ctx.putExecutionToWait(nextCheckAt(state.deadline, state.checkEvery, now));
	return whileWaiting ?? waitingItems(next);
}
