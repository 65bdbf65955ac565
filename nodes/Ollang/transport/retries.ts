// Which failures and statuses are retried for a request's retry policy, and how long to wait before the next try.

import { readApiErrorBody } from './errors';
import type { OllangRequest } from './request';
import { RETRY_POLICY } from './request';

/** How a connection failed (no answer): what the retry policy and the error's wording read. */
export type ConnectionFailure = 'refused' | 'dns' | 'timeout' | 'dropped' | 'cancelled' | 'blocked' | 'other';

export interface TransportFailure {
	kind: ConnectionFailure;
	code?: string;
	text: string;
}

const DROPPED_CODES = new Set([
	'ECONNRESET',
	'EPIPE',
	'ENETDOWN',
	'ENETUNREACH',
	'EHOSTUNREACH',
	'UND_ERR_SOCKET',
	'ERR_BAD_RESPONSE',
]);

/** The error and its causes, outermost first. */
function errorChain(error: unknown): object[] {
	const chain: object[] = [];
	let current: unknown = error;
	while (current !== null && typeof current === 'object' && !chain.includes(current)) {
		chain.push(current);
		current = (current as { cause?: unknown }).cause;
	}
	return chain;
}

function errorCodes(error: unknown): string[] {
	return errorChain(error)
		.map((link) => (link as { code?: unknown }).code)
		.filter((code): code is string => typeof code === 'string');
}

/**
 * n8n's SSRF protection (N8N_SSRF_PROTECTION_ENABLED) refused the target before any connection: its error names
 * the host and says which settings allow it; nothing was sent, so nothing is retried.
 */
function ssrfRefusal(error: unknown): string | undefined {
	const refusal = errorChain(error).find((link) => /^SsrfBlocked(Ip|Hostname)Error$/.test((link as Error).name ?? ''));
	if (!refusal) return undefined;
	const { message, description } = refusal as { message?: unknown; description?: unknown };
	return [message, description].filter((part) => typeof part === 'string' && part !== '').join('. ');
}

export function classifyFailure(error: unknown): TransportFailure {
	const codes = errorCodes(error);
	const text = error instanceof Error ? error.message : String(error);
	const has = (code: string) => codes.includes(code);
	const refusal = ssrfRefusal(error);
	if (refusal !== undefined) return { kind: 'blocked', text: refusal };
	// Only a cancelled execution gives ERR_CANCELED; a response stream that was cut ("stream has been aborted",
	// ERR_BAD_RESPONSE) is a dropped connection.
	if (has('ERR_CANCELED')) return { kind: 'cancelled', code: 'ERR_CANCELED', text };
	if (has('ECONNREFUSED')) return { kind: 'refused', code: 'ECONNREFUSED', text };
	if (has('ENOTFOUND') || has('EAI_AGAIN')) return { kind: 'dns', code: codes.find((c) => c.startsWith('E')), text };
	if (has('ETIMEDOUT') || has('ECONNABORTED') || /timeout/i.test(text)) {
		return {
			kind: 'timeout',
			code: has('ETIMEDOUT') ? 'ETIMEDOUT' : 'ECONNABORTED',
			text,
		};
	}
	const dropped = codes.find((code) => DROPPED_CODES.has(code));
	if (dropped !== undefined || /socket hang up|terminated/i.test(text)) {
		return { kind: 'dropped', code: dropped ?? 'ECONNRESET', text };
	}
	return { kind: 'other', code: codes[0], text };
}

export function failureRetryable(failure: TransportFailure, retry: OllangRequest['retry']): boolean {
	if (failure.kind === 'refused') return true;
	if (failure.kind === 'dns') return failure.code === 'EAI_AGAIN';
	if (retry === 'once') return false;
	return failure.kind === 'timeout' || failure.kind === 'dropped';
}

export function statusRetryable(status: number, request: OllangRequest, body: unknown): boolean {
	const lasting = request.lastingErrors?.some(
		(known) =>
			known.status === status && readApiErrorBody(body).messages.some((message) => known.message.test(message)),
	);
	if (lasting) return false;
	if (status === 429) return true;
	return request.retry === 'safe' && (status === 500 || status === 502 || status === 503 || status === 504);
}

/** Retry-After in milliseconds (seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined || value.trim() === '') return undefined;
	const trimmed = value.trim();
	if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

/** Exponential backoff with jitter: attempt 1 waits 250-500 ms, attempt 2 500-1000 ms, ... */
export function backoffDelay(retryNumber: number): number {
	const ceiling = Math.min(RETRY_POLICY.maxBackoffMs, RETRY_POLICY.baseDelayMs * 2 ** (retryNumber - 1));
	return Math.round(ceiling * (0.5 + Math.random() * 0.5));
}
