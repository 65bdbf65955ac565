import type {
	IBinaryData,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
} from 'n8n-workflow';
import { BINARY_ENCODING, NodeOperationError, sleep, UserError } from 'n8n-workflow';

import type { AppliedState, ErrorHints } from './errors';
import { appliedNote, createApiError, describeApiError, readApiErrorBody } from './errors';
import type { MultipartPart } from './multipart';
import { buildMultipartBody } from './multipart';

export type { ErrorHints } from './errors';
export type { MultipartPart } from './multipart';
export { filePart, textPart } from './multipart';

export type OllangContext = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions;

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
	baseDelayMs: 500,
	maxBackoffMs: 8_000,
	maxRetryAfterMs: 30_000,
	maxRedirects: 5,
} as const;

export const DEFAULT_TIMEOUT_MS = 60_000;
/** Largest JSON answer read: the API's biggest (a page, the memories) are far smaller; more is not this API. */
export const MAX_JSON_ANSWER_BYTES = 16 * 1024 * 1024;
export const MAX_PAGE_SIZE = 50;
/** Pages fetched at the same time after page 1, unless the operation's Parallel Page Requests option says otherwise. */
export const DEFAULT_PAGE_CONCURRENCY = 10;
/** The most the Parallel Page Requests option allows. */
export const MAX_PAGE_CONCURRENCY = 10;

// ---------------------------------------------------------------------------------------------------------------
// Path ids

/** Why a value cannot be used as a path id, or undefined when it can. One rule for apiPath and for field checks. */
export function pathIdProblem(value: unknown): string | undefined {
	if (value === undefined || value === null) return 'must not be empty';
	if (typeof value !== 'string' && typeof value !== 'number') return 'must be a text ID';
	const id = String(value).trim();
	if (id === '') return 'must not be empty';
	if (id.includes('/')) return "must not contain '/'";
	if (id.includes('..')) return "must not contain '..'";
	if (id === '.') return "must not be '.'";
	return undefined;
}

/** Template tag for API paths: each interpolated id is validated (pathIdProblem) and URL-encoded. */
export function apiPath(strings: TemplateStringsArray, ...ids: string[]): string {
	let path = strings[0];
	ids.forEach((id, index) => {
		const problem = pathIdProblem(id);
		if (problem !== undefined) {
			throw new UserError(`The ID "${String(id)}" in ${strings.join('{id}')} ${problem}`);
		}
		path += encodeURIComponent(String(id).trim()) + strings[index + 1];
	});
	return path;
}

// ---------------------------------------------------------------------------------------------------------------
// Base URL and credentials

interface OllangCredentials {
	apiKey: string;
	baseUrl: string;
}

function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase();
	return (
		host === 'localhost' ||
		host === '[::1]' ||
		host === '::1' ||
		/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
	);
}

/** Why a base URL is refused, or undefined when it is usable: https, or http on loopback only. */
export function baseUrlProblem(raw: string): string | undefined {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return `"${raw}" is not a valid URL`;
	}
	if (url.protocol === 'https:') return undefined;
	if (url.protocol === 'http:') {
		if (isLoopbackHost(url.hostname)) return undefined;
		return `"${url.origin}" uses plain http to a remote host, which would send the API key unencrypted: use https (plain http is allowed only for localhost, 127.x.x.x and [::1])`;
	}
	return `"${raw}" must start with https://`;
}

interface Target {
	/** Origin plus any path prefix, without a trailing slash. */
	base: string;
	origin: string;
	apiKey: string;
	/** The credential as resolved, handed to httpRequestWithAuthentication so it is not decrypted again. */
	credential: ICredentialsDecrypted;
}

