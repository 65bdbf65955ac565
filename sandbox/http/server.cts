import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { authenticate, type AuthShape } from '../auth.cts';
import type { FaultInjector, FaultRule } from '../faults.cts';
import type { RequestLog, RequestRecord } from '../requestLog.cts';
import type { UserRecord } from '../types.cts';
import type { World } from '../world.cts';
import { ApiError, internalServerError, shapeB, statusText } from './errors.cts';
import { parseQuery, type QueryObject } from './query.cts';
import type { Router } from './router.cts';

export interface Reply {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
	/** Streams the body; called only when the reply is actually sent (an 'after' fault may replace it). */
	stream?: (out: Writable) => Promise<void>;
}

export interface ApiContext {
	world: World;
	user: UserRecord;
	params: Record<string, string>;
	query: QueryObject;
	req: IncomingMessage;
}

export interface ApiRoute {
	method: string;
	pattern: string;
	/** The 401 body shape, or 'none' for the one public route (GET /health), which never reads ctx.user. */
	auth: AuthShape | 'none';
	handler: (ctx: ApiContext) => Reply | Promise<Reply>;
}

export interface AdminContext {
	params: Record<string, string>;
	req: IncomingMessage;
}

export interface AdminRoute {
	method: string;
	pattern: string;
	handler: (ctx: AdminContext) => Reply | Promise<Reply>;
}

export interface ServerDeps {
	world: World;
	api: Router<ApiRoute>;
	admin: Router<AdminRoute>;
	faults: FaultInjector;
	requests: RequestLog;
	/** Users by API key. */
	keys: ReadonlyMap<string, UserRecord>;
	latencyMs: () => number;
	/** Aborted when the sandbox closes, so pending waits end at once. */
	signal: AbortSignal;
	quiet: boolean;
	/** Drift modes (sandbox/drift.cts): changes a route's reply as a changed or hostile service would. */
	drift?: (method: string, pattern: string | null, pathname: string, reply: Reply) => Reply;
}

export const ADMIN_PREFIX = '/__sandbox/';

/** The caller of a route without authentication: no roles, and no handler of such a route reads it. */
const ANONYMOUS: UserRecord = { id: 'anonymous', name: 'Anonymous', email: '', roles: [], tags: [], folderRestrictions: new Map() };

export function createRequestHandler(deps: ServerDeps): (req: IncomingMessage, res: ServerResponse) => void {
	return (req, res) => {
		const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
		const handling = url.pathname.startsWith(ADMIN_PREFIX) ? handleAdmin(deps, req, res, url) : handleApi(deps, req, res, url);
		handling.catch((error: unknown) => {
			if (!deps.signal.aborted && !deps.quiet) console.error('[sandbox] request failed:', error);
			if (!res.headersSent && !res.destroyed) send(res, errorReply(internalServerError())).catch(() => res.destroy());
			else res.destroy();
		});
	};
}

/**
 * One API request: latency -> 'before' faults -> route -> auth -> handler -> 'after' faults -> response.
 * Faults act like a gateway in front of the service, so they apply before authentication.
 */
async function handleApi(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const method = (req.method ?? 'GET').toUpperCase();
	const pathname = url.pathname;
	const started = performance.now();
	// HEAD is answered as GET without the body, as Express does for every GET route.
	const match = deps.api.match(method, pathname) ?? (method === 'HEAD' ? deps.api.match('GET', pathname) : null);
	const record: RequestRecord = {
		method,
		path: pathname,
		route: match?.route.pattern ?? null,
		status: null,
		at: deps.world.clock.nowIso(),
		receivedAtMs: Date.now(),
		durationMs: 0,
	};
	deps.requests.add(record);
	res.on('close', () => {
		deps.requests.closed();
		record.status = res.headersSent ? res.statusCode : null;
		record.durationMs = Math.round(performance.now() - started);
	});

	const latency = deps.latencyMs();
	if (latency > 0) await pause(deps, latency);
	// The simulated clock is the service's clock: clients (the trigger's baseline) read "now" from Date. Node would
	// send wall time; a header set here is kept by writeHead, for handler, error and fault replies alike.
	res.setHeader('date', deps.world.clock.now().toUTCString());

	if (await applyFaults(deps, 'before', method, pathname, req, res, record)) return;

	let reply: Reply;
	try {
		if (!match) throw shapeB(404, `Cannot ${method} ${pathname}`);
		const user = match.route.auth === 'none' ? ANONYMOUS : authenticate(req, deps.keys, match.route.auth);
		if (user !== ANONYMOUS) record.userId = user.id;
		reply = await match.route.handler({ world: deps.world, user, params: match.params, query: parseQuery(url.searchParams), req });
	} catch (error) {
		reply = errorReply(toApiError(error, deps));
	}
	if (deps.drift) reply = deps.drift(method, match?.route.pattern ?? null, pathname, reply);

	if (await applyFaults(deps, 'after', method, pathname, req, res, record)) return;
	await send(res, reply);
}

