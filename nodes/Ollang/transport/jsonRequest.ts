// JSON requests (and multipart uploads) returning the parsed answer, with its status and headers when asked.

import { appliedNote, createApiError } from './errors';
import type { MultipartPart } from './multipart';
import { buildMultipartBody } from './multipart';
import type { RawResponse } from './exchange';
import { exchange, jsonPayload, parseBodyText, snippet } from './exchange';
import type { OllangContext, OllangRequest } from './request';
import { MAX_JSON_ANSWER_BYTES } from './request';

// Public API

/**
 * A clear error for a 2xx answer whose body is not what the operation needs. The service took the request, so
 * for one not safe to repeat the error says it may have been applied.
 */
export function unexpectedResponse(
	this: OllangContext,
	request: Pick<OllangRequest, 'method' | 'path' | 'itemIndex'> & Partial<Pick<OllangRequest, 'retry'>>,
	expected: string,
	received: unknown,
) {
	let shown: string;
	if (typeof received === 'string') shown = snippet(received) || 'an empty body';
	else if (received === undefined) shown = 'an empty body';
	else shown = snippet(JSON.stringify(received));
	const parts = [`Received: ${shown}. The API may have changed; please report this to the node's maintainers.`];
	if (request.retry === 'once') parts.push(appliedNote('mayHaveApplied'));
	return createApiError(
		this.getNode(),
		`The Ollang API answered ${request.method} ${request.path} with an unexpected response: expected ${expected}`,
		parts.join(' '),
		{ itemIndex: request.itemIndex, ...(request.retry === 'once' ? { applied: 'mayHaveApplied' as const } : {}) },
	);
}

export interface ApiResponse<T = unknown> {
	statusCode: number;
	/** Lower-case header names. */
	headers: Record<string, string>;
	body: T;
}

/** Like apiRequest, and also gives the status and headers of the answer (e.g. its Date header). */
export async function apiRequestWithResponse<T = unknown>(
	this: OllangContext,
	request: OllangRequest,
): Promise<ApiResponse<T>> {
	const response = await exchange.call(this, request, 'application/json', jsonPayload(request));
	return {
		statusCode: response.statusCode,
		headers: response.headers,
		body: readJsonAnswer.call(this, request, response) as T,
	};
}

/** Sends a JSON request and returns the parsed JSON answer (undefined for an allowed empty answer). */
export async function apiRequest<T = unknown>(this: OllangContext, request: OllangRequest): Promise<T> {
	return (await apiRequestWithResponse.call(this, request)).body as T;
}

/** A size for people: "16.0 MB". */
export function megabytes(bytes: number): string {
	return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function readJsonAnswer(this: OllangContext, request: OllangRequest, response: RawResponse): unknown {
	if (response.body.length > MAX_JSON_ANSWER_BYTES) {
		throw unexpectedResponse.call(
			this,
			request,
			`a JSON answer of at most ${megabytes(MAX_JSON_ANSWER_BYTES)}, got ${megabytes(response.body.length)}`,
			response.body.subarray(0, 200).toString('utf8'),
		);
	}
	const parsed = parseBodyText(response.body);
	if (parsed.isJson) return parsed.json;
	const empty = parsed.text.trim() === '';
	if (empty && request.expectBody === false) return undefined;
	throw unexpectedResponse.call(
		this,
		request,
		empty ? `a JSON body, got an empty answer (HTTP ${response.statusCode})` : 'a JSON body',
		parsed.text,
	);
}

/** Sends multipart/form-data built in memory (with a Content-Length) and returns the parsed JSON answer. */
export async function apiUploadMultipart<T = unknown>(
	this: OllangContext,
	request: OllangRequest & { parts: MultipartPart[] },
): Promise<T> {
	const { body, contentType } = buildMultipartBody(request.parts);
	const response = await exchange.call(this, request, 'application/json', {
		data: body,
		contentType,
	});
	return readJsonAnswer.call(this, request, response) as T;
}
