// The check's report for a person in a terminal, and the key kept out of everything shown or written.
import type { CheckReport } from './check.cts';

export const READ_ONLY_NOTICE = 'Read-only: runs only operations that read (no order, upload, import or change is made; nothing spends credits).';
import type { OperationReport } from './classify.cts';

/** data[3].x and data[7].x are one kind of difference: shown once, with how many more elements have it. */
const kindOf = (request: string, path: string) => `${request} ${path.replace(/\[\d+\]/g, '[*]')}`;

function grouped<T extends { request: string; path: string }>(entries: T[]): Array<{ first: T; more: number }> {
	const groups = new Map<string, { first: T; more: number }>();
	for (const entry of entries) {
		const key = kindOf(entry.request, entry.path);
		const group = groups.get(key);
		if (group) group.more += 1;
		else groups.set(key, { first: entry, more: 0 });
	}
	return [...groups.values()];
}

const more = (count: number) => (count > 0 ? ` (and ${count} more like it)` : '');

export function operationLines(operation: OperationReport): string[] {
	const label = operation.informational ? `${operation.operation} (for information)` : operation.operation;
	const lines = [`${operation.outcome.padEnd(12)}${label}`];
	const manyRequests = new Set(operation.requests.map((request) => `${request.method} ${request.path}`)).size > 1;
	const where = (request: string) => (manyRequests ? `(${request}) ` : '');
	for (const problem of operation.problems) lines.push(`    ${problem}`);
	for (const { first, more: count } of grouped(operation.differences)) {
		lines.push(`    ${where(first.request)}${first.path}: expected ${first.expected}, got ${first.received}${more(count)}`);
	}
	for (const { first, more: count } of grouped(operation.additions)) {
		lines.push(`    + ${where(first.request)}${first.path}: not in the contract (an addition, not a failure)${more(count)}`);
	}
	for (const note of operation.notes) lines.push(`    note: ${note}`);
	return lines;
}

export function summaryLine(report: CheckReport): string {
	const { ok, differs, unreachable, skipped, additions } = report.summary;
	const verdict = report.exitCode === 0 ? 'every answer matches the contract' : report.exitCode === 1 ? 'answers differ from the contract' : 'the service could not be checked';
	return `Contract check of ${report.baseUrl}: ${ok} ok, ${differs} differs, ${unreachable} unreachable, ${skipped} skipped; ${additions} additions; ${verdict} (exit ${report.exitCode}).`;
}