async function resolveTarget(this: OllangContext, itemIndex: number | undefined): Promise<Target> {
	const credentials = await this.getCredentials<OllangCredentials>(CREDENTIAL_TYPE, itemIndex);
	const raw = String(credentials.baseUrl ?? '').trim();
	const problem = baseUrlProblem(raw);
	if (problem !== undefined) {
		throw new NodeOperationError(this.getNode(), `Invalid Base URL in the Ollang API credential: ${problem}`, {
			itemIndex,
			description: 'Nothing was sent. Fix the Base URL in the credential.',
		});
	}
	const url = new URL(raw);
	const prefix = url.pathname.replace(/\/+$/, '');
	const reference = this.getNode().credentials?.[CREDENTIAL_TYPE];
	return {
		base: `${url.origin}${prefix}`,
		origin: url.origin,
		apiKey: String(credentials.apiKey ?? ''),
		credential: {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: CREDENTIAL_TYPE,
			data: { ...credentials },
		},
	};
}

/**
 * Targets resolved in an execute context, per item index (a credential may hold expressions that read the item).
 * n8n builds a new execute context for every run of a node, so nothing outlives the execution; a poll context
 * lives as long as the activation, so polls resolve the credential for every request and see a changed key.
 */
const resolvedTargets = new WeakMap<IExecuteFunctions, Map<number | undefined, Promise<Target>>>();

function isExecuteContext(ctx: OllangContext): ctx is IExecuteFunctions {
	return 'getInputData' in ctx;
}

/** The credential and base URL once per execution and item, not once per request (each resolution decrypts). */
function targetFor(this: OllangContext, itemIndex: number | undefined): Promise<Target> {
	if (!isExecuteContext(this)) return resolveTarget.call(this, itemIndex);
	let targets = resolvedTargets.get(this);
	if (targets === undefined) {
		targets = new Map();
		resolvedTargets.set(this, targets);
	}
	let target = targets.get(itemIndex);
	if (target === undefined) {
		target = resolveTarget.call(this, itemIndex);
		targets.set(itemIndex, target);
		const cached = targets;
		// A failure is not kept: the next request asks again.
		target.catch(() => cached.delete(itemIndex));
	}
	return target;
}

/** Replaces the API key wherever it might appear in text we show. */
function redactor(apiKey: string): (text: string) => string {
	if (apiKey.length < 4) return (text) => text;
	return (text) => text.split(apiKey).join('[redacted]');
}

function redactValue(value: unknown, redact: (text: string) => string): unknown {
	if (typeof value === 'string') return redact(value);
	if (Array.isArray(value)) return value.map((entry) => redactValue(entry, redact));
	if (value !== null && typeof value === 'object') {
		const copy: Record<string, unknown> = {};
		for (const [key, entry] of Object.entries(value)) copy[key] = redactValue(entry, redact);
		return copy;
	}
	return value;
}

/**
 * Takes the key out of an answer (a debugging proxy or a careless service may echo it), so that no output or error
 * built from the answer can carry it. A file holding the key comes out altered: better than passing the key on.
 */
function redactBody(body: Buffer, apiKey: string, redact: (text: string) => string): Buffer {
	if (apiKey.length < 4 || !body.includes(apiKey)) return body;
	return Buffer.from(redact(body.toString('utf8')), 'utf8');
}

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

// ---------------------------------------------------------------------------------------------------------------
// One exchange with retries

interface RawResponse {
	statusCode: number;
	headers: Record<string, string>;
	/** The whole body; empty when a 2xx answer was asked for as a stream. */
	body: Buffer;
	/** A 2xx answer's body, not yet read, when the exchange was asked to stream it. */
	stream?: BodyStream;
}

/** A response body as n8n's HTTP helper gives it with encoding 'stream' (what prepareBinaryData takes). */
type BodyStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

async function readStream(stream: BodyStream): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(toBuffer(chunk));
	return Buffer.concat(chunks);
}

interface Payload {
	data: Buffer | string;
	contentType: string;
}

type FailureKind = 'refused' | 'dns' | 'timeout' | 'dropped' | 'cancelled' | 'other';

