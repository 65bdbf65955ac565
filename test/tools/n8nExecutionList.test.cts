// scripts/n8n/rest.mjs's readExecutionSummaries, against a real HTTP server answering GET /rest/executions as n8n
// 2.40 and 2.41 do (read from their sources): without a range, the workflow's executions ordered by start time, newest
// first; 2.40 (and 1.x) given both firstId and lastId order that id range by id; 2.41 refuses lastId, and its cursor
// asks for ids below the last row's (so following it skips an execution that started earlier with a larger id). The executions of a burst start out of id order (queue mode above all): every one
// of them must be read, once. Run in a child Node process: jest cannot load ES modules.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const restModule = path.resolve(__dirname, '..', '..', 'scripts', 'n8n', 'rest.mjs');

const script = `
import { createServer } from 'node:http';
const { readExecutionSummaries } = await import(${JSON.stringify(restModule)});
// 250 executions of the workflow, ids 1-250, each started up to 3 s away from its id's order (seeded), and 40 of
// another workflow between them.
let seed = 7;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const executions = Array.from({ length: 290 }, (_, index) => ({
	id: String(index + 1),
	workflowId: index % 7 === 3 && index < 280 ? 'other' : 'wf',
	status: 'success',
	startedAt: new Date(Date.UTC(2026, 10, 28) + index * 100 + Math.round(random() * 3000)).toISOString(),
}));
const byStart = (a, b) => b.startedAt.localeCompare(a.startedAt) || Number(b.id) - Number(a.id);
const byId = (a, b) => Number(b.id) - Number(a.id);
const serve = (version) => (req, res) => {
	const url = new URL(req.url, 'http://n8n');
	const send = (status, value) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
	const { workflowId, startedBefore } = JSON.parse(url.searchParams.get('filter'));
	const limit = Number(url.searchParams.get('limit'));
	const [firstId, lastId, cursor] = ['firstId', 'lastId', 'cursor'].map((name) => url.searchParams.get(name));
	const ours = executions.filter((execution) => execution.workflowId === workflowId);
	if (version === '2.41') {
		if (firstId !== null || lastId !== null) return send(400, { code: 400, message: 'Use cursor to load execution pages.' });
		// As 2.41.1 does (execution-list-v1.service.js nextCursorFor, execution.repository.js): ordered by start time, its
		// cursor holds the last row's id and start, and the next page asks only for ids below that id; startedBefore
		// keeps executions started at or before it.
		const after = cursor === null ? undefined : JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
		const page = ours
			.filter((execution) => (after === undefined || Number(execution.id) < Number(after.v1.id)) && (startedBefore === undefined || execution.startedAt <= new Date(startedBefore).toISOString()))
			.sort(byStart)
			.slice(0, limit);
		const last = page.at(-1);
		const nextCursor = page.length < limit ? null : Buffer.from(JSON.stringify({ version: 1, v1: { id: last.id, timestamp: last.startedAt } })).toString('base64url');
		return send(200, { data: { results: page, count: ours.length, estimated: false, nextCursor } });
	}
	const ranged = firstId !== null && lastId !== null;
	const inRange = ours.filter((execution) => (firstId === null || Number(execution.id) > Number(firstId)) && (lastId === null || Number(execution.id) < Number(lastId)));
	send(200, { data: { results: inRange.sort(ranged ? byId : byStart).slice(0, limit), count: ours.length, estimated: false } });
};
const results = {};
for (const version of ['2.40', '2.41']) {
	const server = createServer(serve(version));
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = 'http://127.0.0.1:' + server.address().port;
	results[version] = {
		all: (await readExecutionSummaries(url, 'cookie', 'wf', { limit: 1000 })).map((summary) => summary.id),
		newest120: (await readExecutionSummaries(url, 'cookie', 'wf', { limit: 120 })).map((summary) => summary.id),
	};
	server.close();
}
const expected = executions.filter((execution) => execution.workflowId === 'wf');
process.stdout.write(JSON.stringify({ results, expected: expected.map((execution) => execution.id), newestByStart: [...expected].sort(byStart).slice(0, 120).map((execution) => execution.id), newestById: [...expected].sort(byId).slice(0, 120).map((execution) => execution.id) }));
`;

describe("scripts/n8n/rest.mjs readExecutionSummaries: every execution of a workflow once, however out of id order they started", () => {
	const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
	const result = JSON.parse(run.stdout.slice(run.stdout.lastIndexOf('{"results"')) || '{}') as {
		results: Record<string, { all: string[]; newest120: string[] }>;
		expected: string[];
		newestByStart: string[];
		newestById: string[];
	};
	const ascending = (ids: string[]) => [...ids].sort((a, b) => Number(a) - Number(b));

	it('ran', () => {
		expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
		// The set-up is what it means to be: the newest by start are not the newest by id.
		expect(ascending(result.newestByStart)).not.toEqual(ascending(result.newestById));
	});

	it.each(['2.40', '2.41'])('n8n %s: all of them, each once, oldest first', (version) => {
		expect(result.results[version].all).toEqual(result.expected);
	});

	it("n8n 2.40: a limit keeps the newest by id (its id ranges' order)", () => {
		expect(result.results['2.40'].newest120).toEqual(ascending(result.newestById));
	});

	it("n8n 2.41: a limit keeps the newest by start (its cursor's order)", () => {
		expect(result.results['2.41'].newest120).toEqual(ascending(result.newestByStart));
	});
});
