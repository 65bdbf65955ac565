import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest, downloadSignedFile, linkWithoutQuery } from '../../transport';
import { forReadOperation, orderLocator } from '../common/fields';
import { binaryOutputField, readBinaryOutputField } from '../common/binary';
import { readId, readOption } from '../common/parameters';
import { requireObject } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';
import type { OrderFile } from './deliverables';
import { filesOf, KIND_OPTIONS, kindsOf, mimeTypeOfName, sameFile } from './deliverables';

const properties: INodeProperties[] = [
	orderLocator('The order whose files to download'),
	{
		displayName: 'Files',
		name: 'kind',
		type: 'options',
		options: KIND_OPTIONS,
		default: 'deliverables',
		description: 'Which of the order\'s files to download: one output item per file',
	},
	binaryOutputField('files (one per item)'),
];

export const description = forReadOperation('order', 'downloadFiles', properties);

export const kind: OperationKind = 'read';

async function readOrder(this: IExecuteFunctions, orderId: string, itemIndex: number): Promise<IDataObject> {
	const request: OllangRequest = { method: 'GET', path: apiPath`/integration/orders/${orderId}`, retry: 'safe', itemIndex };
	return requireObject.call(this, request, await apiRequest.call(this, request), ['id']);
}

/**
 * One output item per file, each in the same binary field, as n8n's own file nodes (Google Drive, Dropbox, S3)
 * download: the next node (an upload, say) takes `data` from every item without knowing how many files came.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const filter = readOption(this, 'kind', 'Files', itemIndex, KIND_OPTIONS);
	const binaryPropertyName = readBinaryOutputField(this, itemIndex);
	const kinds = kindsOf(filter);
	let order = await readOrder.call(this, orderId, itemIndex);
	const files = filesOf(order, kinds);
	if (files.length === 0) {
		const wanted = KIND_OPTIONS.find((option) => option.value === filter)?.name ?? filter;
		this.addExecutionHints({
			message: `Order ${orderId} (status ${String(order.status)}) has no file of the kind "${wanted}" yet, so no item was output for it. Deliverables appear once the order is completed.`,
			location: 'outputPane',
		});
		return [];
	}
	// Links expire (the storage host answers 403 or 400): read the order once more for fresh ones, then no more.
	let refreshed = false;
	let current = files;
	const results: OperationResult[] = [];
	for (const listed of files) {
		let file: OrderFile = sameFile(current, listed) ?? listed;
		let download = await fetchFile.call(this, file, itemIndex);
		if (!download.stored && !refreshed) {
			refreshed = true;
			order = await readOrder.call(this, orderId, itemIndex);
			current = filesOf(order, kinds);
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
		results.push({
			json: {
				orderId,
				language: file.language,
				kind: file.kind,
				type: file.type,
				fileName: file.fileName,
				mimeType: download.mimeType,
				fileSize: download.fileSize,
			},
			binary: { [binaryPropertyName]: download.binary },
		});
	}
	return results;
}

async function fetchFile(this: IExecuteFunctions, file: OrderFile, itemIndex: number) {
	return await downloadSignedFile.call(this, {
		url: file.url,
		fileName: file.fileName,
		mimeType: mimeTypeOfName(file.fileName),
		itemIndex,
	});
}
