import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readOrder } from '../../../shared/readOrder';
import { forReadOperation, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import { isRecord } from '../common/responses';
import { isSimplified, pick, records, simplifyField } from '../common/simplify';
import type { OperationKind, OperationResult } from '../node.type';
import { orderOwnFields } from './values';

const properties: INodeProperties[] = [
	orderLocator('The order to get, with its documents, finance data, quality evaluation and delivery events'),
	simplifyField(
		"Simplified: the order's own fields, its documents as type, name and URL, its delivery events as a count and the latest one, and its QC evaluation as status, summary and scores.",
	),
];

/** The answer's fields Simplify keeps (test/contract checks each against the contract's order schema). */
export const SIMPLIFIED_ORDER_FIELDS = {
	order: [...orderOwnFields, 'vttUrl'],
	orderDocs: ['type', 'name', 'url'],
	deliveryEvents: ['type', 'occurredAt'],
	latestEvaluation: ['id', 'isLoading', 'textSummary'],
	scores: ['name', 'value'],
} as const;

/** What a person or a model asks about an order, without the raw lists and finance data. */
function simplifyOrder(order: IDataObject): IDataObject {
	const fields = SIMPLIFIED_ORDER_FIELDS;
	const events = records(order.deliveryEvents);
	const lastEvent = events[events.length - 1];
	const evaluation = order.latestEvaluation;
	return {
		...pick(order, fields.order),
		documents: records(order.orderDocs).map((doc) => pick(doc, fields.orderDocs)),
		deliveryEventCount: events.length,
		lastDeliveryEvent: lastEvent ? pick(lastEvent, fields.deliveryEvents) : null,
		qcEvaluation: isRecord(evaluation)
			? {
					...pick(evaluation, fields.latestEvaluation),
					scores: records(evaluation.scores).map((score) => pick(score, fields.scores)),
				}
			: null,
	};
}

export const description = forReadOperation('order', 'get', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const order = await readOrder(this, orderId, { itemIndex });
	return toResults(isSimplified(this, itemIndex) ? simplifyOrder(order) : order);
}
