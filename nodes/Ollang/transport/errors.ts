import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

/**
 * How a failed request counts, for any caller (the trigger's polls, the actions):
 * - unauthorized / forbidden: the key or its rights are gone.
 * - notFound: the thing is not there (deleted, or not visible to this key).
 * - transient: 429, 5xx, a dropped connection or an unreadable answer, after the transport's own retries.
 * - blocked: n8n's SSRF protection refused the address; nothing was sent, and only a setting changes that.
 * - rejected: any other answer the service gave (the request itself is wrong).
 * - local: not an API answer (e.g. an invalid Base URL in the credential).
 */
export type FailureKind = 'unauthorized' | 'forbidden' | 'notFound' | 'transient' | 'blocked' | 'rejected' | 'local';

export function failureKind(error: unknown): FailureKind {
	if (!(error instanceof NodeApiError)) return 'local';
	if (!error.httpCode) return error.context.transportFailure === 'blocked' ? 'blocked' : 'transient';
	const status = Number(error.httpCode);
	if (status === 401) return 'unauthorized';
	if (status === 403) return 'forbidden';
	if (status === 404) return 'notFound';
	if (status === 408 || status === 429 || status >= 500) return 'transient';
	return 'rejected';
}

/** What the service may have done with a request that failed; only said for requests that are not safe to repeat. */
export type AppliedState = 'notApplied' | 'mayHaveApplied';

/**
 * What a failed request of a paid write did, as the write-once protocol reads it: typed on the error
 * (`context.applied`), never read from its words. Absent: not known, which counts as 'mayHaveApplied'.
 */
export function appliedStateOf(error: unknown): AppliedState | undefined {
	const context = (error as { context?: { applied?: unknown } } | undefined)?.context;
	return context?.applied === 'notApplied' || context?.applied === 'mayHaveApplied' ? context.applied : undefined;
}

/** Extra hints an operation knows about, keyed by HTTP status ("400") or API error code ("ORDER_NOT_ELIGIBLE"). */
export type ErrorHints = Partial<Record<string, string>>;

export interface ApiErrorDetails {
	/** The API's error code (shape A), e.g. ORDER_NOT_FOUND. */
	code?: string;
	/** The short error label (shapes B and C), e.g. "Bad Request". */
	label?: string;
	/** Every message the body carried: detail, message (each one of an array), in that order. */
	messages: string[];
}

const APPLIED_NOTES: Record<AppliedState, string> = {
	notApplied: 'The service did not act on this request, so nothing was changed or charged.',
	mayHaveApplied:
		'The request may have been applied; check before retrying (look at the order, memory or folder in Ollang), so nothing is done or charged twice.',
};

/** Hints that hold for every endpoint, by error code first, then by HTTP status. */
const GENERAL_HINTS: ErrorHints = {
	ORDER_NOT_ELIGIBLE:
		'Human review can be requested only for orders whose status is completed or delivered.',
	ORDER_NOT_FOUND: 'Check the order ID: no order with this ID is visible to this API key.',
	ACCESS_DENIED: "The API key's user has no access to this resource.",
	'401': 'Check the API key in the Ollang API credential: it is missing, wrong or revoked.',
	'404': 'Check the ID: the resource does not exist or is not visible to this API key.',
	'429': 'The service is rate limiting this key. Wait a little, or lower the number of items or the concurrency.',
};

/** Hints for a 403 that depend on the endpoint: the roles or rights it needs. */
const FORBIDDEN_HINTS: Array<{ path: RegExp; hint: string }> = [
	{
		path: /^\/integration\/(consumption|credits)\b/,
		hint: "Consumption and credit wallet need an API key whose user has the client_owner or client_accessBillings role. Ask an account owner to grant one of them, or use the owner's key.",
	},
	{
		path: /^\/integration\/folder\/[^/]+\/docs\b/,
		hint: "Changing a folder's documents needs write access to the folder for the API key's user.",
	},
	{
		path: /^\/integration\/orders\//,
		hint: "The API key's user has no access to this order: it belongs to another team or project.",
	},
];

