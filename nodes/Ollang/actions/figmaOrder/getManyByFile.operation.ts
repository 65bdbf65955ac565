import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forReadOperation, returnAllAndLimit } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readLocalLimit } from '../common/parameters';
import { requireList } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';
import { checkFileKey } from './figma';

const properties: INodeProperties[] = [
	{
		displayName: 'File Key or URL',
		name: 'fileKey',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. AbC123xyz or https://www.figma.com/design/AbC123xyz/Marketing-Site',
		description: 'The Figma file whose orders to list: its key, or its URL (the key is taken from it)',
	},
	...returnAllAndLimit,
];

export const description = forReadOperation('figmaOrder', 'getManyByFile', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const fileKey = checkFileKey(this, this.getNodeParameter('fileKey', itemIndex, ''), 'File Key or URL', itemIndex);
	const limit = readLocalLimit(this, itemIndex);
	// The API answers every order of the file at once, newest first; the limit applies here.
	const request: OllangRequest = {
		method: 'GET',
		path: '/integration/orders/figma',
		qs: { fileKey },
		retry: 'safe',
		itemIndex,
	};
	const orders = requireList.call(this, request, await apiRequest.call(this, request));
	return toResults(limit === undefined ? orders : orders.slice(0, limit));
}
