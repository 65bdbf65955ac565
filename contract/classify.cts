// What one operation's exchanges with the API say about the contract: ok, differs, or unreachable, and why.
import { parseBodyText, snippet } from '../nodes/Ollang/transport/exchange';
import { compareWithSchema, type Difference } from './compare.cts';
import { endpointFor } from './endpoints.cts';
import type { Exchange } from './recorder.cts';

export type Outcome = 'ok' | 'differs' | 'unreachable' | 'skipped';

export interface RequestDifference extends Difference {
	/** "GET /integration/orders/…" */
	request: string;
}

export interface OperationReport {
	operation: string;
	outcome: Outcome;
	/** Every request the operation made, with the status of its answer (null: none came). */
	requests: Array<{ method: string; path: string; status: number | null }>;
	differences: RequestDifference[];
	additions: Array<{ request: string; path: string }>;
	/** Why the operation did not match or could not be checked, one clear line each. */
	problems: string[];
	notes: string[];
	/** Shown, but not counted in the exit code (the SDK's review-info path, which the node does not call). */
	informational?: boolean;
	/** The API refused the key (401): nothing else can be checked. */
	keyRefused?: boolean;
}

function errorMessage(body: Buffer): string {
	const parsed = parseBodyText(body);
	if (parsed.isJson && parsed.json !== null && typeof parsed.json === 'object') {
		const { message, code, error } = parsed.json as Record<string, unknown>;
		const text = Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : typeof error === 'string' ? error : '';
		return [typeof code === 'string' ? code : '', text].filter(Boolean).join(' ') || snippet(parsed.text);
	}
	return snippet(parsed.text) || 'an empty body';
}

function bodyProblem(exchange: Exchange): string | undefined {
	const text = exchange.body.toString('utf8');
	const what = `answered ${exchange.status} with`;
	if (text.trim() === '') return `${what} an empty body where the contract expects JSON`;
	if (/^\s*</.test(text)) return `${what} an HTML page where the contract expects JSON: "${snippet(text)}"`;
	try {
		JSON.parse(text);
		return undefined;
	} catch (error) {
		return `${what} a body that is not JSON (${(error as Error).message}; ${exchange.body.length} bytes, cut off?): "${snippet(text)}"`;
	}
}

/** Classifies one exchange, adding to the report. */
function classifyExchange(exchange: Exchange, report: OperationReport, origin: string): void {
	const request = `${exchange.method} ${exchange.upstreamPath}`;
	const status = exchange.status;
	if (exchange.failure !== undefined || status === null) {
		report.problems.push(`${request}: no answer from ${origin} (${exchange.failure ?? 'connection closed'})`);
		report.outcome = 'unreachable';
		return;
	}
	if (status === 401) {
		report.problems.push(`${request}: the API refused the key (401 ${errorMessage(exchange.body)})`);
		report.outcome = 'unreachable';
		report.keyRefused = true;
		return;
	}
	if (status === 403) {
		report.problems.push(`${request}: the key has no rights for this (403 ${errorMessage(exchange.body)})`);
		report.outcome = 'unreachable';
		return;
	}
	if (status >= 300 && status < 400) {
		const location = exchange.headers.location ?? '';
		let target: URL | undefined;
		try {
			target = new URL(location, origin);
		} catch {
			target = undefined;
		}
		if (!target || target.origin !== origin) {
			report.problems.push(`${request}: redirected (${status}) to ${target?.origin ?? (location || 'nowhere')}; not followed, so the key is not sent to another host`);
			report.outcome = 'unreachable';
		} else {
			report.notes.push(`${request}: redirected (${status}) to ${target.pathname} on the same host, which the node follows`);
		}
		return;
	}
	if (status >= 500) {
		report.problems.push(`${request}: the service answered ${status}: ${errorMessage(exchange.body)}`);
		report.outcome = 'unreachable';
		return;
	}
	if (status === 404) {
		report.problems.push(`${request}: 404 (${errorMessage(exchange.body)}): the endpoint is missing or moved`);
		if (report.outcome !== 'unreachable') report.outcome = 'differs';
		return;
	}
	if (status >= 400) {
		report.problems.push(`${request}: the service refused the node's request: ${status} ${errorMessage(exchange.body)}`);
		if (report.outcome !== 'unreachable') report.outcome = 'differs';
		return;
	}
	const problem = bodyProblem(exchange);
	if (problem !== undefined) {
		report.problems.push(`${request}: ${problem}`);
		if (report.outcome !== 'unreachable') report.outcome = 'differs';
		return;
	}
	const endpoint = endpointFor(exchange.method, exchange.upstreamPath);
	if (!endpoint) {
		report.notes.push(`${request}: no contract for this endpoint; not compared`);
		return;
	}
	const comparison = compareWithSchema(endpoint.schema, JSON.parse(exchange.body.toString('utf8')));
	report.differences.push(...comparison.differences.map((difference) => ({ request, ...difference })));
	report.additions.push(...comparison.additions.map((path) => ({ request, path })));
	if (comparison.differences.length > 0 && report.outcome !== 'unreachable') report.outcome = 'differs';
}

/**
 * The report of one operation from its exchanges and the node's error, if any. Retries of one request count once:
 * the last answer is the one the node acted on.
 */
export function classifyOperation(operation: string, exchanges: Exchange[], origin: string, nodeError: string | undefined): OperationReport {
	const report: OperationReport = { operation, outcome: 'ok', requests: [], differences: [], additions: [], problems: [], notes: [] };
	const last = new Map<string, Exchange>();
	for (const exchange of exchanges) {
		report.requests.push({ method: exchange.method, path: exchange.upstreamPath, status: exchange.status });
		last.set(`${exchange.method} ${exchange.upstreamPath}`, exchange);
	}
	for (const exchange of last.values()) classifyExchange(exchange, report, origin);
	if (nodeError !== undefined && report.problems.length === 0) {
		// Every answer matched, yet the node failed: its parsing and the contract disagree.
		report.problems.push(`the node failed: ${nodeError}`);
		if (report.outcome === 'ok') report.outcome = 'differs';
	}
	return report;
}
