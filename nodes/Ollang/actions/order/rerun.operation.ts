import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forPaidWrite, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkBoolean, readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import { cannotReadBack, writeOnce } from '../common/writeOnce';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName:
			'Runs the AI processing of a completed or delivered order again. This spends credits (the AI price of the order) unless Free Rerun is on. The order is ongoing until the new result is delivered.',
		name: 'rerunNotice',
		type: 'notice',
		default: '',
	},
	orderLocator('The order to rerun: its status must be completed or delivered'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Free Rerun',
				name: 'freeReRun',
				type: 'boolean',
				default: false,
				description:
					'Whether to rerun without charging credits (freeReRun), where the account is allowed to, for example after a service error',
			},
			{
				displayName: 'Rerun Full Chain',
				name: 'triggerFullChain',
				type: 'boolean',
				default: false,
				description:
					'Whether to also rerun the connected orders, such as the subtitle order a dubbing order was made from (triggerFullChain). The IDs of every rerun order are returned.',
			},
		],
	},
];

export const description = forPaidWrite('order', 'rerun', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	const freeReRun = checkBoolean(this, options.freeReRun, 'Free Rerun', itemIndex, undefined);
	const triggerFullChain = checkBoolean(this, options.triggerFullChain, 'Rerun Full Chain', itemIndex, undefined);
	if (freeReRun !== undefined) body.freeReRun = freeReRun;
	if (triggerFullChain !== undefined) body.triggerFullChain = triggerFullChain;
	const request: OllangRequest = {
		method: 'POST',
		path: apiPath`/integration/orders/${orderId}/rerun`,
		body,
		// Spends credits: repeated only where the service cannot have acted.
		retry: 'once',
		itemIndex,
		errorHints: {
			ORDER_NOT_ELIGIBLE: 'Only completed or delivered orders can be rerun. Get the order to see its status.',
		},
	};
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, body },
		send: async () => ({ orderId, ...requireObject.call(this, request, await apiRequest.call(this, request), ['success']) }),
		// The API shows no rerun of an order: a lost answer cannot be read back.
		lostAnswer: cannotReadBack,
	});
	return toResults(json);
}
