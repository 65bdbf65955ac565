import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { apiPath, apiRequest } from '../../transport';
import { forPaidWrite, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readId } from '../common/parameters';
import { cannotReadBack, writeOnce } from '../common/writeOnce';
import { isRecord } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	orderLocator(
		'A completed subtitle order of a video: the service burns the subtitles into a copy of the video',
	),
];

export const description = forPaidWrite('order', 'requestSubtitleEmbedding', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const path = apiPath`/integration/orders/${orderId}/subtitle-embedding`;
	const json = await writeOnce(this, itemIndex, {
		request: { path },
		send: async () => {
			const answer = await apiRequest.call(this, {
				method: 'POST',
				path,
				// Starts paid processing: repeated only where the service cannot have acted.
				retry: 'once',
				expectBody: false,
				itemIndex,
				errorHints: {
					'400': 'Subtitle embedding needs a completed video order that has subtitles.',
				},
			});
			return { success: true, orderId, ...(isRecord(answer) ? answer : {}) };
		},
		// The order keeps only its latest embedding request: a lost answer cannot be read back.
		lostAnswer: cannotReadBack,
	});
	return toResults(json);
}
