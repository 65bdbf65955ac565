import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiDownloadBinary, apiPath } from '../../transport';
import { forReadOperation, orderLocator } from '../common/fields';
import { checkText, readId } from '../common/parameters';
import type { OperationKind, OperationResult } from '../node.type';

const XLSX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

const properties: INodeProperties[] = [
	orderLocator(
		"The order to export: one row per segment (number, timecode, speaker, source text, translation in the order's target language)",
	),
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the output binary field to put the XLSX file in',
	},
];

export const description = forReadOperation('order', 'exportXlsx', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const binaryPropertyName = checkText(
		this,
		this.getNodeParameter('binaryPropertyName', itemIndex),
		'Put Output File in Field',
		itemIndex,
		true,
	) as string;
	const file = await apiDownloadBinary.call(
		this,
		{
			method: 'GET',
			path: apiPath`/integration/orders/${orderId}/export-xlsx`,
			retry: 'safe',
			itemIndex,
			timeoutMs: 300_000,
			errorHints: {
				'500':
					'The order has no segment data for its target language yet. The export works once the AI pipeline has produced segments.',
			},
			// The spec's answer for an order without segments: asking again gives the same.
			lastingErrors: [{ status: 500, message: /no segment data found/i }],
		},
		(answer) => ({
			fileName: answer.fileName ?? `${orderId}.xlsx`,
			mimeType: answer.mimeType && answer.mimeType !== 'application/octet-stream' ? answer.mimeType : XLSX_MIME_TYPE,
		}),
	);
	return [
		{
			json: { orderId, fileName: file.fileName, mimeType: file.mimeType, fileSize: file.fileSize },
			binary: { [binaryPropertyName]: file.binary },
		},
	];
}