interface TransportFailure {
	kind: FailureKind;
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

function errorCodes(error: unknown): string[] {
	const codes: string[] = [];
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (current !== null && typeof current === 'object' && !seen.has(current)) {
		seen.add(current);
		const code = (current as { code?: unknown }).code;
		if (typeof code === 'string') codes.push(code);
		current = (current as { cause?: unknown }).cause;
	}
	return codes;
}

function classifyFailure(error: unknown): TransportFailure {
	const codes = errorCodes(error);
	const text = error instanceof Error ? error.message : String(error);
	const has = (code: string) => codes.includes(code);
	// Only a cancelled execution gives ERR_CANCELED; a response stream that was cut ("stream has been aborted",
	// ERR_BAD_RESPONSE) is a dropped connection.
	if (has('ERR_CANCELED')) return { kind: 'cancelled', code: 'ERR_CANCELED', text };
	if (has('ECONNREFUSED')) return { kind: 'refused', code: 'ECONNREFUSED', text };
	if (has('ENOTFOUND') || has('EAI_AGAIN')) return { kind: 'dns', code: codes.find((c) => c.startsWith('E')), text };
	if (has('ETIMEDOUT') || has('ECONNABORTED') || /timeout/i.test(text)) {
		return { kind: 'timeout', code: has('ETIMEDOUT') ? 'ETIMEDOUT' : 'ECONNABORTED', text };
	}
	const dropped = codes.find((code) => DROPPED_CODES.has(code));
	if (dropped !== undefined || /socket hang up|terminated/i.test(text)) {
		return { kind: 'dropped', code: dropped ?? 'ECONNRESET', text };
	}
	return { kind: 'other', code: codes[0], text };
}

function failureRetryable(failure: TransportFailure, retry: OllangRequest['retry']): boolean {
	if (failure.kind === 'refused') return true;
	if (failure.kind === 'dns') return failure.code === 'EAI_AGAIN';
	if (retry === 'once') return false;
	return failure.kind === 'timeout' || failure.kind === 'dropped';
}

function statusRetryable(status: number, request: OllangRequest, body: unknown): boolean {
	const lasting = request.lastingErrors?.some(
		(known) => known.status === status && readApiErrorBody(body).messages.some((message) => known.message.test(message)),
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

function normalizeHeaders(headers: unknown): Record<string, string> {
	const result: Record<string, string> = {};
	if (headers === null || typeof headers !== 'object') return result;
	for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
		if (value === undefined || value === null) continue;
		result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
	}
	return result;
}

function toBuffer(body: unknown): Buffer {
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
	if (body === undefined || body === null) return Buffer.alloc(0);
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	return Buffer.from(JSON.stringify(body), 'utf8');
}

function parseBodyText(body: Buffer): { json?: unknown; text: string; isJson: boolean } {
	const text = body.toString('utf8');
	if (text.trim() === '') return { text, isJson: false };
	try {
		return { json: JSON.parse(text), text, isJson: true };
	} catch {
		return { text, isJson: false };
	}
}

/** The start of a body as one line; an HTML page (a proxy's error page) as its text, without markup. */
function snippet(text: string): string {
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

async function exchange(
	this: OllangContext,
	request: OllangRequest,
	accept: string,
	payload?: Payload,
	/** Hand a 2xx body over as a stream; other answers are read whole, as always, to be shaped into errors. */
	streamBody = false,
): Promise<RawResponse> {
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
				return { statusCode: raw.statusCode, headers: responseHeaders, body: Buffer.alloc(0), stream };
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
				applied = status >= 500 ? 'mayHaveApplied' : 'notApplied';
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

function connectionError(
	this: OllangContext,
	failure: TransportFailure,
	request: OllangRequest,
	method: string,
	origin: string,
	attempts: number,
	redact: (text: string) => string,
) {
	const what: Record<FailureKind, string> = {
		refused: `the connection to ${origin} was refused`,
		dns: `the host of ${origin} could not be resolved`,
		timeout: `no answer from ${origin} within ${request.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`,
		dropped: `the connection to ${origin} was dropped before an answer arrived`,
		cancelled: 'the execution was cancelled',
		other: `the request to ${origin} failed`,
	};
	const code = failure.code ? ` (${failure.code})` : '';
	const retried = attempts > 1 ? ` (gave up after ${attempts} attempts)` : '';
	const message = `Could not complete ${method} ${request.path}: ${what[failure.kind]}${code}${retried}`;
	const parts = [`Cause: ${failure.text}.`];
	if (failure.kind === 'refused' || failure.kind === 'dns') {
		parts.push('Check the Base URL in the Ollang API credential and that the service is reachable.');
	}
	if (request.retry === 'once') {
		const state: AppliedState =
			failure.kind === 'refused' || failure.kind === 'dns' ? 'notApplied' : 'mayHaveApplied';
		parts.push(appliedNote(state));
	}
	return createApiError(this.getNode(), redact(message), redact(parts.join(' ')), {
		itemIndex: request.itemIndex,
	});
}

// ---------------------------------------------------------------------------------------------------------------
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
		{ itemIndex: request.itemIndex },
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
	const payload: Payload | undefined =
		request.body !== undefined
			? { data: JSON.stringify(request.body), contentType: 'application/json' }
			: undefined;
	const response = await exchange.call(this, request, 'application/json', payload);
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

/** File name from a Content-Disposition header (filename*=UTF-8'' preferred over filename=). */
export function fileNameFromContentDisposition(header: string | undefined): string | undefined {
	if (!header) return undefined;
	const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
	if (extended) {
		try {
			return decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ''));
		} catch {
			// A malformed percent-encoding: fall back to the plain filename parameter below.
		}
	}
	const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(header);
	if (!plain) return undefined;
	const name = (plain[2] ?? plain[1]).trim();
	return name === '' ? undefined : name;
}

/** What a file answer says about itself (Content-Disposition, Content-Type), for the caller to complete. */
export interface FileAnswer {
	fileName?: string;
	mimeType?: string;
}

/** A downloaded file in n8n's binary data store, with the name and type it was stored under and its size. */
export interface StoredDownload {
	binary: IBinaryData;
	fileName: string;
	mimeType: string;
	fileSize: number;
}

const SCAN_CHUNK_BYTES = 64 * 1024;

/** The bytes of a stored file; only for the rare file that must be rewritten. */
async function storedBytes(ctx: IExecuteFunctions, binary: IBinaryData): Promise<Buffer> {
	if (binary.id === undefined) return Buffer.from(binary.data, BINARY_ENCODING);
	return await ctx.helpers.binaryToBuffer(await ctx.helpers.getBinaryStream(binary.id));
}

/**
 * Whether a stored file holds the text, read a chunk at a time. Each chunk is searched where it lies; only the
 * few bytes around a chunk boundary (where a match may straddle two chunks) are copied, so the scan adds no
 * copy of the file to the peak memory of a large export.
 */
async function storedFileIncludes(ctx: IExecuteFunctions, binary: IBinaryData, text: string): Promise<boolean> {
	const needle = Buffer.from(text, 'utf8');
	if (binary.id === undefined) return Buffer.from(binary.data, BINARY_ENCODING).includes(needle);
	const overlap = needle.length - 1;
	let tail = Buffer.alloc(0);
	for await (const raw of await ctx.helpers.getBinaryStream(binary.id, SCAN_CHUNK_BYTES)) {
		const chunk = toBuffer(raw);
		if (chunk.includes(needle)) return true;
		if (Buffer.concat([tail, chunk.subarray(0, overlap)]).includes(needle)) return true;
		tail =
			chunk.length >= overlap
				? Buffer.from(chunk.subarray(chunk.length - overlap))
				: Buffer.concat([tail, chunk]).subarray(-overlap);
	}
	return false;
}

/** Whether a file type is readable text (where an echoed key would be plain bytes). */
function isTextLike(mimeType: string): boolean {
	return /^text\/|[/+](json|xml|csv)$|^application\/(x-)?(subrip|vtt)/i.test(mimeType);
}

/**
 * Downloads a file answer (e.g. an XLSX export) straight into n8n's binary data store: the body streams to the
 * store and is never held whole in memory. Status and headers are checked first; an error answer is read and
 * shaped as for any request. A connection lost while the body streams is retried like any other for a safe
 * request. `name` gives the stored file its name and type from what the answer says.
 */
export async function apiDownloadBinary(
	this: IExecuteFunctions,
	request: OllangRequest,
	name: (answer: FileAnswer) => { fileName: string; mimeType: string },
): Promise<StoredDownload> {
	const target = await targetFor.call(this, request.itemIndex);
	const redact = redactor(target.apiKey);
	for (let attempt = 1; ; attempt++) {
		const response = await exchange.call(this, request, '*/*', undefined, true);
		const stream = response.stream as BodyStream;
		const answer: FileAnswer = {
			fileName: fileNameFromContentDisposition(response.headers['content-disposition']),
			mimeType: response.headers['content-type']?.split(';')[0].trim() || undefined,
		};
		if (answer.mimeType === 'application/json') {
			const text = redact((await readStream(stream)).toString('utf8'));
			throw unexpectedResponse.call(this, request, 'a file', text);
		}
		const { fileName, mimeType } = name(answer);
		let binary: IBinaryData;
		try {
			binary = await this.helpers.prepareBinaryData(stream, fileName, mimeType);
		} catch (error) {
			const failure = classifyFailure(error);
			// Not the connection (the store could not write, say): that error, tied to the item.
			if (failure.kind === 'other') {
				throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: request.itemIndex });
			}
			const retriesLeft = attempt <= RETRY_POLICY.maxRetries;
			if (failure.kind !== 'cancelled' && failureRetryable(failure, request.retry) && retriesLeft) {
				await sleep(backoffDelay(attempt));
				continue;
			}
			throw connectionError.call(this, failure, request, request.method, target.origin, attempt, redact);
		}
		const fileSize = binary.bytes ?? (await storedBytes(this, binary)).length;
		if (fileSize === 0) throw unexpectedResponse.call(this, request, 'a file, got an empty answer', undefined);
		// As for every answer, the key does not pass on (a careless service may echo it): a text file holding it is
		// stored again without it. Checked in the store, a chunk at a time, so the file is not held whole. Compressed
		// formats (an XLSX is a zip) are not searched: an echoed key inside them is not readable bytes, so a byte
		// scan would find nothing and only cost a second pass over the file.
		if (
			target.apiKey.length >= 4 &&
			isTextLike(mimeType) &&
			(await storedFileIncludes(this, binary, target.apiKey))
		) {
			const cleaned = redactBody(await storedBytes(this, binary), target.apiKey, redact);
			binary = await this.helpers.prepareBinaryData(cleaned, fileName, mimeType);
			return { binary, fileName, mimeType, fileSize: cleaned.length };
		}
		return { binary, fileName, mimeType, fileSize };
	}
}

