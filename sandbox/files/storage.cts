import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { readJsonBody } from '../http/body.cts';
import type { AdminRoute } from '../http/server.cts';
import { validate } from '../http/validation.cts';
import type { OrderDoc, OrderRecord } from '../types.cts';
import type { World } from '../world.cts';
import { storedFile } from './content.cts';

/**
 * The storage host: order documents behind signed, expiring links on a port of their own (another origin, as the
 * real API's files live on a cloud storage host, not on the API). A link carries its expiry and an HMAC signature in
 * the query; an expired or wrongly signed link is answered 403 as S3 answers it. The links of Get order are signed
 * when the order is read. Every request is recorded, with whether it carried an API key: the key belongs to the
 * API, and a client that sends it here leaks it to a third party.
 */

export interface StorageRequest {
	at: string;
	method: string;
	path: string;
	status: number | null;
	/** The request carried an API key (an X-Api-Key header, or a known key in any header). */
	apiKeySent: boolean;
}

export interface StorageSettings {
	/** How long a link is valid, in seconds of the simulated clock (default 3600). */
	lifetimeSec: number;
	/** The next N order reads hand out links that have already expired (for testing a refresh). */
	expireNextReads: number;
}

const PATH_PREFIX = '/files/';
const LINK_HOUR_SEC = 3600;

