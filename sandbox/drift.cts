import { shapeB } from './http/errors.cts';
import type { Reply } from './http/server.cts';
import type { UserRecord } from './types.cts';

/**
 * Drift modes: the sandbox answers as a changed or hostile service would, so the contract check (`npm run contract`)
 * can be shown to see each change. Contract drift: a renamed field, a changed type, a removed endpoint, an extra
 * field, a key without rights, review info served on the SDK's path only. Hostile answers: an HTML error page, JSON
 * cut off, a 200 with an empty body, a redirect to another host.
 */
export const DRIFT_MODES = {
	'renamed-field': 'GET /integration/credits answers creditsRemaining instead of remainingCredits',
	'changed-type': 'GET /integration/orders/:orderId answers finance.paymentAmount as a string',
	'removed-endpoint': 'GET /integration/locales/languages answers 404 (Cannot GET)',
	'extra-field': 'GET /integration/orders/:orderId adds a field dueAt',
	'no-rights': 'every key lacks the billing roles: consumption and credits answer 403 ACCESS_DENIED',
	'review-info-moved': "review info answers 404 on the spec's path and only on the SDK's path",
	'html-error': 'every API route answers 503 with an HTML error page (a gateway)',
	'truncated-json': 'every JSON answer is cut off halfway',
	'empty-body': 'every JSON answer is a 200 with an empty body',
	redirect: 'every API route redirects (302) to another host',
} as const;

export type DriftMode = keyof typeof DRIFT_MODES;

export function isDriftMode(value: string): value is DriftMode {
	return Object.hasOwn(DRIFT_MODES, value);
}

/** The users behind the keys, without their roles in the no-rights mode. */
export function driftUsers(modes: readonly DriftMode[], users: ReadonlyMap<string, UserRecord>): ReadonlyMap<string, UserRecord> {
	if (!modes.includes('no-rights')) return users;
	return new Map([...users].map(([key, user]) => [key, { ...user, roles: [] }]));
}

function raw(status: number, contentType: string, bytes: Buffer | string, headers: Record<string, string> = {}): Reply {
	return {
		status,
		headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(bytes)), ...headers },
		stream: async (out) => {
			out.end(bytes);
		},
	};
}

const GATEWAY_PAGE = '<!DOCTYPE html><html><head><title>503 Service Temporarily Unavailable</title></head><body><center><h1>503 Service Temporarily Unavailable</h1></center><hr><center>nginx</center></body></html>';

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The reply of an API route (pattern: the route's, null when none matched) as the drift modes change it. */
export function applyDrift(modes: readonly DriftMode[], method: string, pattern: string | null, pathname: string, reply: Reply): Reply {
	if (modes.length === 0) return reply;
	const route = `${method} ${pattern ?? ''}`;
	if (modes.includes('redirect')) return { status: 302, headers: { location: `https://elsewhere.invalid${pathname}` } };
	if (modes.includes('html-error')) return raw(503, 'text/html', GATEWAY_PAGE);
	if (modes.includes('removed-endpoint') && route === 'GET /integration/locales/languages') return notFound(method, pathname);
	if (modes.includes('review-info-moved') && route === 'GET /v1/api/client/orders/:orderId/review/info') return notFound(method, pathname);
	const ok = reply.status >= 200 && reply.status < 300 && reply.body !== undefined && reply.stream === undefined;
	if (!ok) return reply;
	let body = reply.body;
	if (modes.includes('renamed-field') && route === 'GET /integration/credits' && isRecord(body)) {
		const { remainingCredits, ...rest } = body;
		body = { ...rest, creditsRemaining: remainingCredits };
	}
	if (route === 'GET /integration/orders/:orderId' && isRecord(body)) {
		let order: Record<string, unknown> = body;
		const finance = order.finance;
		if (modes.includes('changed-type') && isRecord(finance)) order = { ...order, finance: { ...finance, paymentAmount: String(finance.paymentAmount) } };
		if (modes.includes('extra-field')) order = { ...order, dueAt: null };
		body = order;
	}
	if (modes.includes('empty-body')) return raw(200, 'application/json; charset=utf-8', '');
	const text = JSON.stringify(body);
	if (modes.includes('truncated-json')) return raw(reply.status, 'application/json; charset=utf-8', text.slice(0, Math.max(1, Math.floor(text.length / 2))));
	return { ...reply, body };
}

function notFound(method: string, pathname: string): Reply {
	const error = shapeB(404, `Cannot ${method} ${pathname}`);
	return { status: error.status, body: error.body };
}
