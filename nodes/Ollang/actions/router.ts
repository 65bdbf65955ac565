import type { IExecuteFunctions, INodeExecutionData, IPairedItemData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as consumption from './consumption';
import * as content from './content';
import * as creditWallet from './creditWallet';
import * as customInstruction from './customInstruction';
import * as figmaOrder from './figmaOrder';
import * as folder from './folder';
import * as health from './health';
import * as locale from './locale';
import * as memory from './memory';
import * as order from './order';
import * as project from './project';
import * as revision from './revision';
import * as upload from './upload';
import { declareOperation, settleConcurrent } from '../transport';
import { asNodeError, describeAppliedItems, errorItemJson } from './common/outcomes';
import { readConcurrency } from './common/readConcurrency';
import type { BatchOperation, BatchOutcome, OllangOperation, OllangResource, ResourceOperations } from './node.type';

/** Every resource's operations; the type makes a missing resource or operation a compile error. */
export const resources: { [R in OllangResource]: ResourceOperations<R> } = {
	order: order.operations,
	revision: revision.operations,
	consumption: consumption.operations,
	creditWallet: creditWallet.operations,
	content: content.operations,
	memory: memory.operations,
	folder: folder.operations,
	project: project.operations,
	upload: upload.operations,
	customInstruction: customInstruction.operations,
	locale: locale.operations,
	figmaOrder: figmaOrder.operations,
	health: health.operations,
};

export function findOperation(resource: string, operation: string): OllangOperation | undefined {
	const operations = (resources as Record<string, Record<string, OllangOperation> | undefined>)[resource];
	return operations?.[operation];
}

function isBatch(operation: OllangOperation): operation is BatchOperation {
	return 'executeBatch' in operation;
}

function pairing(pairedItems: number[]): IPairedItemData | IPairedItemData[] {
	return pairedItems.length === 1 ? { item: pairedItems[0] } : pairedItems.map((item) => ({ item }));
}

/** Runs the chosen operation: per item, or once for all items (batch); pairs every output and error once, here. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const chosen = findOperation(resource, operation);
	if (chosen === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported`,
		);
	}

	// The transport checks each request against the kind declared here (a read sends only GETs; a paid write's
	// requests go through the write-once protocol).
	declareOperation(this, `${resource}.${operation}`, chosen.kind);
	const output: INodeExecutionData[] = [];
	const continueOnFail = this.continueOnFail();

	const settle = (outcome: BatchOutcome) => {
		const pairedItem = pairing(outcome.pairedItems);
		if ('result' in outcome) {
			output.push({ ...outcome.result, pairedItem });
			return;
		}
		const error = asNodeError(this, outcome.error, outcome.pairedItems[0] ?? 0);
		if (!continueOnFail) throw error;
		const json = errorItemJson(this, error);
		output.push({ json, pairedItem });
	};

	const itemCount = this.getInputData().length;
	if (isBatch(chosen)) {
		const outcomes = await chosen.executeBatch.call(this, itemCount);
		// Output follows input order, whatever order the batches finished in (sort is stable).
		outcomes.sort((a, b) => (a.pairedItems[0] ?? 0) - (b.pairedItems[0] ?? 0)).forEach(settle);
		return [output];
	}

	const takenOver = chosen.takeOver === undefined ? undefined : await chosen.takeOver.call(this);
	if (takenOver !== undefined) return [takenOver];

	// Reads run Read Concurrency items at once (8 unless the option says otherwise); their outcomes are settled in
	// item order, so output order, pairing and Continue On Fail are as if one item ran after another. Without
	// Continue On Fail no item starts after a failure, the items under way finish, and the first failing item in
	// order stops the node. Writes run one item at a time.
	const concurrency = chosen.kind === 'read' ? readConcurrency(this) : 1;
	const itemIndexes = Array.from({ length: itemCount }, (_, itemIndex) => itemIndex);
	const settled = await settleConcurrent(
		itemIndexes,
		concurrency,
		async (itemIndex) => await chosen.execute.call(this, itemIndex),
		{ stopAfterFailure: !continueOnFail },
	);
	settled.forEach((outcome, itemIndex) => {
		// Not started: an item before it failed, and settling that failure has stopped the node.
		if (outcome === undefined) return;
		if (outcome.ok) {
			outcome.value.forEach((result) => settle({ pairedItems: [itemIndex], result }));
			return;
		}
		const error = asNodeError(this, outcome.error, itemIndex);
		if (!continueOnFail && chosen.kind !== 'read') {
			// n8n discards the output of a node that stops: the error says what the items before it did.
			const applied = settled.slice(0, itemIndex).map((earlier) => (earlier?.ok ? earlier.value.map((result) => result.json) : []));
			const note = describeAppliedItems(applied);
			if (note !== undefined) error.description = [error.description, note].filter(Boolean).join(' ');
		}
		settle({ pairedItems: [itemIndex], error });
	});
	if (chosen.afterItems !== undefined) return [await chosen.afterItems.call(this, output)];
	return [output];
}
