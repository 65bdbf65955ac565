// The load balancer in front of n8n in queue mode with webhook processes, as n8n's docs describe it for nginx: the
// paths `n8n webhook` serves go to the webhook processes in turn, everything else (the editor, the REST API, its
// push connection, test webhooks) to the main process. `npm start -- --queue` and the bench run it on one machine;
// docker/nginx.conf is the same routing for Docker (test/tools/dockerCompose.test.cts checks they agree).
import { createServer, request } from 'node:http';
import { connect } from 'node:net';

/**
 * Path prefixes of production webhooks that `n8n webhook` serves (n8n 2.40's AbstractServer with webhooks enabled):
 * webhook triggers, forms, and the resumptions of waiting executions.
 */
export const WEBHOOK_PROCESS_PATHS = Object.freeze(['/webhook/', '/webhook-waiting/', '/form/', '/form-waiting/']);

/** MCP Server Trigger sessions live in one process: n8n's docs route every /mcp/ request to a single webhook process. */
export const SINGLE_WEBHOOK_PROCESS_PATHS = Object.freeze(['/mcp/']);

/** Which upstream a request path goes to: 'webhook' (in turn), 'firstWebhook' or 'main'. */
export function routeOf(pathname) {
	if (WEBHOOK_PROCESS_PATHS.some((prefix) => pathname.startsWith(prefix))) return 'webhook';
	if (SINGLE_WEBHOOK_PROCESS_PATHS.some((prefix) => pathname.startsWith(prefix))) return 'firstWebhook';
	return 'main';
}

/**
 * Listens on `port` (127.0.0.1; 0 for a free one) and relays each request to `main` or to one of `webhooks` (base
 * URLs), round robin, streaming both ways; WebSocket upgrades (the editor's push) go to the main. An upstream that
 * cannot be reached is answered 502. Returns `{ url, port, forwarded: { main, webhooks: number[] }, stop() }`.
 */
export async function startBalancer({ port = 0, main, webhooks }) {
	if (webhooks.length === 0) throw new Error('the balancer needs at least one webhook process');
	const mainTarget = new URL(main);
	const webhookTargets = webhooks.map((url) => new URL(url));
	const forwarded = { main: 0, webhooks: webhookTargets.map(() => 0) };
	let next = 0;
	const pick = (pathname) => {
		const route = routeOf(pathname);
		if (route === 'main') {
			forwarded.main++;
			return mainTarget;
		}
		const index = route === 'firstWebhook' ? 0 : next++ % webhookTargets.length;
		forwarded.webhooks[index]++;
		return webhookTargets[index];
	};

	const server = createServer((req, res) => {
		const target = pick(new URL(req.url ?? '/', 'http://balancer').pathname);
		const upstream = request(
			{ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': req.socket.remoteAddress ?? '' }, agent: false },
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
				answer.pipe(res);
			},
		);
		upstream.on('error', (error) => {
			if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end(`bad gateway: ${error.message}`);
			else res.destroy(error);
		});
		req.pipe(upstream);
	});
	// A WebSocket: the raw bytes both ways once the main has the upgrade request. Its sockets leave the HTTP server's
	// keeping, so they are kept here to be closed on stop.
	const upgraded = new Set();
	server.on('upgrade', (req, socket, head) => {
		forwarded.main++;
		upgraded.add(socket);
		socket.once('close', () => upgraded.delete(socket));
		const upstream = connect(Number(mainTarget.port), mainTarget.hostname, () => {
			const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
			for (let index = 0; index < req.rawHeaders.length; index += 2) lines.push(`${req.rawHeaders[index]}: ${req.rawHeaders[index + 1]}`);
			upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
			if (head.length > 0) upstream.write(head);
			socket.pipe(upstream).pipe(socket);
		});
		const close = () => {
			socket.destroy();
			upstream.destroy();
		};
		upstream.on('error', close);
		socket.on('error', close);
	});
	await new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', resolve);
	});
	const listening = server.address().port;
	return {
		url: `http://127.0.0.1:${listening}`,
		port: listening,
		forwarded,
		stop: async () => {
			for (const socket of upgraded) socket.destroy();
			server.closeAllConnections();
			await new Promise((resolve) => server.close(() => resolve()));
		},
	};
}
