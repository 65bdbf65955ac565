import type { IBinaryData, IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { FileContext, OllangRequest } from '../../transport';
import { apiPath, apiRequest, downloadSignedFile, linkWithoutQuery } from '../../transport';
import { requireObject } from '../common/responses';
import type { FileKind, OrderFile } from './deliverables';
import { filesOf, mimeTypeOfName, sameFile } from './deliverables';

/** Get Order (safe to repeat), from an operation or a waiting node's webhook. */
export async function readOrder(this: FileContext, orderId: string, itemIndex: number): Promise<IDataObject> {
	const request: OllangRequest = { method: 'GET', path: apiPath`/integration/orders/${orderId}`, retry: 'safe', itemIndex };
	return requireObject.call(this, request, await apiRequest.call(this, request), ['id']);
}

/** One stored file of an order and what it is. */
export interface StoredOrderFile {
	file: OrderFile;
	binary: IBinaryData;
	mimeType: string;
	fileSize: number;
}

/**
 * Stores the order's files of the given kinds in n8n's binary store, in the order's own order. Signed links expire
 * (the storage host answers 403 or 400): the order is read once more for fresh ones, then no more.
 */
export async function storeOrderFiles(
	this: FileContext,
	order: IDataObject,
	kinds: FileKind[],
	itemIndex: number,
): Promise<StoredOrderFile[]> {
	const orderId = String(order.id);
	const files = filesOf(order, kinds);
	let refreshed = false;
	let current = files;
	const stored: StoredOrderFile[] = [];
	for (const listed of files) {
		let file: OrderFile = sameFile(current, listed) ?? listed;
		let download = await fetchFile.call(this, file, itemIndex);
		if (!download.stored && !refreshed) {
			refreshed = true;
			current = filesOf(await readOrder.call(this, orderId, itemIndex), kinds);
			file = sameFile(current, listed) ?? listed;
			download = await fetchFile.call(this, file, itemIndex);
		}
		if (!download.stored) {
			throw new NodeApiError(
				this.getNode(),
				{},
				{
					message: `The storage host refused the link of ${file.fileName} (${download.status}${download.reason ? `: ${download.reason}` : ''})`,
					description: `The link (${linkWithoutQuery(file.url)}) was refused even after reading the order again for a fresh one. Signed links expire: run the node again, or check that the order still has this file.`,
					httpCode: String(download.status),
					itemIndex,
				},
			);
		}
		stored.push({ file, binary: download.binary, mimeType: download.mimeType, fileSize: download.fileSize });
	}
	return stored;
}

/** What an output item says of a stored file (its bytes are in the item's binary field). */
export function describeStoredFile(orderId: string, stored: StoredOrderFile): IDataObject {
	return {
		orderId,
		language: stored.file.language,
		kind: stored.file.kind,
		type: stored.file.type,
		fileName: stored.file.fileName,
		mimeType: stored.mimeType,
		fileSize: stored.fileSize,
	};
}

async function fetchFile(this: FileContext, file: OrderFile, itemIndex: number) {
	return await downloadSignedFile.call(this, {
		url: file.url,
		fileName: file.fileName,
		mimeType: mimeTypeOfName(file.fileName),
		itemIndex,
	});
}
