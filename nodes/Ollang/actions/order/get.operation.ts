import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forOperation, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	orderLocator('The order to get, with its documents, finance data, quality evaluation and delivery events'),
];

export const description = forOperation('order', 'get', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/orders/${orderId}`,
		retry: 'safe',
		itemIndex,
	};
	const order = await apiRequest.call(this, request);
	return toResults(requireObject.call(this, request, order, ['id']));
}