/** Sends multipart/form-data built in memory (with a Content-Length) and returns the parsed JSON answer. */
export async function apiUploadMultipart<T = unknown>(
	this: OllangContext,
	request: OllangRequest & { parts: MultipartPart[] },
): Promise<T> {
	const { body, contentType } = buildMultipartBody(request.parts);
	const response = await exchange.call(this, request, 'application/json', { data: body, contentType });
	return readJsonAnswer.call(this, request, response) as T;
}

// ---------------------------------------------------------------------------------------------------------------
// Paging (nested style: pageOptions[page], pageOptions[take] <= 50, answer { data, meta })

export interface PagingOptions {
	returnAll: boolean;
	/** Needed when returnAll is false. */
	limit?: number;
	/** Pages fetched at the same time after page 1 (default 4). */
	concurrency?: number;
	/** pageOptions[take], 1 to 50 (default 50). */
	pageSize?: number;
	/** Called with each page's number and answer headers (e.g. to read the service's Date). */
	onPage?: (page: number, headers: Record<string, string>) => void;
}

interface PageAnswer<T> {
	data: T[];
	meta: { pageCount?: number; hasNextPage?: boolean };
}

function isPageAnswer<T>(value: unknown): value is PageAnswer<T> {
	if (value === null || typeof value !== 'object') return false;
	const candidate = value as { data?: unknown; meta?: unknown };
	return (
		Array.isArray(candidate.data) &&
		// Every row of a listing is a record.
		candidate.data.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row)) &&
		candidate.meta !== null &&
		typeof candidate.meta === 'object'
	);
}

