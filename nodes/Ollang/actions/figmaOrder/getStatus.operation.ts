import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forReadOperation, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	orderLocator('A Figma order (one that Figma Order > Create made); other orders answer 404'),
];

export const description = forReadOperation('figmaOrder', 'getStatus', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/orders/figma/${orderId}/status`,
		retry: 'safe',
		itemIndex,
	};
	return toResults(requireObject.call(this, request, await apiRequest.call(this, request), ['status']));
}
