import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName:
			'Needs an API key whose user has the client_owner or client_accessBillings role. 1000 credits = 1 USD.',
		name: 'walletNotice',
		type: 'notice',
		default: '',
	},
];

// No field: every item asks the same, so running items at once (Read Concurrency) gains nothing.
export const description = forOperation('creditWallet', 'get', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const request: OllangRequest = { method: 'GET', path: '/integration/credits', retry: 'safe', itemIndex };
	return toResults(requireObject.call(this, request, await apiRequest.call(this, request)));
}
