import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forReadOperation, memoryLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [memoryLocator('The translation memory to get')];

export const description = forReadOperation('memory', 'get', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const memoryId = readId(this, 'memoryId', 'Memory', itemIndex);
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/memories/${memoryId}`,
		retry: 'safe',
		itemIndex,
	};
	return toResults(requireObject.call(this, request, await apiRequest.call(this, request), ['id']));
}
