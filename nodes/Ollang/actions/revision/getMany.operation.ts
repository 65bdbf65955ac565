import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forReadOperation, orderLocator, returnAllAndLimit } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId, readLocalLimit } from '../common/parameters';
import { requireList } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';
import { REVISION_FORBIDDEN_HINT } from './values';

const properties: INodeProperties[] = [orderLocator('The order whose revision requests to list'), ...returnAllAndLimit];

export const description = forReadOperation('revision', 'getMany', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const limit = readLocalLimit(this, itemIndex);
	// The API returns every revision of the order in one answer (no paging), so the limit applies here.
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/revision/${orderId}`,
		retry: 'safe',
		itemIndex,
		errorHints: { '403': REVISION_FORBIDDEN_HINT },
	};
	const revisions = requireList.call(this, request, await apiRequest.call(this, request));
	return toResults(limit === undefined ? revisions : revisions.slice(0, limit));
}
