import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath } from '../../transport';
import { isUnlisted, removeOnce, writeOnce } from '../common/writeOnce';
import { folderDocumentLocator, folderListLocator, forPaidWrite } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	folderListLocator('The folder holding the document'),
	folderDocumentLocator(
		"The folder document to remove: listed once the folder is chosen. Its copies in the folder's projects go too; orders created before keep the guidance they used.",
	),
];

export const description = forPaidWrite('folder', 'removeDocument', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const folderId = readId(this, 'folderId', 'Folder', itemIndex);
	const documentId = readId(this, 'documentId', 'Document', itemIndex);
	const json = await writeOnce(this, itemIndex, removeOnce(this, itemIndex, {
		path: apiPath`/integration/folder/${folderId}/docs/${documentId}`,
		// The folder's documents no longer hold it.
		isGone: async () => await isUnlisted(this, apiPath`/integration/folder/${folderId}/docs`, documentId, itemIndex),
		applied: { success: true, folderId, documentId, removed: true },
	}));
	return toResults(json);
}
