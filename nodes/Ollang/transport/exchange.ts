// One HTTP exchange with the API through n8n's helper: redirects, retries with backoff, failure classification, redaction.
import type { IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { checkDeclared } from './declared';
import type { AppliedState } from './errors';
import { appliedNote, createApiError, describeApiError } from './errors';
import { redactBody, redactValue, redactor } from './redaction';
import type { OllangContext, OllangRequest } from './request';
import { CREDENTIAL_TYPE, DEFAULT_TIMEOUT_MS, RETRY_POLICY } from './request';
import type { ConnectionFailure, TransportFailure } from './retries';
import { backoffDelay, classifyFailure, failureRetryable, parseRetryAfter, statusRetryable } from './retries';
import { targetFor } from './target';

function buildQuery(qs: IDataObject | undefined): string {
	if (!qs) return '';
	const params = new URLSearchParams();
	for (const [key, value] of Object.entries(qs)) {
		if (value === undefined || value === null || value === '') continue;
		if (Array.isArray(value)) {
			for (const entry of value) params.append(key, String(entry));
		} else {
			params.append(key, String(value));
		}
	}
	const query = params.toString();
	return query ? `?${query}` : '';
}

export interface RawResponse {
	statusCode: number;
	headers: Record<string, string>;
	/** The whole body; empty when a 2xx answer was asked for as a stream. */
	body: Buffer;
	/** A 2xx answer's body, not yet read, when the exchange was asked to stream it. */
	stream?: BodyStream;
}

/** A response body as n8n's HTTP helper gives it with encoding 'stream' (what prepareBinaryData takes). */
export type BodyStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

export async function readStream(stream: BodyStream): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(toBuffer(chunk));
	return Buffer.concat(chunks);
}

export interface Payload {
	data: Buffer | string;
	contentType: string;
}

/** A request's JSON body as a payload (none without a body). */
export function jsonPayload(request: OllangRequest): Payload | undefined {
	return request.body !== undefined
		? { data: JSON.stringify(request.body), contentType: 'application/json' }
		: undefined;
}

function normalizeHeaders(headers: unknown): Record<string, string> {
	const result: Record<string, string> = {};
	if (headers === null || typeof headers !== 'object') return result;
	for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
		if (value === undefined || value === null) continue;
		result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return result;
}

export function toBuffer(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
	if (body === undefined || body === null) return Buffer.alloc(0);
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	return Buffer.from(JSON.stringify(body), 'utf8');
}

export function parseBodyText(body: Buffer): {
	json?: unknown;
	text: string;
	isJson: boolean;
} {
	const text = body.toString('utf8');
	if (text.trim() === '') return { text, isJson: false };
	try {
		return { json: JSON.parse(text), text, isJson: true };
	} catch {
		return { text, isJson: false };
	}
}

/** The start of a body as one line; an HTML page (a proxy's error page) as its text, without markup. */
export function snippet(text: string): string {
	const readable = /^\s*</.test(text)
		? text.replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ')
		: text;
	const flat = readable.replace(/\s+/g, ' ').trim();
	return flat.length > 200 ? `${flat.slice(0, 200)}...` : flat;
}

function redirectTarget(location: string, current: string): URL | undefined {
	try {
		return new URL(location, current);
	} catch {
		return undefined;
	}
}

