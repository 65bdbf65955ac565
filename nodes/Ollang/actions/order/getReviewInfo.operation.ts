import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forReadOperation, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	orderLocator('The order whose review gate to read (tag name, review type and tag color)'),
];

export const description = forReadOperation('order', 'getReviewInfo', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const request: OllangRequest = {
		method: 'GET',
		// The spec places this endpoint outside /integration.
		path: apiPath`/v1/api/client/orders/${orderId}/review/info`,
		retry: 'safe',
		itemIndex,
	};
	const info = requireObject.call(this, request, await apiRequest.call(this, request));
	return toResults({ orderId, ...info });
}
