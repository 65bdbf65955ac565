import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forPaidWrite, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkText, invalidField, readId, readOption } from '../common/parameters';
import { requireList, requireObject } from '../common/responses';
import { byListing, writeOnce } from '../common/writeOnce';
import type { OperationKind, OperationResult } from '../node.type';
import { REVISION_FORBIDDEN_HINT, REVISION_WINDOW_DAYS, revisionTypes } from './values';

const TIME_FORMAT = /^\d{2}:[0-5]\d:[0-5]\d$/;
const MAX_DESCRIPTION_LENGTH = 2000;

const properties: INodeProperties[] = [
	{
		displayName: `Asks Ollang to fix a delivered order. Revisions can be requested only for completed or delivered orders, within ${REVISION_WINDOW_DAYS} days of delivery.`,
		name: 'revisionNotice',
		type: 'notice',
		default: '',
	},
	orderLocator('The order to revise: its status must be completed or delivered'),
	{
		displayName: 'Type',
		name: 'type',
		type: 'options',
		options: revisionTypes,
		default: 'wrongSubtitle',
		required: true,
		description: 'What is wrong at that point of the media',
	},
	{
		displayName: 'Time',
		name: 'time',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 00:01:23',
		hint: 'Where the problem is in the media, as HH:MM:SS',
		description: 'Position of the problem in the media: hours, minutes and seconds (HH:MM:SS)',
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: 'e.g. The subtitle shows the previous line',
		description: 'What should change, in plain language (optional, but it helps the linguist)',
	},
];

export const description = forPaidWrite('revision', 'create', properties);

export const kind: OperationKind = 'paidWrite';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const type = readOption(this, 'type', 'Type', itemIndex, revisionTypes);
	const time = checkText(this, this.getNodeParameter('time', itemIndex, ''), 'Time', itemIndex, true) as string;
	if (!TIME_FORMAT.test(time)) {
		throw invalidField(
			this,
			itemIndex,
			'Time',
			`"${time}" is not a time as HH:MM:SS (two digits each, minutes and seconds 00 to 59, e.g. 00:01:23)`,
		);
	}
	const body: IDataObject = { type, time };
	const text = checkText(this, this.getNodeParameter('description', itemIndex, ''), 'Description', itemIndex, false);
	if (text !== undefined) {
		if (text.length > MAX_DESCRIPTION_LENGTH) {
			throw invalidField(
				this,
				itemIndex,
				'Description',
				`at most ${MAX_DESCRIPTION_LENGTH} characters, got ${text.length}`,
			);
		}
		body.description = text;
	}
	const request: OllangRequest = {
		method: 'POST',
		path: apiPath`/integration/revision/${orderId}`,
		body,
		// Creates a revision request: a blind repeat could create two.
		retry: 'once',
		itemIndex,
		errorHints: {
			'400': `A revision can be requested only for a completed or delivered order, within ${REVISION_WINDOW_DAYS} days of its delivery; the API's message says which rule failed.`,
			'403': REVISION_FORBIDDEN_HINT,
		},
	};
	// The order's revisions: one of the type and time asked, new since sending, was made by this request.
	const listing: OllangRequest = { method: 'GET', path: request.path, retry: 'safe', itemIndex };
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, body },
		send: async () => requireObject.call(this, request, await apiRequest.call(this, request), ['id']),
		lostAnswer: byListing(
			async () => requireList.call(this, listing, await apiRequest.call(this, listing)),
			(revision) => revision.type === type && revision.time === time,
		),
		identity: { orderId, type, time },
	});
	return toResults(json);
}
