import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { folderListLocator, forReadOperation, returnAllAndLimit } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId, readLocalLimit } from '../common/parameters';
import { requireList } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	folderListLocator('The folder whose documents (guidelines, glossaries, character lists) to list'),
	...returnAllAndLimit,
];

export const description = forReadOperation('folder', 'listDocuments', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderId = readId(this, 'folderId', 'Folder', itemIndex);
	const limit = readLocalLimit(this, itemIndex);
	const request: OllangRequest = {
		method: 'GET',
		path: apiPath`/integration/folder/${folderId}/docs`,
		retry: 'safe',
		itemIndex,
	};
	// The API returns every document at once; the limit applies here.
	const documents = requireList.call(this, request, await apiRequest.call(this, request));
	return toResults(limit === undefined ? documents : documents.slice(0, limit));
}