/** Returns true when a fault answered (or dropped) the request. */
async function applyFaults(
	deps: ServerDeps,
	when: 'before' | 'after',
	method: string,
	pathname: string,
	req: IncomingMessage,
	res: ServerResponse,
	record: RequestRecord,
): Promise<boolean> {
	for (const rule of deps.faults.take(when, method, pathname)) {
		record.fault = rule.kind;
		if (rule.kind === 'delay') {
			await pause(deps, rule.delayMs ?? 0);
			continue;
		}
		if (rule.kind === 'drop') {
			req.socket.destroy();
			return true;
		}
		await send(res, faultReply(rule));
		return true;
	}
	return false;
}

function faultReply(rule: FaultRule): Reply {
	const status = rule.status as number;
	const reply = errorReply(shapeB(status, statusText(status)));
	if (rule.retryAfterSeconds !== undefined) reply.headers = { ...reply.headers, 'retry-after': String(rule.retryAfterSeconds) };
	return reply;
}

async function pause(deps: ServerDeps, ms: number): Promise<void> {
	try {
		await sleep(ms, undefined, { signal: deps.signal });
	} catch {
		// The sandbox is closing; the connection is about to be closed too.
	}
}

function toApiError(error: unknown, deps: ServerDeps): ApiError {
	if (error instanceof ApiError) return error;
	if (!deps.quiet) console.error('[sandbox] handler error:', error);
	return internalServerError();
}

export function errorReply(error: ApiError): Reply {
	return { status: error.status, body: error.body, headers: error.headers };
}

export async function send(res: ServerResponse, reply: Reply): Promise<void> {
	if (res.destroyed) return;
	const headers: Record<string, string> = { ...reply.headers };
	// A HEAD answer has GET's headers and no body; node drops a written body itself, a stream is not started.
	if (reply.stream && res.req?.method === 'HEAD') {
		res.writeHead(reply.status, headers);
		res.end();
		return;
	}
	if (reply.stream) {
		res.writeHead(reply.status, headers);
		try {
			await reply.stream(res);
		} catch {
			res.destroy();
		}
		return;
	}
	if (reply.body === undefined || reply.status === 204) {
		res.writeHead(reply.status, headers);
		res.end();
		return;
	}
	const payload = Buffer.from(JSON.stringify(reply.body));
	headers['content-type'] = 'application/json; charset=utf-8';
	headers['content-length'] = String(payload.length);
	res.writeHead(reply.status, headers);
	res.end(payload);
}

/**
 * Requests node's HTTP parser cannot read (a Content-Length shorter than the body leaves bytes that do not start a
 * request; a garbled request line; headers too large) get the API's JSON error body, shape B, and the connection
 * closes, instead of node's bare status line.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
	// As node's own handler does: no status line into a response already on its way (its private _httpMessage).
	const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
	if (!socket.writable || error.code === 'ECONNRESET' || inFlight?.headersSent) {
		socket.destroy();
		return;
	}
	const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
	const reason = statusText(status);
	const body = JSON.stringify({ statusCode: status, message: `${reason}: the request could not be parsed (${error.code ?? error.message})`, error: reason });
	socket.end(
		`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
	);
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

async function handleAdmin(deps: ServerDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
	const method = (req.method ?? 'GET').toUpperCase();
	let reply: Reply;
	try {
		if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) throw shapeB(403, 'The sandbox admin routes answer loopback clients only');
		const match = deps.admin.match(method, url.pathname);
		if (!match) throw shapeB(404, `Cannot ${method} ${url.pathname}`);
		reply = await match.route.handler({ params: match.params, req });
	} catch (error) {
		reply = errorReply(toApiError(error, deps));
	}
	await send(res, reply);
}
