// The API key stays secret: every operation runs, succeeding and failing in every way we can provoke (wrong key,
// missing rights, faults, dropped connections, local validation, and servers that echo the key back in errors,
// answers and redirects), and everything n8n keeps or prints is scanned for the key: the run data, the errors
// with their hidden properties, n8n's log (debug level, console and file) and anything written to the console.
// Then: a plain-http base URL to a remote host is refused before anything is sent, and a redirect to another
// host never carries the key there.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';
import type { FaultRule, Sandbox } from '../../sandbox/index.cts';
import { runContractCheck } from '../../contract/check.cts';
import { operationLines, summaryLine } from '../../contract/format.cts';
import { runNode } from '../harness/engine.cts';
import type { RunNodeResult } from '../harness/engine.cts';
import { Container, credentialTypes, nodeTypes, OLLANG_CREDENTIAL_TYPE, OLLANG_NODE_TYPE } from '../harness/runtime.cts';
import { byId, startStub, useSandbox } from '../node/setup.cts';
import type { Stub } from '../node/setup.cts';
import { errorOf, Figures } from './helpers.cts';
import { ALL_OPERATIONS, markedItem } from './operations.cts';
import type { OperationCase } from './operations.cts';

// n8n's logger at its most talkative, to the console and to a file, set before the logger is first built.
const logFolder = mkdtempSync(join(tmpdir(), 'ollang-leak-log-'));
const logFile = join(logFolder, 'n8n.log');
process.env.N8N_LOG_LEVEL = 'debug';
process.env.N8N_LOG_OUTPUT = 'console,file';
process.env.N8N_LOG_FILE_LOCATION = logFile;

const sandbox = useSandbox();
const figures = new Figures('Security: the API key, the base URL and redirects');

/** Everything written to the console or stdout/stderr while the runs go. */
const printed: string[] = [];

beforeAll(() => {
	for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
		jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
			printed.push(args.map((arg) => (typeof arg === 'string' ? arg : inspect(arg, { depth: 8 }))).join(' '));
		});
	}
	// Winston's console transport writes to the console's own streams, which under jest's workers are not stdout.
	type Writable = { write(chunk: unknown): boolean };
	const consoleStreams = console as unknown as { _stdout?: Writable; _stderr?: Writable };
	const streams = new Set<Writable | undefined>([process.stdout, process.stderr, consoleStreams._stdout, consoleStreams._stderr]);
	for (const stream of streams) {
		if (stream === undefined) continue;
		jest.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
			printed.push(String(chunk));
			return true;
		});
	}
	// n8n-core's copy of @n8n/backend-common holds the Logger its engine uses; built now, it writes to the spies.
	const { Logger } = require(require.resolve('@n8n/backend-common', { paths: [dirname(require.resolve('n8n-core'))] })) as {
		Logger: new (...args: never[]) => unknown;
	};
	Container.get(Logger as never);
});

function stopCapture(): void {
	jest.restoreAllMocks();
}

afterAll(() => {
	stopCapture();
	rmSync(logFolder, { recursive: true, force: true });
});

/** The forms a key could take in text: as it is, and base64 (as in a logged header dump). */
function keyForms(key: string): string[] {
	return [key, Buffer.from(key).toString('base64')];
}

const scanned = { texts: 0, characters: 0, leaks: [] as string[] };

function scan(where: string, text: string, keys: string[]): void {
	scanned.texts++;
	scanned.characters += text.length;
	for (const key of keys) for (const form of keyForms(key)) if (text.includes(form)) scanned.leaks.push(where);
}

/** Scans what n8n keeps of a run: the run data as stored (JSON) and in full (hidden properties), and the error. */
function scanRun(label: string, result: RunNodeResult, keys: string[]): void {
	scan(`${label}: run data`, JSON.stringify(result.run), keys);
	scan(`${label}: run data, hidden properties`, inspect(result.run, { depth: 14, showHidden: true }), keys);
	if (result.error) {
		scan(`${label}: error`, inspect(result.error, { depth: 14, showHidden: true }), keys);
		scan(`${label}: error stack`, result.error.stack ?? '', keys);
	}
	scan(`${label}: output items`, JSON.stringify(result.items), keys);
}