function s3Error(code: string, message: string): string {
	return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>\n`;
}

export class FileStorage {
	origin = '';
	readonly settings: StorageSettings = { lifetimeSec: 3600, expireNextReads: 0 };
	readonly requests: StorageRequest[] = [];
	/** Document ids served as large videos, with their size in bytes. */
	private readonly large = new Map<string, number>();
	private readonly secret: string;
	private server: Server | undefined;

	constructor(
		private readonly world: World,
		private readonly apiKeys: readonly string[],
	) {
		this.secret = `sandbox-storage-${world.seed}`;
	}

	private signature(path: string, expires: number): string {
		return createHmac('sha256', this.secret).update(`${path}\n${expires}`).digest('hex').slice(0, 32);
	}

	/**
	 * A signer for one read of an order: every link it makes expires at the same moment (one read, one expiry), so
	 * the same order read twice at the same simulated time gives the same links.
	 */
	signerForRead(): (url: string) => string {
		if (this.settings.expireNextReads > 0) {
			this.settings.expireNextReads -= 1;
			return this.signer(Math.floor(this.world.clock.nowMillis() / 1000) - 1);
		}
		return this.signer();
	}

	/**
	 * A signer whose links expire at `expires` (unix seconds). By default at the end of the hour in which a full
	 * lifetime from now ends: reads of an order within the same hour give the same links, so an order read twice a
	 * few minutes apart (a callback, then Get order) compares equal.
	 */
	signer(expires = Math.ceil((this.world.clock.nowMillis() / 1000 + this.settings.lifetimeSec) / LINK_HOUR_SEC) * LINK_HOUR_SEC): (url: string) => string {
		const base = `${this.world.fileBaseUrl}/`;
		return (url) => {
			if (!this.origin || !url.startsWith(base)) return url;
			const path = `${PATH_PREFIX}${url.slice(base.length)}`;
			return `${this.origin}${path}?expires=${expires}&signature=${this.signature(path, expires)}`;
		};
	}

	/** Adds a video of `bytes` to a completed order, served as it is generated (the bench's large deliverable). */
	addLargeVideo(order: OrderRecord, bytes: number): OrderDoc {
		const now = this.world.clock.nowIso();
		const name = `${order.name.replace(/[^A-Za-z0-9]+/g, '_')}_${order.targetLanguage}_large.mp4`;
		const doc: OrderDoc = {
			id: this.world.ids.next(this.world.clock.nowMillis()),
			name,
			url: `${this.world.fileBaseUrl}/orders/${encodeURIComponent(order.id)}/${encodeURIComponent(name)}`,
			type: 'created_subtitle_embedded_video',
			size: bytes,
			sourceLanguage: order.sourceLanguage,
			createdAt: now,
			updatedAt: now,
		};
		order.orderDocs.push(doc);
		this.large.set(doc.id, bytes);
		return doc;
	}

	order(orderId: string): OrderRecord | undefined {
		return this.world.state.orders.get(orderId);
	}

	private carriesKey(req: IncomingMessage): boolean {
		if (req.headers['x-api-key'] !== undefined) return true;
		const values = Object.values(req.headers).flat().filter((value): value is string => typeof value === 'string');
		return values.some((value) => this.apiKeys.some((key) => value.includes(key)));
	}

	private handle(req: IncomingMessage, res: ServerResponse): void {
		const url = new URL(req.url ?? '/', 'http://storage.invalid');
		const record: StorageRequest = {
			at: this.world.clock.nowIso(),
			method: req.method ?? 'GET',
			path: url.pathname,
			status: null,
			apiKeySent: this.carriesKey(req),
		};
		this.requests.push(record);
		res.on('close', () => {
			record.status = res.headersSent ? res.statusCode : null;
		});
		const fail = (status: number, code: string, message: string) => {
			res.writeHead(status, { 'content-type': 'application/xml' }).end(s3Error(code, message));
		};
		if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
		const expires = Number(url.searchParams.get('expires'));
		const given = Buffer.from(url.searchParams.get('signature') ?? '', 'utf8');
		const wanted = Buffer.from(this.signature(url.pathname, expires), 'utf8');
		if (!Number.isInteger(expires) || given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
			return fail(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
		}
		if (expires < this.world.clock.nowMillis() / 1000) return fail(403, 'AccessDenied', 'Request has expired');
		const found = this.find(url.pathname);
		if (!found) return fail(404, 'NoSuchKey', 'The specified key does not exist.');
		const file = storedFile(this.world.seed, found.order, found.doc, this.large.get(found.doc.id));
		res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.size) });
		if (req.method === 'HEAD') {
			res.end();
			return;
		}
		file.write(res).then(
			() => res.end(),
			() => res.destroy(),
		);
	}

	private find(pathname: string): { order: OrderRecord; doc: OrderDoc } | undefined {
		const parts = pathname.slice(PATH_PREFIX.length).split('/');
		if (parts.length !== 3 || parts[0] !== 'orders') return undefined;
		let orderId: string;
		let name: string;
		try {
			[orderId, name] = [decodeURIComponent(parts[1]), decodeURIComponent(parts[2])];
		} catch {
			return undefined;
		}
		const order = this.world.state.orders.get(orderId);
		const doc = order?.orderDocs.find((candidate) => candidate.name === name);
		return order && doc ? { order, doc } : undefined;
	}

	async listen(port = 0): Promise<void> {
		const server = createServer((req, res) => this.handle(req, res));
		server.keepAliveTimeout = 65_000;
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(port, '127.0.0.1', () => {
				server.off('error', reject);
				resolve();
			});
		});
		this.server = server;
		this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	}

	async close(): Promise<void> {
		const server = this.server;
		if (!server) return;
		const closed = new Promise<void>((resolve) => server.close(() => resolve()));
		server.closeAllConnections();
		await closed;
	}
}

const settingsBody = z.object({ lifetimeSec: z.number().int().min(0).optional(), expireNextReads: z.number().int().min(0).optional() }).strict();
const largeBody = z.object({ orderId: z.string().min(1), bytes: z.number().int().min(1024) }).strict();

/** Admin routes: the storage host's request log, its settings, and the bench's large file. */
export function storageAdminRoutes(storage: FileStorage): AdminRoute[] {
	return [
		{ method: 'GET', pattern: '/__sandbox/files/requests', handler: () => ({ status: 200, body: storage.requests }) },
		{
			method: 'DELETE',
			pattern: '/__sandbox/files/requests',
			handler: () => {
				storage.requests.length = 0;
				return { status: 204 };
			},
		},
		{
			method: 'PUT',
			pattern: '/__sandbox/files/settings',
			handler: async ({ req }) => {
				Object.assign(storage.settings, validate(settingsBody, await readJsonBody(req)));
				return { status: 200, body: storage.settings };
			},
		},
		{
			method: 'POST',
			pattern: '/__sandbox/files/large',
			handler: async ({ req }) => {
				const { orderId, bytes } = validate(largeBody, await readJsonBody(req));
				const order = storage.order(orderId);
				if (!order) return { status: 404, body: { message: `no order ${orderId}` } };
				return { status: 201, body: storage.addLargeVideo(order, bytes) };
			},
		},
	];
}
