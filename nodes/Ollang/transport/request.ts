// The shape of a request to the Ollang API and the policies every request follows (retries, timeout, answer size).
import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { RETRY_BACKOFF_BASE_MS } from '../../shared/waits';
import type { ErrorHints } from './errors';

export type OllangContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IWebhookFunctions;

export const CREDENTIAL_TYPE = 'ollangApi';

export interface OllangRequest {
	method: IHttpRequestMethods;
	/** Built with apiPath`/integration/orders/${orderId}`, which validates and URL-encodes each id. */
	path: string;
	/** Nested paging keys are literal: { 'pageOptions[page]': 1, 'filter[from]': '...' }. Empty values are left out. */
	qs?: IDataObject;
	body?: IDataObject | IDataObject[];
	/**
	 * 'safe': reads and idempotent writes, retried on 429/500/502/503/504 and connection failures (repeating them
	 * is harmless, and a 500 is as often passing as lasting).
	 * 'once': spends credits or creates something; retried only where the service cannot have acted
	 * (429, connection refused).
	 */
	retry: 'safe' | 'once';
	/** For error messages. */
	itemIndex?: number;
	timeoutMs?: number;
	/**
	 * Whether a 2xx answer must carry a JSON body (default true). False for endpoints that answer 204 or an
	 * empty body; apiRequest then resolves to undefined for an empty body.
	 */
	expectBody?: boolean;
	/** Operation-specific hints, keyed by HTTP status ("400") or API error code. */
	errorHints?: ErrorHints;
	/**
	 * Error answers the API documents as lasting, never retried although their status usually is (the export's
	 * 500 "No segment data found"): matched on the status and the API's message.
	 */
	lastingErrors?: Array<{ status: number; message: RegExp }>;
}

/**
 * Production retry policy: 3 retries, exponential backoff from 500 ms with jitter, Retry-After honoured up
 * to 30 s (a longer wait is reported instead of slept through).
 */
export const RETRY_POLICY = {
	maxRetries: 3,
	baseDelayMs: RETRY_BACKOFF_BASE_MS,
	maxBackoffMs: 8_000,
	maxRetryAfterMs: 30_000,
	maxRedirects: 5,
} as const;

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Largest JSON answer read: the API's biggest (a page, the memories) are far smaller; more is not this API. */
export const MAX_JSON_ANSWER_BYTES = 16 * 1024 * 1024;
