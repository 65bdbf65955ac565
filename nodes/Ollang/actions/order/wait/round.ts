import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { readOrders } from './confirm';
import { roundEnd } from './limit';
import { checkAgainOutput, readOutput } from './outputs';
import type { WaitState } from './state';
import { saveWaitState } from './state';

/**
 * Puts the execution to wait for one round: until the orders are confirmed (the webhook resumes it), Check Again
 * Every, or Limit Wait Time, whichever comes first. n8n runs none of the node's code when a round's time runs out
 * (n8n-core's handleWaitingState disables the waiting node, which hands on the items it was given): so the items it
 * was given become, before it waits, the 'checkAgain' items (outputs.ts). A request that resumes the execution
 * replaces them with the orders as the API shows them.
 */
export async function waitRound(ctx: IExecuteFunctions, state: WaitState, now: number): Promise<void> {
	saveWaitState(ctx, state);
	ctx.getExecuteData().data = { main: [checkAgainOutput(state.items)] };
	await ctx.putExecutionToWait(roundEnd(state.deadline, state.checkEvery, now));
}

/**
 * The node's own 'checkAgain' items came back into it: the orders are read. Every one done (or cancelled): the
 * orders, confirmed. Limit Wait Time passed: the orders as the API shows them, each saying whether it was done.
 * Otherwise another round of waiting.
 */
export async function checkAgain(ctx: IExecuteFunctions, state: WaitState, now: number): Promise<INodeExecutionData[]> {
	const reads = await readOrders(ctx, state);
	if (!reads.some((read) => read.progress === 'pending')) return await readOutput(ctx, state, reads, 'confirmed');
	if (state.deadline !== null && now >= state.deadline) return await readOutput(ctx, state, reads, 'timeLimit');
	await waitRound(ctx, state, now);
	return checkAgainOutput(state.items);
}
