// Every read operation under injected faults (429, 500, 502, 503, dropped connections, and all of them mixed) on
// 30% of its requests: each run must give exactly the output of a run without faults, or, where one request met a
// fault on every attempt, a clear error naming the last status once the bounded retries are spent.
import type { FaultRule, RequestRecord, Sandbox } from '../../sandbox/index.cts';
import { failure, run, useSandbox } from '../node/setup.cts';
import { comparableOutput, errorOf, Figures, startGateway } from './helpers.cts';
import type { ErrorFields } from './helpers.cts';
import { markedItem, READS } from './operations.cts';
import type { OperationCase } from './operations.cts';

const FAULT_RATE = 0.3;
/** Runs per operation and fault kind: at least this many, and more until the kind met the operation twice. */
const MIN_RUNS = 3;
const MAX_RUNS = 30;
const MIN_FAULTED_REQUESTS = 2;
/** One try and the transport's three retries. */
const ATTEMPTS = 4;

interface FaultKind {
	name: string;
	rules(rate: number): FaultRule[];
}

// Status faults carry Retry-After: 0, which keeps the runs fast (a real wait is checked on its own below); dropped
// connections carry none, so the node's own backoff runs there.
const status = (code: number) => (probability: number): FaultRule[] => [
	{ kind: 'status', status: code, retryAfterSeconds: 0, probability },
];
const drop = (probability: number): FaultRule[] => [{ kind: 'drop', probability }];
const SINGLE_KINDS: FaultKind[] = [
	{ name: '429', rules: status(429) },
	{ name: '500', rules: status(500) },
	{ name: '502', rules: status(502) },
	{ name: '503', rules: status(503) },
	{ name: 'dropped connection', rules: drop },
];
const FAULT_KINDS: FaultKind[] = [
	...SINGLE_KINDS,
	{
		name: 'mixed',
		// Each of the five fires with a probability that adds up to the rate (the first that fires answers).
		rules: (rate) => SINGLE_KINDS.flatMap((kind) => kind.rules(1 - (1 - rate) ** (1 / SINGLE_KINDS.length))),
	},
];

// A sandbox per fault kind (faults apply to a whole sandbox), so the kinds run side by side and the node's
// backoff waits overlap.
const sandboxes = FAULT_KINDS.map(() => useSandbox());
const sandbox = sandboxes[0];
const figures = new Figures('Reliability: read operations under injected faults');

/** The error after a request met a fault on each of its attempts: it names the last status or the dropped connection. */
function exhaustedClearly(error: ErrorFields, log: RequestRecord[]): boolean {
	const gaveUp = error.message.endsWith(`(gave up after ${ATTEMPTS} attempts)`);
	const statusNamed = /^The Ollang API answered (429|500|502|503) /.exec(error.message);
	const dropNamed = /was dropped before an answer arrived/.test(error.message);
	const lastStatusMatches = statusNamed ? error.httpCode === statusNamed[1] : dropNamed;
	return gaveUp && lastStatusMatches && log.filter((record) => record.fault !== undefined).length >= ATTEMPTS;
}

interface KindOutcome {
	kind: string;
	runs: number;
	faulted: number;
	different: string[];
	unclear: string[];
}

/** Runs the operation under one fault kind, on that kind's sandbox, and compares each run with a clean one. */
async function underFaults(s: Sandbox, operation: OperationCase, kind: FaultKind): Promise<KindOutcome> {
	const parameters = operation.parameters(s);
	const item = await markedItem(operation, s, `reads-${operation.name}`);
	s.faults.clear();
	const clean = await run(s, parameters, { items: [item] });
	if (clean.error || clean.items.length === 0) throw new Error(`${operation.name} fails without faults: ${clean.error?.message}`);
	const baseline = await comparableOutput(clean);

	const outcome: KindOutcome = { kind: kind.name, runs: 0, faulted: 0, different: [], unclear: [] };
	figures.add('runs whose retries ran out, with a clear error naming the last status', 0);
	while (outcome.runs < MIN_RUNS || (outcome.faulted < MIN_FAULTED_REQUESTS && outcome.runs < MAX_RUNS)) {
		s.requests.reset();
		kind.rules(FAULT_RATE).forEach((rule) => s.faults.add(rule));
		const result = await run(s, parameters, { items: [item] });
		s.faults.clear();
		const log = [...s.requests.log];
		const faulted = log.filter((record) => record.fault !== undefined).length;
		outcome.runs++;
		outcome.faulted += faulted;
		figures.add('runs under faults');
		figures.add('requests sent', log.length);
		figures.add('requests that met a fault', faulted);
		const error = errorOf(result);
		if (!error) {
			if ((await comparableOutput(result)) === baseline) figures.add('runs with the output of a clean run');
			else outcome.different.push(`${kind.name} run ${outcome.runs}`);
		} else if (exhaustedClearly(error, log)) {
			figures.add('runs whose retries ran out, with a clear error naming the last status');
		} else {
			outcome.unclear.push(`${kind.name} run ${outcome.runs}: ${error.message}`);
		}
	}
	figures.add('read operations x fault kinds tried');
	figures.add('runs with a different output (must be 0)', outcome.different.length);
	figures.add('runs failing without a clear error (must be 0)', outcome.unclear.length);
	return outcome;
}

