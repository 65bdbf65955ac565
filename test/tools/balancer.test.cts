// scripts/n8n/balancer.mjs, the load balancer `npm start -- --queue` and the bench put in front of the main and the
// `n8n webhook` processes: real HTTP servers standing in for them (each answers with its name, the path and the
// body it got), the balancer between, requests through it. Run in a child Node process: jest cannot load ES modules.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const balancerModule = path.resolve(__dirname, '..', '..', 'scripts', 'n8n', 'balancer.mjs');

interface Seen {
	by: string;
	path: string;
	body: string;
	status: number;
}

const script = `
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
const { startBalancer } = await import(${JSON.stringify(balancerModule)});
const upstream = (name) => new Promise((resolve) => {
	const server = createServer((req, res) => {
		let body = '';
		req.on('data', (chunk) => { body += chunk; });
		req.on('end', () => res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': name }).end(JSON.stringify({ by: name, path: req.url, body })));
	});
	server.on('upgrade', (req, socket) => { socket.end('HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nX-Upstream: ' + name + '\\r\\n\\r\\n'); });
	server.listen(0, '127.0.0.1', () => resolve({ server, url: 'http://127.0.0.1:' + server.address().port }));
});
const [main, first, second] = await Promise.all(['main', 'webhook1', 'webhook2'].map(upstream));
const balancer = await startBalancer({ main: main.url, webhooks: [first.url, second.url] });
const seen = [];
for (const route of ['/webhook/a/ollang-callback', '/webhook/b/ollang-callback', '/webhook-waiting/7', '/form/x', '/mcp/ollang', '/mcp/ollang', '/rest/login', '/webhook-test/a', '/healthz']) {
	const response = await fetch(balancer.url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ route }) });
	seen.push({ ...(await response.json()), status: response.status });
}
const upgradedBy = await new Promise((resolve) => {
	const socket = connect(balancer.port, '127.0.0.1', () => socket.write('GET /rest/push HTTP/1.1\\r\\nHost: x\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n\\r\\n'));
	let text = '';
	socket.on('data', (chunk) => { text += chunk; if (text.includes('\\r\\n\\r\\n')) { socket.destroy(); resolve(/X-Upstream: (\\w+)/.exec(text)?.[1]); } });
});
await second.server.close();
second.server.closeAllConnections();
const down = [];
for (let i = 0; i < 2; i++) down.push((await fetch(balancer.url + '/webhook/c', { method: 'POST', body: '{}' })).status);
await balancer.stop();
for (const { server } of [main, first]) { server.closeAllConnections(); server.close(); }
process.stdout.write(JSON.stringify({ seen, upgradedBy, down, forwarded: balancer.forwarded }));
`;

describe('scripts/n8n/balancer.mjs: /webhook/ to the webhook processes in turn, the rest to the main', () => {
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
	const result = JSON.parse(run.stdout || '{}') as { seen: Seen[]; upgradedBy: string; down: number[]; forwarded: { main: number; webhooks: number[] } };

	it('ran', () => {
		expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
	});

	it('sends production webhook paths to the webhook processes in turn, /mcp/ always to the first, the rest to the main, bodies and statuses intact', () => {
		expect(result.seen.map((seen) => `${seen.path} -> ${seen.by}`)).toEqual([
			'/webhook/a/ollang-callback -> webhook1',
			'/webhook/b/ollang-callback -> webhook2',
			'/webhook-waiting/7 -> webhook1',
			'/form/x -> webhook2',
			'/mcp/ollang -> webhook1',
			'/mcp/ollang -> webhook1',
			'/rest/login -> main',
			'/webhook-test/a -> main',
			'/healthz -> main',
		]);
		for (const seen of result.seen) expect({ status: seen.status, body: JSON.parse(seen.body) }).toEqual({ status: 201, body: { route: seen.path } });
	});

	it("passes a WebSocket upgrade (the editor's push) to the main", () => {
		expect(result.upgradedBy).toBe('main');
	});

	it('answers 502 when the webhook process it picked is down; counts what it sent where (the upgrade included)', () => {
		expect(result.down).toEqual([201, 502]);
		expect(result.forwarded).toEqual({ main: 4, webhooks: [5, 3] });
	});
});