/** How one task of settleConcurrent ended. */
export type Settled<O> = { ok: true; value: O } | { ok: false; error: unknown };

/**
 * Runs `task` over inputs with at most `concurrency` at once, starting them in input order, and waits for every
 * task it started; results keep the input order. With `stopAfterFailure`, no task starts once one has failed:
 * those inputs have no result (undefined), and every input before the failed one has been started.
 */
export async function settleConcurrent<I, O>(
	inputs: I[],
	concurrency: number,
	task: (input: I, index: number) => Promise<O>,
	options: { stopAfterFailure: boolean },
): Promise<Array<Settled<O> | undefined>> {
	const results = new Array<Settled<O> | undefined>(inputs.length).fill(undefined);
	let next = 0;
	let failed = false;
	const worker = async () => {
		while (!(failed && options.stopAfterFailure) && next < inputs.length) {
			const index = next++;
			try {
				results[index] = { ok: true, value: await task(inputs[index], index) };
			} catch (error) {
				failed = true;
				results[index] = { ok: false, error };
			}
		}
	};
	const workers = Array.from({ length: Math.max(1, Math.min(concurrency, inputs.length)) }, worker);
	await Promise.all(workers);
	return results;
}

/**
 * Runs fn over inputs with at most `concurrency` at once; results keep the input order. After a failure nothing
 * new starts, the calls under way finish, and the first failure in input order is thrown.
 */
