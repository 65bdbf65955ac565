import type { IBinaryData, IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { FileContext } from '../../transport';
import { downloadSignedFile, linkWithoutQuery } from '../../transport';
import { readOrder } from '../../../shared/readOrder';
import type { FileKind, OrderFile } from './deliverables';
import { filesOf, mimeTypeOfName, sameFile } from './deliverables';

// An order's files stored in n8n's binary store: which (the kinds asked, in the order's own order), and what an
// expired signed link costs (the storage host answers 403 or 400): the order is read once more for fresh links, then
// the node fails naming the file.

/** One stored file of an order and what it is. */
export interface StoredOrderFile {
	file: OrderFile;
	binary: IBinaryData;
	mimeType: string;
	fileSize: number;
}

/** Stores the order's files of the given kinds, reading the order once more if a link expired. */
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
			current = filesOf(await readOrder(this, orderId, { itemIndex }), kinds);
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