/** A recognisable key the service does not know. */
const CANARY_KEY = 'ollang-canary-key-3c9e1f7a2b6d';

async function runOperation(
	s: Sandbox,
	operation: OperationCase,
	label: string,
	options: {
		apiKey: string;
		baseUrl?: string;
		items?: INodeExecutionData[];
		parameters?: INodeParameters;
		continueOnFail?: boolean;
		/** Faults in force during the run (not while its items are prepared). */
		faults?: FaultRule[];
	},
): Promise<RunNodeResult> {
	const items = options.items ?? [await markedItem(operation, s, `leak-${label}`)];
	options.faults?.forEach((fault) => s.faults.add(fault));
	const result = await runNode({
		parameters: options.parameters ?? operation.parameters(s),
		items,
		credentials: { baseUrl: options.baseUrl ?? s.baseUrl, apiKey: options.apiKey },
		continueOnFail: options.continueOnFail,
	});
	s.faults.clear();
	figures.add('runs scanned');
	figures.add(result.error || result.items.some((item) => item.json.error !== undefined) ? 'runs that failed' : 'runs that succeeded');
	scanRun(`${operation.name} ${label}`, result, [...Object.values(s.keys), options.apiKey]);
	return result;
}

/** A server that puts the key it receives into its answers, as a debugging proxy or a careless service might. */
async function startEcho(answer: (key: string) => { status: number; headers: Record<string, string>; body: string }): Promise<Stub> {
	return await startStub((req, res) => {
		const { status, headers, body } = answer(String(req.headers['x-api-key'] ?? ''));
		res.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
		res.end(body);
	});
}

/** Listens on a free port of the host (startStub listens on 127.0.0.1 only) and returns the port. */
async function listen(server: Server, host: string): Promise<number> {
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	return (server.address() as AddressInfo).port;
}

function closeServer(server: Server): Promise<void> {
	return new Promise((resolve) => {
		server.closeAllConnections();
		server.close(() => resolve());
	});
}

const ECHOES: Array<{ name: string; answer: (key: string) => { status: number; headers: Record<string, string>; body: string } }> = [
	{
		name: 'an error that quotes the key',
		answer: (key) => ({
			status: 400,
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ statusCode: 400, message: [`header x-api-key ${key} is not allowed`], error: `Bad key ${key}` }),
		}),
	},
	{
		name: 'a 500 page that shows the request headers',
		answer: (key) => ({
			status: 500,
			headers: { 'content-type': 'text/html', 'retry-after': '0' },
			body: `<html><pre>X-Api-Key: ${key}</pre></html>`,
		}),
	},
	{
		name: 'a 200 debug page that shows the request headers',
		answer: (key) => ({ status: 200, headers: { 'content-type': 'text/html' }, body: `<html><pre>X-Api-Key: ${key}</pre></html>` }),
	},
	{
		name: 'a 200 of JSON that echoes the key in every shape the node reads',
		answer: (key) => {
			const row = { id: 'echo0000000000000000000a', title: key, echo: key };
			return {
				status: 200,
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ ...row, data: [row], meta: { pageCount: 1 }, jobId: key, status: 'completed', projectId: key, success: true, unassignedCount: 0 }),
			};
		},
	},
	{
		name: 'a redirect whose Location carries the key',
		answer: (key) => ({ status: 302, headers: { location: `http://127.0.0.1:9/collect?key=${key}` }, body: '' }),
	},
	{
		name: 'a redirect to an address that is not a URL, carrying the key',
		answer: (key) => ({ status: 307, headers: { location: `http://[bad host ${key}` }, body: '' }),
	},
];

