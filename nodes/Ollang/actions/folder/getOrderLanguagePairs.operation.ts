import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest, unexpectedResponse } from '../../transport';
import { folderListLocator, forReadOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId, readOption } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { assignmentStatuses } from './values';

const properties: INodeProperties[] = [
	folderListLocator('The folder whose orders to group by language pair'),
	{
		displayName: 'Orders',
		name: 'status',
		type: 'options',
		options: assignmentStatuses,
		default: 'unassigned',
		description:
			'Which orders to group: those a translator can be assigned to (completed, no translator) or those with a translator assigned',
	},
];

export const description = forReadOperation('folder', 'getOrderLanguagePairs', properties);

export const kind: OperationKind = 'read';

function isPair(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderId = readId(this, 'folderId', 'Folder', itemIndex);
	const status = readOption(this, 'status', 'Orders', itemIndex, assignmentStatuses);
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/folder/${folderId}/order-language-pairs`,
		qs: { status },
		retry: 'safe',
		itemIndex,
	};
	const answer = await apiRequest.call(this, request);
	// The public guide answers { pairs: [...] }; the TypeScript SDK types a bare array: both are read.
	const pairs = Array.isArray(answer) ? answer : isPair(answer) ? answer.pairs : undefined;
	if (!Array.isArray(pairs) || !pairs.every(isPair)) {
		throw unexpectedResponse.call(
			this,
			request,
			'{ pairs: [{ sourceLanguage, targetLanguage }] } or a list of pairs',
			answer,
		);
	}
	// One item per pair, each saying where it comes from, so the pairs can feed Assign Translator directly.
	return toResults(pairs.map((pair) => ({ folderId, status, ...pair })));
}
