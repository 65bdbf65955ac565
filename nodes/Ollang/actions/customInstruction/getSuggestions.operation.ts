import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { requireList } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [];

// No field: every item asks the same, so running items at once (Read Concurrency) gains nothing.
export const description = forOperation('customInstruction', 'getSuggestions', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const request: OllangRequest = {
		method: 'GET',
		path: '/integration/custom-instructions/suggestions',
		retry: 'safe',
		itemIndex,
	};
	return toResults(requireList.call(this, request, await apiRequest.call(this, request)));
}