describe('the API key appears nowhere n8n keeps or prints', () => {
	it.each(ALL_OPERATIONS.map((operation) => [operation.name, operation] as [string, OperationCase]))('%s: succeeding and failing', async (_name, operation) => {
		const s = sandbox();
		const owner = s.keys.owner;
		const success = await runOperation(s, operation, 'success', { apiKey: owner });
		expect(errorOf(success)).toBeUndefined();

		// A wrong key: 401 (GET /health needs no key and succeeds).
		const wrongKey = errorOf(await runOperation(s, operation, 'wrong key', { apiKey: CANARY_KEY }));
		if (operation.public) expect(wrongKey).toBeUndefined();
		else expect(wrongKey?.httpCode).toBe('401');
		// A key without the rights, where the operation needs some; the run may succeed elsewhere.
		await runOperation(s, operation, 'member key', { apiKey: s.keys.member, continueOnFail: true });
		// Faults: a 500 after the service acted, then a dropped connection.
		const faults: FaultRule[] = [
			{ kind: 'status', status: 500, when: 'after', retryAfterSeconds: 0 },
			{ kind: 'drop', times: 1 },
		];
		for (const fault of faults) {
			await runOperation(s, operation, `fault ${fault.kind}`, { apiKey: owner, continueOnFail: true, faults: [fault] });
		}
		// Servers that echo the key.
		for (const echo of ECHOES) {
			const server = await startEcho(echo.answer);
			try {
				await runOperation(s, operation, echo.name, { apiKey: CANARY_KEY, baseUrl: server.baseUrl, continueOnFail: true });
			} finally {
				await server.close();
			}
		}
		figures.add('operations scanned');
	});

	it('local validation errors, with the key in the item itself', async () => {
		const s = sandbox();
		const getOrder = ALL_OPERATIONS.find((operation) => operation.name === 'order.get') as OperationCase;
		// An id the node refuses, carrying the key as a careless expression might.
		const result = await runOperation(s, getOrder, 'invalid id', {
			apiKey: CANARY_KEY,
			parameters: { resource: 'order', operation: 'get', orderId: byId('={{ $json.orderId }}') },
			items: [{ json: { orderId: `../${'x'.repeat(4)}` } }],
		});
		expect(errorOf(result)?.name).toBe('NodeOperationError');
	});

	it('the contract check (npm run contract): its report and terminal lines, against every echoing server', async () => {
		for (const echo of ECHOES) {
			const server = await startEcho(echo.answer);
			try {
				const report = await runContractCheck({ baseUrl: server.baseUrl, apiKey: CANARY_KEY });
				scan(`contract check, ${echo.name}: report`, JSON.stringify(report), [CANARY_KEY]);
				scan(`contract check, ${echo.name}: terminal`, [...report.operations.flatMap(operationLines), report.fatal ?? '', summaryLine(report)].join('\n'), [CANARY_KEY]);
				figures.add('contract check runs scanned');
			} finally {
				await server.close();
			}
		}
		expect([...new Set(scanned.leaks)]).toEqual([]);
	});

	it('the node and credential descriptions', () => {
		const texts = [JSON.stringify(nodeTypes.getByName(OLLANG_NODE_TYPE).description), JSON.stringify(credentialTypes.getByName(OLLANG_CREDENTIAL_TYPE))];
		for (const text of texts) scan('descriptions', text, [CANARY_KEY, ...Object.values(sandbox().keys)]);
		expect([...new Set(scanned.leaks)]).toEqual([]);
	});

});

