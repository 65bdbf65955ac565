// bench/push.mjs's ExecutionReader (the push and bursts scenarios count emissions with it), against a real HTTP server
// answering as n8n 2.40's REST API does: an execution whose start could not check its credentials (n8n's database
// timing out under a burst) has its items redacted for every user (redactionInfo.isRedacted, reason
// dynamic_credentials); the reader takes those from n8n's database when it can, and counts what it could not read.
// Run in a child Node process: jest cannot load ES modules.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const pushModule = path.resolve(__dirname, '..', '..', 'bench', 'push.mjs');

const script = `
import { createServer } from 'node:http';
const { ExecutionReader } = await import(${JSON.stringify(pushModule)});
const node = 'Ollang Callback Trigger';
const runData = (orderIds) => ({ resultData: { runData: { [node]: [{ startTime: 1000, data: { main: [orderIds.map((orderId) => ({ json: { orderId } }))] } }] } } });
// Executions 1-4; n8n redacted 2 and 4 (their items emptied, as its full-item redaction leaves them).
const stored = { 1: runData(['a']), 2: runData(['b']), 3: runData(['c']), 4: runData(['d', 'e']) };
const redacted = new Set(['2', '4']);
const server = createServer((req, res) => {
	const url = new URL(req.url, 'http://n8n');
	const send = (value) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: value }));
	if (url.pathname === '/rest/executions') {
		const lastId = Number(url.searchParams.get('lastId') ?? 1e9);
		const results = Object.keys(stored).filter((id) => Number(id) < lastId).reverse().map((id) => ({ id, status: 'success', startedAt: new Date(0).toISOString() }));
		return send({ results, count: results.length, estimated: false });
	}
	const id = url.pathname.split('/').at(-1);
	const data = structuredClone(stored[id]);
	if (redacted.has(id)) {
		for (const item of data.resultData.runData[node][0].data.main[0]) item.json = {};
		data.redactionInfo = { isRedacted: true, reason: 'dynamic_credentials', canReveal: false };
	}
	send({ id, data: JSON.stringify(data) });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = 'http://127.0.0.1:' + server.address().port;
const orderIdsOf = (items) => items.map((item) => item.orderId);
const withDatabase = new ExecutionReader(url, 'cookie', { parse: JSON.parse, storedData: (id) => JSON.stringify(stored[id]) });
const withoutDatabase = new ExecutionReader(url, 'cookie', { parse: JSON.parse });
const result = {};
for (const [name, reader] of Object.entries({ withDatabase, withoutDatabase })) {
	const starts = await reader.starts('wf', node, orderIdsOf);
	result[name] = { emitted: [...starts.keys()].filter((key) => key !== undefined).sort(), readFromDatabase: [...reader.readFromDatabase].sort(), unreadable: [...reader.unreadable].sort() };
}
server.close();
process.stdout.write(JSON.stringify(result));
`;

describe('bench/push.mjs ExecutionReader: executions whose items n8n redacted', () => {
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
	const result = JSON.parse(run.stdout.slice(run.stdout.lastIndexOf('{"withDatabase"')) || '{}') as Record<string, { emitted: string[]; readFromDatabase: string[]; unreadable: string[] }>;

	it('ran', () => {
		expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
	});

	it("reads them from n8n's database: every emission counted", () => {
		expect(result.withDatabase).toEqual({ emitted: ['a', 'b', 'c', 'd', 'e'], readFromDatabase: ['2', '4'], unreadable: [] });
	});

	it('without a database read, says which it could not read', () => {
		expect(result.withoutDatabase).toEqual({ emitted: ['a', 'c'], readFromDatabase: [], unreadable: ['2', '4'] });
	});
});
