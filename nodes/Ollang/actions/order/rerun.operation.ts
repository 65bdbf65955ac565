import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forOperation, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { describeType, invalidField, readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import { retryProtectionFields, sendOnce } from '../common/retryGuard';
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
	...retryProtectionFields,
];

export const description = forOperation('order', 'rerun', properties);

export const kind: OperationKind = 'write';

function readFlag(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): boolean | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	throw invalidField(ctx, itemIndex, field, `must be true or false, got ${describeType(value)}`);
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const body: IDataObject = {};
	const freeReRun = readFlag(this, options.freeReRun, 'Free Rerun', itemIndex);
	const triggerFullChain = readFlag(this, options.triggerFullChain, 'Rerun Full Chain', itemIndex);
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
	const json = await sendOnce(this, itemIndex, 'order.rerun', {
		request: { path: request.path, body },
		send: async () => ({ orderId, ...requireObject.call(this, request, await apiRequest.call(this, request), ['success']) }),
	});
	return toResults(json);
}