export async function mapConcurrent<I, O>(
	inputs: I[],
	concurrency: number,
	fn: (input: I, index: number) => Promise<O>,
): Promise<O[]> {
	const settled = await settleConcurrent(inputs, concurrency, fn, { stopAfterFailure: true });
	const values: O[] = [];
	// Started inputs are a prefix of the list, so the first failure comes before any input left unstarted.
	for (const outcome of settled) {
		if (outcome === undefined) break;
		if (!outcome.ok) throw outcome.error;
		values.push(outcome.value);
	}
	return values;
}

/**
 * Fetches page 1, then the remaining pages concurrently (bounded), and returns the rows in page order.
 * With a limit, only the pages needed for it are fetched.
 */
export async function apiRequestAllPages<T = IDataObject>(
	this: OllangContext,
	request: OllangRequest,
	paging: PagingOptions,
): Promise<T[]> {
	const limit = paging.returnAll ? Infinity : Math.max(1, Math.floor(paging.limit ?? MAX_PAGE_SIZE));
	const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(paging.pageSize ?? MAX_PAGE_SIZE)));
	const take = Math.min(pageSize, limit);
	const concurrency = Math.max(1, Math.floor(paging.concurrency ?? DEFAULT_PAGE_CONCURRENCY));

	const fetchPage = async (page: number): Promise<PageAnswer<T>> => {
		const pageRequest: OllangRequest = {
			...request,
			qs: { ...request.qs, 'pageOptions[page]': page, 'pageOptions[take]': take },
		};
		const response = await apiRequestWithResponse.call(this, pageRequest);
		const answer = response.body;
		if (!isPageAnswer<T>(answer)) {
			throw unexpectedResponse.call(this, pageRequest, 'a page: { data: [objects], meta: {...} }', answer);
		}
		paging.onPage?.(page, response.headers);
		return answer;
	};

	const first = await fetchPage(1);
	const rows: T[] = [...first.data];
	const pagesNeeded = Number.isFinite(limit) ? Math.ceil(limit / take) : Infinity;
	const pageCount = first.meta.pageCount;

	if (typeof pageCount === 'number' && Number.isFinite(pageCount)) {
		const lastPage = Math.min(pageCount, pagesNeeded);
		const pages: number[] = [];
		for (let page = 2; page <= lastPage; page++) pages.push(page);
		const answers = await mapConcurrent(pages, concurrency, fetchPage);
		for (const answer of answers) rows.push(...answer.data);
	} else {
		// No page count: follow hasNextPage one page at a time.
		let answer = first;
		let page = 1;
		while (answer.meta.hasNextPage === true && page < pagesNeeded && answer.data.length > 0) {
			page++;
			answer = await fetchPage(page);
			rows.push(...answer.data);
		}
	}
	return Number.isFinite(limit) ? rows.slice(0, limit) : rows;
}
