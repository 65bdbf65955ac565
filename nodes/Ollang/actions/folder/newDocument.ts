import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../transport';
import type { LostAnswer } from '../common/writeOnce';
import { byListing } from '../common/writeOnce';
import { requireList } from '../common/responses';

// Attach Document and Upload Document add one document to a folder: when the answer was lost, the folder's documents
// tell whether it was added (a new one of the type, and the name and language when given).

export interface DocumentAsked {
	type: string;
	name?: string;
	language?: string;
}

/** How a lost answer of a write that adds the document asked for is read back; `output` makes the item's json of it. */
export function documentSettlement(
	ctx: IExecuteFunctions,
	itemIndex: number,
	folderId: string,
	asked: DocumentAsked,
	output: (document: IDataObject) => IDataObject,
): LostAnswer {
	const listing = { method: 'GET' as const, path: apiPath`/integration/folder/${folderId}/docs`, retry: 'safe' as const, itemIndex };
	return byListing(
		async () => requireList.call(ctx, listing, await apiRequest.call(ctx, listing)),
		(document) =>
			document.type === asked.type &&
			(asked.name === undefined || document.name === asked.name) &&
			(asked.language === undefined || document.language === asked.language),
		([document]) => output(document),
	);
}