export async function exchange(
	this: OllangContext,
	request: OllangRequest,
	accept: string,
	payload?: Payload,
	/** Hand a 2xx body over as a stream; other answers are read whole, as always, to be shaped into errors. */
	streamBody = false,
): Promise<RawResponse> {
	checkDeclared(this, request.method, request.retry);
	const target = await targetFor.call(this, request.itemIndex);
	const redact = redactor(target.apiKey);
	const node = this.getNode();
	let url = `${target.base}${request.path}${buildQuery(request.qs)}`;
	const method = request.method;
	const body = payload?.data;
	let attempts = 0;
	let redirects = 0;

	const headers = (): IDataObject => {
		const result: IDataObject = { Accept: accept };
		if (body !== undefined && payload) {
			result['Content-Type'] = payload.contentType;
			result['Content-Length'] = Buffer.byteLength(body);
		}
		return result;
	};

	for (;;) {
		attempts++;
		const options: IHttpRequestOptions = {
			method,
			url,
			headers: headers(),
			body,
			encoding: streamBody ? 'stream' : 'arraybuffer',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			// Redirects are followed below, only to the same origin, so the key never goes to another host.
			disableFollowRedirect: true,
			timeout: request.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			json: false,
		};

		let response: RawResponse | undefined;
		let failure: TransportFailure | undefined;
		try {
			const raw = (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, options, {
				credentialsDecrypted: target.credential,
			})) as {
				statusCode: number;
				headers: unknown;
				body: unknown;
			};
			const responseHeaders = redactValue(normalizeHeaders(raw.headers), redact) as Record<string, string>;
			if (streamBody && raw.statusCode >= 200 && raw.statusCode < 300) {
				const stream = raw.body as BodyStream;
				return {
					statusCode: raw.statusCode,
					headers: responseHeaders,
					body: Buffer.alloc(0),
					stream,
				};
			}
			const whole = streamBody ? await readStream(raw.body as BodyStream) : toBuffer(raw.body);
			response = {
				statusCode: raw.statusCode,
				headers: responseHeaders,
				body: redactBody(whole, target.apiKey, redact),
			};
		} catch (error) {
			failure = classifyFailure(error);
		}

		const retriesLeft = attempts <= RETRY_POLICY.maxRetries;

		if (response) {
			const status = response.statusCode;
			if (status >= 200 && status < 300) return response;

			if (status >= 300 && status < 400 && response.headers.location) {
				const next = redirectTarget(response.headers.location, url);
				const keepsMethod = status === 307 || status === 308 || method === 'GET';
				if (next && next.origin === target.origin && keepsMethod && redirects < RETRY_POLICY.maxRedirects) {
					redirects++;
					attempts--;
					url = next.href;
					continue;
				}
				const where = next ? next.origin : response.headers.location;
				throw createApiError(
					node,
					redact(`The Ollang API redirected ${method} ${request.path} to ${where}; the redirect was not followed`),
					next && next.origin !== target.origin
						? 'Redirects to another host are not followed, so the API key is not sent there. Check the Base URL in the credential.'
						: 'Check the Base URL in the credential.',
					{ status, itemIndex: request.itemIndex },
				);
			}

			const parsed = parseBodyText(response.body);
			const errorBody = parsed.isJson ? parsed.json : snippet(parsed.text);
			const retryAfterMs = parseRetryAfter(response.headers['retry-after']);
			if (statusRetryable(status, request, errorBody) && retriesLeft) {
				if (retryAfterMs === undefined || retryAfterMs <= RETRY_POLICY.maxRetryAfterMs) {
					await sleep(retryAfterMs ?? backoffDelay(attempts));
					continue;
				}
			}
			let applied: AppliedState | undefined;
			if (request.retry === 'once') {
				// An answer of the API itself (4xx) refuses the request; a 5xx, or a gateway's or proxy's timeout (408),
				// may come after it acted.
				applied = status >= 500 || status === 408 ? 'mayHaveApplied' : 'notApplied';
			}
			const described = describeApiError({
				status,
				body: errorBody,
				method,
				path: request.path,
				hints: request.errorHints,
				applied,
				attempts,
			});
			let description = described.description;
			if (retryAfterMs !== undefined && retryAfterMs > RETRY_POLICY.maxRetryAfterMs) {
				description += ` The service asked to wait ${Math.round(retryAfterMs / 1000)} s before retrying, longer than this node waits.`;
			}
			throw createApiError(node, redact(described.message), redact(description), {
				status,
				body: redactValue(errorBody, redact),
				itemIndex: request.itemIndex,
				applied,
			});
		}

		const lastFailure = failure as TransportFailure;
		if (lastFailure.kind !== 'cancelled' && failureRetryable(lastFailure, request.retry) && retriesLeft) {
			await sleep(backoffDelay(attempts));
			continue;
		}
		throw connectionError.call(this, lastFailure, request, method, target.origin, attempts, redact);
	}
}

export function connectionError(
	this: OllangContext,
	failure: TransportFailure,
	request: OllangRequest,
	method: string,
	origin: string,
	attempts: number,
	redact: (text: string) => string,
) {
	const what: Record<ConnectionFailure, string> = {
		refused: `the connection to ${origin} was refused`,
		dns: `the host of ${origin} could not be resolved`,
		timeout: `no answer from ${origin} within ${request.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`,
		dropped: `the connection to ${origin} was dropped before an answer arrived`,
		cancelled: 'the execution was cancelled',
		blocked: `n8n's SSRF protection blocked the request to ${origin}`,
		other: `the request to ${origin} failed`,
	};
	const code = failure.code ? ` (${failure.code})` : '';
	const retried = attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
	const message = `Could not complete ${method} ${request.path}: ${what[failure.kind]}${code}${retried}`;
	const parts = [`Cause: ${failure.text.replace(/\.$/, '')}.`];
	if (failure.kind === 'refused' || failure.kind === 'dns') {
		parts.push('Check the Base URL in the Ollang API credential and that the service is reachable.');
	}
	if (failure.kind === 'blocked') {
		parts.push('To allow this host, your n8n administrator adds it to N8N_SSRF_ALLOWED_HOSTNAMES (or its addresses to N8N_SSRF_ALLOWED_IP_RANGES).');
	}
	let applied: AppliedState | undefined;
	if (request.retry === 'once') {
		const notSent = failure.kind === 'refused' || failure.kind === 'dns' || failure.kind === 'blocked';
		applied = notSent ? 'notApplied' : 'mayHaveApplied';
		parts.push(appliedNote(applied));
	}
	const error = createApiError(this.getNode(), redact(message), redact(parts.join(' ')), {
		itemIndex: request.itemIndex,
		applied,
	});
	// Which failure it was, for callers that treat them apart (the trigger: an SSRF block is not transient).
	error.context.transportFailure = failure.kind;
	return error;
}
