// Retry Protection and Idempotency Key: in the Options of every paid write (fields.ts forPaidWrite), read by
// writeOnce (common/writeOnce/index.ts) from these paths.
import type { INodeProperties } from 'n8n-workflow';

import { REMEMBER_DAYS } from './writeOnce/records';

export const RETRY_PROTECTION_PARAMETER = 'options.retryProtection';
export const IDEMPOTENCY_KEY_PARAMETER = 'options.idempotencyKey';

export const retryProtectionOptions: INodeProperties[] = [
	{
		displayName: 'Retry Protection',
		name: 'retryProtection',
		type: 'boolean',
		default: true,
		description:
			'Whether retrying a failed execution (or Retry On Fail) skips the items this node already sent, so nothing is done or charged twice. A skipped item returns its first result, with alreadyApplied true.',
	},
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		displayOptions: { hide: { retryProtection: [false] } },
		placeholder: 'e.g. {{ $json.body.eventId }}',
		description: `A value that identifies the same request in any execution, such as the event ID of a webhook that can arrive twice. An item whose key was sent in the last ${REMEMBER_DAYS} days is skipped. Empty: only retries are skipped.`,
	},
];
