import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { forReadOperation, orderLocator } from '../common/fields';
import { binaryOutputField, readBinaryOutputField } from '../common/binary';
import { readId, readOption } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';
import { filesOf, KIND_OPTIONS, kindsOf } from './deliverables';
import { orderProgress } from '../../../shared/orderProgress';
import { readOrder } from '../../../shared/readOrder';
import { describeStoredFile, storeOrderFiles } from './orderFiles';

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

/**
 * One output item per file, each in the same binary field, as n8n's own file nodes (Google Drive, Dropbox, S3)
 * download: the next node (an upload, say) takes `data` from every item without knowing how many files came.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const filter = readOption(this, 'kind', 'Files', itemIndex, KIND_OPTIONS);
	const binaryPropertyName = readBinaryOutputField(this, itemIndex);
	const kinds = kindsOf(filter);
	const order = await readOrder(this, orderId, { itemIndex });
	const files = filesOf(order, kinds);
	if (files.length === 0) {
		const wanted = KIND_OPTIONS.find((option) => option.value === filter)?.name ?? filter;
		const why = {
			done: 'Its delivered files do not include that kind.',
			cancelled: 'It was cancelled.',
			underWay: 'Deliverables appear once the order is completed.',
		}[orderProgress(order)];
		this.addExecutionHints({
			message: `Order ${orderId} (status ${String(order.status)}) has no file of the kind "${wanted}" yet, so no item was output for it. ${why}`,
			location: 'outputPane',
		});
		return [];
	}
	const stored = await storeOrderFiles.call(this, order, kinds, itemIndex);
	return stored.map((file) => ({
		json: describeStoredFile(orderId, file),
		binary: { [binaryPropertyName]: file.binary },
	}));
}