describe('the base URL is https unless it points at this machine', () => {
	const getOrder = (s: Sandbox) => ({ resource: 'order', operation: 'get', orderId: byId(s.fixtures.orders.byStatus.completed) });

	it.each([
		['plain http to a remote host', 'http://api-integration.ollang.com', /uses plain http to a remote host/],
		['plain http to a private address', 'http://10.1.2.3:8080', /uses plain http to a remote host/],
		['plain http to a name that starts like localhost', 'http://localhost.example.com', /uses plain http to a remote host/],
		['plain http to a name that starts like a loopback address', 'http://127.0.0.1.example.com', /uses plain http to a remote host/],
		['plain http with credentials in the URL', 'http://user:secret@api.example.com', /uses plain http to a remote host/],
		['ftp', 'ftp://api.example.com', /must start with https:\/\//],
		['no scheme', 'api-integration.ollang.com', /is not a valid URL/],
	])('refuses %s, before anything is sent', async (_name, baseUrl, problem) => {
		const s = sandbox();
		const result = await runNode({ parameters: getOrder(s), credentials: { baseUrl, apiKey: CANARY_KEY } });
		const error = errorOf(result);

		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toMatch(/^Invalid Base URL in the Ollang API credential: /);
		expect(error?.message).toMatch(problem);
		expect(error?.description).toContain('Nothing was sent');
		scanRun('base URL refused', result, [CANARY_KEY]);
		figures.add('base URLs refused with a clear message');
	});

	it('refuses plain http to a host that is reachable but not loopback: the server there receives nothing', async () => {
		const received: string[] = [];
		const server = createServer((req, res) => {
			received.push(String(req.headers['x-api-key'] ?? 'no key'));
			res.end('{}');
		});
		const port = await listen(server, '::');
		// This machine's name and outward addresses reach the server; none is a loopback name or address.
		const outward = Object.values(networkInterfaces())
			.flat()
			.filter((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4')
			.map((entry) => entry?.address as string);
		const hosts = [hostname(), ...outward];
		try {
			for (const host of hosts) {
				const control = await fetch(`http://${host}:${port}/control`);
				expect(control.status).toBe(200);
			}
			const controls = received.length;
			for (const host of hosts) {
				const error = errorOf(
					await runNode({ parameters: getOrder(sandbox()), credentials: { baseUrl: `http://${host}:${port}`, apiKey: CANARY_KEY } }),
				);
				expect(error?.message).toContain('uses plain http to a remote host');
				figures.add('base URLs refused with a clear message');
			}
			expect(received.slice(controls)).toEqual([]);
			expect(received).not.toContain(CANARY_KEY);
		} finally {
			await closeServer(server);
		}
	});

	it.each([
		['localhost', (port: string) => `http://localhost:${port}`],
		['127.0.0.1 with a trailing slash', (port: string) => `http://127.0.0.1:${port}/`],
	])('accepts plain http to %s', async (_name, baseUrl) => {
		const s = sandbox();
		const result = await runNode({
			parameters: getOrder(s),
			credentials: { baseUrl: baseUrl(new URL(s.baseUrl).port), apiKey: s.keys.owner },
		});

		expect(errorOf(result)).toBeUndefined();
		expect(result.items[0].json.id).toBe(s.fixtures.orders.byStatus.completed);
	});
});

describe('a redirect to another host does not carry the key', () => {
	interface Recorder {
		origin: string;
		received: IncomingHttpHeaders[];
		close(): Promise<void>;
	}

	/** A server on another loopback address that records the headers of every request it receives. */
	async function startRecorder(host: string): Promise<Recorder> {
		const received: IncomingHttpHeaders[] = [];
		const server = createServer((req, res) => {
			received.push(req.headers);
			req.resume();
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ id: 'elsewhere00000000000000a', title: 'elsewhere' }));
		});
		const port = await listen(server, host);
		return { origin: `http://${host}:${port}`, received, close: () => closeServer(server) };
	}

	let elsewhere: Recorder;
	let samehostOtherPort: Recorder;
	beforeAll(async () => {
		elsewhere = await startRecorder('127.0.0.2');
		samehostOtherPort = await startRecorder('127.0.0.1');
	});
	afterAll(async () => {
		await elsewhere.close();
		await samehostOtherPort.close();
	});

	/** A server that redirects every request; a path under /hop first hops within its own origin. */
	async function startRedirector(status: number, location: (path: string) => string): Promise<Stub> {
		return await startStub((req, res) => {
			const target = req.url?.startsWith('/hop') ? req.url.slice('/hop'.length) : location(req.url ?? '/');
			res.writeHead(status, { location: target });
			res.end();
		});
	}

	const hits = (redirector: Stub) => redirector.requests.map((request) => `${request.method} ${request.url} key=${request.apiKey === CANARY_KEY}`);

	const OPERATIONS: Array<[string, (s: Sandbox) => INodeParameters]> = [
		['a read (GET)', (s) => ({ resource: 'order', operation: 'get', orderId: byId(s.fixtures.orders.byStatus.completed) })],
		['an action (POST)', () => ({ resource: 'memory', operation: 'create', title: 'Redirected' })],
	];

	const TARGETS: Array<[string, () => string]> = [
		['another loopback address', () => elsewhere.origin],
		['the same address on another port', () => samehostOtherPort.origin],
		['another address, protocol-relative', () => elsewhere.origin.replace('http:', '')],
	];

	const cases = [301, 302, 303, 307, 308].flatMap((status) =>
		OPERATIONS.flatMap(([operationName, parameters]) =>
			TARGETS.map(([targetName, target]) => [`${status} for ${operationName} to ${targetName}`, status, parameters, target] as const),
		),
	);

	it.each(cases)('%s', async (_name, status, parameters, target) => {
		const before = elsewhere.received.length + samehostOtherPort.received.length;
		const redirector = await startRedirector(status, (path) => `${target()}${path}`);
		try {
			const result = await runNode({ parameters: parameters(sandbox()), credentials: { baseUrl: redirector.baseUrl, apiKey: CANARY_KEY } });
			const error = errorOf(result);

			expect(error?.message).toMatch(/redirected (GET|POST) \S+ to http:\/\/127\.0\.0\.\d:\d+; the redirect was not followed/);
			expect(hits(redirector)).toHaveLength(1);
			scanRun('redirect', result, [CANARY_KEY]);
		} finally {
			await redirector.close();
		}
		const after = [...elsewhere.received, ...samehostOtherPort.received].slice(before);
		expect(after.map((headers) => headers['x-api-key'])).toEqual([]);
		figures.add('redirects to another host tried');
		figures.add('redirects to another host that carried the key (must be 0)', after.filter((headers) => headers['x-api-key'] !== undefined).length);
	});

	it('a redirect within the host is followed with the key, and a second hop to another host is not', async () => {
		const before = elsewhere.received.length;
		const redirector = await startRedirector(307, (path) => `${elsewhere.origin}${path}`);
		try {
			const result = await runNode({
				parameters: { resource: 'customInstruction', operation: 'getSuggestions' },
				credentials: { baseUrl: `${redirector.baseUrl}/hop`, apiKey: CANARY_KEY },
			});

			expect(hits(redirector)).toEqual([
				'GET /hop/integration/custom-instructions/suggestions key=true',
				'GET /integration/custom-instructions/suggestions key=true',
			]);
			expect(errorOf(result)?.message).toContain(`to ${elsewhere.origin}; the redirect was not followed`);
		} finally {
			await redirector.close();
		}
		expect(elsewhere.received.slice(before)).toEqual([]);
	});
});

describe('what n8n logged and what was printed while every run of this file went', () => {
	it('n8n logged at debug level while the runs went, and neither its log nor the console holds a key', () => {
		// Everything is in: printing goes back to normal, so the figures and any failure show.
		stopCapture();
		const keys = [CANARY_KEY, ...Object.values(sandbox().keys)];
		const logged = readFileSync(logFile, 'utf8');
		// The capture works: n8n's engine logged the runs and reported the node errors, in the file and on the console.
		const nodeFailed = /Running node \\?"Ollang\\?" finished with error/;
		expect(logged).toMatch(nodeFailed);
		expect(logged).toContain('The Ollang API answered 401 UNAUTHORIZED');
		expect(printed.join('\n')).toMatch(nodeFailed);
		scan("n8n's log file", logged, keys);
		scan('console and stdout/stderr', printed.join('\n'), keys);
		figures.set('texts scanned', scanned.texts);
		figures.set('characters scanned', scanned.characters);
		figures.set('key-leak scan: places where a key appeared (must be 0)', scanned.leaks.length);
		expect([...new Set(scanned.leaks)]).toEqual([]);
	});
});
