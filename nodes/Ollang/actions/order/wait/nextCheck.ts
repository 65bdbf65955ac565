import type { IExecuteData, IExecuteFunctions, IRunExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

// How the node gets to read the orders when its execution is resumed. n8n resumes a waiting execution in two ways
// and in neither runs the waiting node's code: when the wait's time is up (its wait tracker), n8n-core's
// handleWaitingState disables the node at the head of the execution stack, which then hands on the items it holds;
// when a request to the resume URL makes the node's webhook return items, n8n disables the node the same way and
// hands those items on. So before it waits, the node puts a second entry for itself right behind its own, holding
// its input: once the disabled entry has passed, n8n runs that one as usual, and the node reads the orders (no loop
// for the user to wire). The disabled entry holds no items (and the webhook returns none), so it outputs nothing
// and n8n records no run for it (n8n-core goes on past a node that returns no data): the check's run takes the place
// of the waiting run. Read in n8n-core 1.123, 2.40 and 2.41 (workflow-execute.js: handleWaitingState,
// handleDisabledNode, the execution loop) and n8n's waiting-webhooks.js; the end-to-end tests run it on each.

/** The execution's stack of nodes to run: n8n-core gives the execute context the run's data but no method for it. */
function executionStack(ctx: IExecuteFunctions): IExecuteData[] | undefined {
	const runData = (ctx as unknown as { runExecutionData?: IRunExecutionData }).runExecutionData;
	const stack = runData?.executionData?.nodeExecutionStack;
	return Array.isArray(stack) ? stack : undefined;
}

/** Makes n8n run this node again, on the same input, when it resumes the execution that is about to wait. */
export function runAgainWhenResumed(ctx: IExecuteFunctions): void {
	const stack = executionStack(ctx);
	if (stack === undefined) {
		throw new NodeOperationError(ctx.getNode(), 'This n8n version does not let Create and Wait check the orders while it waits', {
			description: 'Use Order > Create, then the Ollang Callback Trigger or the Ollang Trigger to go on when the orders complete.',
		});
	}
	const waiting = ctx.getExecuteData();
	// Its own copy of the node: n8n disables the waiting entry's node object, and a shared one would disable both.
	stack.unshift({ node: { ...waiting.node }, data: waiting.data, source: waiting.source });
	// The waiting entry hands on nothing when n8n passes it, whatever the node's "Always Output Data" says.
	waiting.node = { ...waiting.node, alwaysOutputData: false };
	waiting.data = { main: [] };
}
