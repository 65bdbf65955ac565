// A recording relay on loopback between the node and the API: the node's own transport (through n8n-core) talks
// to it as its base URL, and it passes each request on unchanged and each answer back unchanged, keeping a copy of
// the answer so the check can compare the raw body with the contract. The key passes through in the request
// header and is never kept.
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface Exchange {
	method: string;
	/** The path the node asked for (before any rewrite), without the query. */
	path: string;
	/** The path sent to the API. */
	upstreamPath: string;
	status: number | null;
	headers: Record<string, string>;
	body: Buffer;
	/** Why no answer came (a connection error code or message). */
	failure?: string;
}

export interface Recorder {
	baseUrl: string;
	exchanges: Exchange[];
	/** Maps a requested path to the one sent upstream (used to try the SDK's review-info path with the node's operation). */
	rewrite: ((pathname: string) => string) | undefined;
	close(): Promise<void>;
}

// accept-encoding is dropped so the API answers uncompressed and the copy kept is the JSON itself.
const HOP_BY_HOP = new Set(['accept-encoding', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'content-length']);
const ANSWER_TIMEOUT_MS = 60_000;

function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
	const result: Record<string, string | string[]> = {};
	for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) result[name] = value;
	return result;
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
	const result: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) if (value !== undefined) result[name] = Array.isArray(value) ? value.join(', ') : value;
	return result;
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

export async function startRecorder(upstreamBaseUrl: string): Promise<Recorder> {
	const upstream = new URL(upstreamBaseUrl);
	const prefix = upstream.pathname.replace(/\/$/, '');
	const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
	const recorder: Recorder = { baseUrl: '', exchanges: [], rewrite: undefined, close: async () => undefined };

	/** A Location back to the API itself is pointed at the relay, so the node's same-origin rule sees what it would. */
	const relayLocation = (location: string): string => {
		try {
			const target = new URL(location, `${upstream.origin}${prefix}/`);
			if (target.origin === upstream.origin && target.pathname.startsWith(prefix)) {
				return `${recorder.baseUrl}${target.pathname.slice(prefix.length)}${target.search}`;
			}
		} catch {
			// Not a URL: passed on as it came.
		}
		return location;
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const incoming = new URL(req.url ?? '/', 'http://relay.invalid');
		const upstreamPath = recorder.rewrite ? recorder.rewrite(incoming.pathname) : incoming.pathname;
		const exchange: Exchange = { method: req.method ?? 'GET', path: incoming.pathname, upstreamPath, status: null, headers: {}, body: Buffer.alloc(0) };
		recorder.exchanges.push(exchange);
		const requestBody = await readAll(req);
		const target = `${upstream.origin}${prefix}${upstreamPath}${incoming.search}`;
		await new Promise<void>((resolve) => {
			const outgoing = send(target, { method: exchange.method, headers: forwardHeaders(req.headers), timeout: ANSWER_TIMEOUT_MS }, (answer) => {
				readAll(answer).then(
					(body) => {
						exchange.status = answer.statusCode ?? null;
						exchange.headers = flatHeaders(answer.headers);
						exchange.body = body;
						const headers = forwardHeaders(answer.headers);
						if (typeof answer.headers.location === 'string') headers.location = relayLocation(answer.headers.location);
						headers['content-length'] = String(body.length);
						res.writeHead(answer.statusCode ?? 502, headers);
						res.end(body);
						resolve();
					},
					(error: NodeJS.ErrnoException) => {
						// An answer cut off mid-body: the node sees the same.
						exchange.failure = error.code ?? error.message;
						res.destroy();
						resolve();
					},
				);
			});
			outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`), { code: 'ETIMEDOUT' })));
			outgoing.on('error', (error: NodeJS.ErrnoException) => {
				exchange.failure = error.code ?? error.message;
				// The node sees a dropped connection, as it would without the relay.
				res.destroy();
				resolve();
			});
			outgoing.end(requestBody);
		});
	};

	const server = createServer((req, res) => {
		handle(req, res).catch(() => res.destroy());
	});
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => resolve());
	});
	recorder.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	recorder.close = async () => {
		const closed = new Promise<void>((resolve) => server.close(() => resolve()));
		server.closeAllConnections();
		await closed;
	};
	return recorder;
}