function asText(value: unknown): string | undefined {
	if (typeof value === 'string' && value.trim() !== '') return value.trim();
	return undefined;
}

/** Reads every error body shape the API uses (A, B, C and production's {code:-1, error, message, detail}). */
export function readApiErrorBody(body: unknown): ApiErrorDetails {
	const messages: string[] = [];
	const add = (text: string | undefined) => {
		if (text !== undefined && !messages.includes(text)) messages.push(text);
	};
	if (body === null || typeof body !== 'object' || Array.isArray(body)) {
		add(asText(body));
		return { messages };
	}
	const record = body as Record<string, unknown>;
	add(asText(record.detail));
	if (Array.isArray(record.message)) {
		for (const entry of record.message) add(asText(entry) ?? asText(JSON.stringify(entry)));
	} else {
		add(asText(record.message));
	}
	const error = record.error;
	let label: string | undefined;
	if (typeof error === 'string') {
		label = asText(error);
	} else if (error !== null && typeof error === 'object') {
		// Some gateways nest the error: { error: { message, code } }.
		const nested = readApiErrorBody(error);
		nested.messages.forEach(add);
		label = nested.code ?? nested.label;
	}
	const code = asText(record.code) ?? (typeof record.code === 'number' && record.code > 0 ? String(record.code) : undefined);
	if (messages.length === 0 && label !== undefined) {
		add(label);
		label = undefined;
	}
	return { code, label, messages };
}

function findHint(status: number, details: ApiErrorDetails, path: string, extra: ErrorHints): string | undefined {
	const keys = [details.code, String(status)].filter((key): key is string => key !== undefined);
	for (const key of keys) {
		const hint = extra[key];
		if (hint !== undefined) return hint;
	}
	if (status === 403) {
		const match = FORBIDDEN_HINTS.find((entry) => entry.path.test(path));
		if (match) return match.hint;
	}
	for (const key of keys) {
		const hint = GENERAL_HINTS[key];
		if (hint !== undefined) return hint;
	}
	return undefined;
}

export interface ApiErrorInput {
	status: number;
	body: unknown;
	method: string;
	path: string;
	hints?: ErrorHints;
	applied?: AppliedState;
	attempts: number;
}

/** One sentence in the API's words: "The Ollang API answered 404 ORDER_NOT_FOUND: Order not found". */
export function describeApiError(input: ApiErrorInput): { message: string; description: string } {
	const details = readApiErrorBody(input.body);
	const label = details.code ?? details.label;
	const head = `The Ollang API answered ${input.status}${label ? ` ${label}` : ''}`;
	const words = details.messages.length > 0 ? details.messages.join('; ') : 'no error message';
	const retried = input.attempts > 1 ? ` (gave up after ${input.attempts} attempts)` : '';
	const message = `${head}: ${words}${retried}`;
	const parts = [`${input.method} ${input.path} failed with HTTP ${input.status}.`];
	const hint = findHint(input.status, details, input.path, input.hints ?? {});
	if (hint) parts.push(hint);
	if (input.applied) parts.push(APPLIED_NOTES[input.applied]);
	return { message, description: parts.join(' ') };
}

/**
 * Builds the NodeApiError from clean data only: never from n8n's own request error, which can carry
 * the request options and so the API key header.
 */
export function createApiError(
	node: INode,
	message: string,
	description: string,
	options: { status?: number; body?: unknown; itemIndex?: number; applied?: AppliedState },
): NodeApiError {
	const response: JsonObject = { message, description };
	if (options.status !== undefined) response.httpCode = String(options.status);
	if (options.body !== undefined) response.body = options.body as JsonObject;
	const error = new NodeApiError(node, response, {
		message,
		description,
		httpCode: options.status !== undefined ? String(options.status) : undefined,
		itemIndex: options.itemIndex,
	});
	// NodeApiError rewrites messages that contain certain words (e.g. "ECONNREFUSED") into generic ones; keep ours.
	error.message = message;
	error.description = description;
	if (options.applied !== undefined) error.context.applied = options.applied;
	return error;
}

export function appliedNote(state: AppliedState): string {
	return APPLIED_NOTES[state];
}
