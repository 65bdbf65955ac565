import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [];

// No field: every item asks the same, so running items at once (Read Concurrency) gains nothing.
export const description = forOperation('health', 'check', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	// GET /health needs no key; the node still sends its credential, which the service ignores here.
	const request: OllangRequest = { method: 'GET', path: '/health', retry: 'safe', itemIndex };
	return toResults(requireObject.call(this, request, await apiRequest.call(this, request), ['status']));
}