describe.each(READS.map((operation) => [operation.name, operation] as [string, OperationCase]))('%s', (_name, operation) => {
	it(`gives the output of a run without faults under ${FAULT_RATE * 100}% faults of each kind`, async () => {
		const outcomes = await Promise.all(FAULT_KINDS.map((kind, index) => underFaults(sandboxes[index](), operation, kind)));

		expect(outcomes.flatMap((outcome) => outcome.different)).toEqual([]);
		expect(outcomes.flatMap((outcome) => outcome.unclear)).toEqual([]);
		// Every kind really met the operation's requests.
		expect(outcomes.filter((outcome) => outcome.faulted < MIN_FAULTED_REQUESTS).map((outcome) => outcome.kind)).toEqual([]);
	});
});

describe('retries are bounded', () => {
	const getOrder = () => ({
		resource: 'order',
		operation: 'get',
		orderId: { __rl: true, mode: 'id', value: sandbox().fixtures.orders.byStatus.completed },
	});

	it.each([
		['429', { kind: 'status', status: 429, retryAfterSeconds: 0 } as FaultRule, /^The Ollang API answered 429 /],
		['500', { kind: 'status', status: 500, retryAfterSeconds: 0 } as FaultRule, /^The Ollang API answered 500 /],
		['502', { kind: 'status', status: 502, retryAfterSeconds: 0 } as FaultRule, /^The Ollang API answered 502 /],
		['503', { kind: 'status', status: 503, retryAfterSeconds: 0 } as FaultRule, /^The Ollang API answered 503 /],
		['504', { kind: 'status', status: 504, retryAfterSeconds: 0 } as FaultRule, /^The Ollang API answered 504 /],
		['a dropped connection', { kind: 'drop' } as FaultRule, /^Could not complete GET \/integration\/orders\/\w+: the connection to .* was dropped/],
	])('after %s on every attempt: four attempts, then an error naming it', async (_name, rule, message) => {
		sandbox().faults.add({ ...rule, path: '/integration/orders/:orderId' });

		const error = failure(await run(sandbox(), getOrder()));

		expect(sandbox().requests.count()).toBe(ATTEMPTS);
		expect(error.message).toMatch(message);
		expect(error.message).toContain(`(gave up after ${ATTEMPTS} attempts)`);
		expect(error.itemIndex).toBe(0);
		if (rule.kind === 'status') expect(error.httpCode).toBe(String(rule.status));
	});

	it('Retry-After is waited for before the next attempt', async () => {
		const arrivals: number[] = [];
		const gateway = await startGateway(sandbox().baseUrl, (index) => {
			arrivals.push(performance.now());
			if (index > 0) return undefined;
			return (res) => {
				const body = JSON.stringify({ statusCode: 429, message: 'Too Many Requests' });
				res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
				res.end(body);
			};
		});
		try {
			const result = await run(sandbox(), getOrder(), { baseUrl: gateway.baseUrl });

			expect(result.error).toBeUndefined();
			expect(arrivals).toHaveLength(2);
			// A lower bound on a wait the node must make, not a speed expectation: the node's own first backoff
			// would be at most 500 ms, so an earlier retry means the header was not honoured. (Timers may fire a
			// millisecond or two early as measured here.)
			expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(990);
		} finally {
			await gateway.close();
		}
	});

	it('a Retry-After longer than the node waits is not slept through: one attempt, and the error says how long', async () => {
		sandbox().faults.add({ kind: 'status', status: 503, retryAfterSeconds: 90, path: '/integration/orders/:orderId' });

		const error = failure(await run(sandbox(), getOrder()));

		expect(sandbox().requests.count()).toBe(1);
		expect(error.description).toContain('asked to wait 90 s');
	});
});

describe('a 500 on a read', () => {
	const exportXlsx = (orderId: string) => ({ resource: 'order', operation: 'exportXlsx', orderId: { __rl: true, mode: 'id', value: orderId } });

	it('is retried when it is a passing fault, and the export completes', async () => {
		sandbox().faults.add({ kind: 'status', status: 500, retryAfterSeconds: 0, times: 2, path: '/integration/orders/:orderId/export-xlsx' });

		const result = await run(sandbox(), exportXlsx(sandbox().fixtures.orders.subtitleCompleted));

		expect(result.error).toBeUndefined();
		expect(sandbox().requests.log.map((record) => record.status)).toEqual([500, 500, 200]);
	});

	it('is not retried when the API documents it as final (an export without segment data)', async () => {
		const orderId = sandbox().fixtures.orders.noSegmentData;

		const error = failure(await run(sandbox(), exportXlsx(orderId)));

		expect(sandbox().requests.count()).toBe(1);
		expect(error.message).toContain(`No segment data found for order ${orderId}`);
	});
});
