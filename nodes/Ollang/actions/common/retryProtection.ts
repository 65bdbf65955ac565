// Retry Protection and Idempotency Key: in the Options of every paid write (fields.ts forPaidWrite), read by
// writeOnce (common/writeOnce/index.ts) from these paths.
import type { INodeProperties } from 'n8n-workflow';

import { MAX_REMEMBERED } from './writeOnce/records';

const REMEMBERED = `The node remembers at least its last ${MAX_REMEMBERED.toLocaleString('en-US')} sent items.`;

export const RETRY_PROTECTION_PARAMETER = 'options.retryProtection';
export const IDEMPOTENCY_KEY_PARAMETER = 'options.idempotencyKey';

export const retryProtectionOptions: INodeProperties[] = [
	{
		displayName: 'Retry Protection',
		name: 'retryProtection',
		type: 'boolean',
		default: true,
		description:
			`Whether retrying a failed execution (or Retry On Fail) skips the items this node already sent, so nothing is done or charged twice. A skipped item returns its first result, with alreadyApplied true. ${REMEMBERED}`,
	},
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		displayOptions: { hide: { retryProtection: [false] } },
		placeholder: 'e.g. {{ $json.body.eventId }}',
		description: `A value that identifies the same request in any execution, such as the event ID of a webhook that can arrive twice. An item whose key this node already sent is skipped. Empty: only retries are skipped. ${REMEMBERED}`,
	},
];
