import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../transport';
import { sendOrConfirm } from '../common/alreadyApplied';
import { records } from '../common/simplify';
import { folderListLocator, forOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	folderListLocator('The folder holding the document'),
	{
		displayName: 'Document ID',
		name: 'documentId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 6650f1c2a4b3e2d1c0b9a8f7',
		description:
			"The folder document to remove (see List Documents). Its copies in the folder's projects go too; orders created before keep the guidance they used.",
	},
];

export const description = forOperation('folder', 'removeDocument', properties);

export const kind: OperationKind = 'write';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderId = readId(this, 'folderId', 'Folder', itemIndex);
	const documentId = readId(this, 'documentId', 'Document ID', itemIndex);
	const applied = { success: true, folderId, documentId, removed: true };
	const json = await sendOrConfirm(this, itemIndex, {
		send: async () => {
			await apiRequest.call(this, {
				method: 'DELETE',
				path: apiPath`/integration/folder/${folderId}/docs/${documentId}`,
				// A repeat after an unclear failure would answer 404 and hide the removal: not repeated blindly.
				retry: 'once',
				expectBody: false,
				itemIndex,
			});
			return applied;
		},
		// A repeat answers 404; the folder's documents no longer hold it.
		refusals: [404],
		confirm: async () => {
			const listed = await apiRequest.call(this, { method: 'GET', path: apiPath`/integration/folder/${folderId}/docs`, retry: 'safe', itemIndex });
			const gone = !records(listed).some((document) => document.id === documentId);
			return gone ? applied : undefined;
		},
	});
	return toResults(json);
}
