// The contract check: every read-only operation of the Ollang node, run through n8n-core's engine with the node's
// own transport (test/harness), against a base URL; each raw answer compared with the contract. Nothing here
// creates, changes or spends anything: only the node's read operations are run (READ_ONLY_NOTICE).
import type { INodeParameters } from 'n8n-workflow';
import { redactor, redactValue } from '../nodes/Ollang/transport/redaction';
import { baseUrlProblem } from '../nodes/Ollang/transport/target';
import { runNode } from '../test/harness/engine.cts';
import { classifyOperation, type OperationReport } from './classify.cts';
import { REVIEW_INFO_SDK_PATH } from './endpoints.cts';
import { READ_ONLY_NOTICE } from './format.cts';
import { startRecorder, type Recorder } from './recorder.cts';

export { READ_ONLY_NOTICE } from './format.cts';

export interface CheckOptions {
	baseUrl: string;
	apiKey: string;
	/** A Figma file key whose orders to list (the API cannot list Figma files). */
	figmaFileKey?: string;
	/** A memory import job to read (the API cannot list import jobs). */
	importJobId?: string;
	/** Called with each operation's report as it finishes. */
	onOperation?: (report: OperationReport) => void;
}

export interface CheckReport {
	baseUrl: string;
	readOnly: string;
	startedAt: string;
	operations: OperationReport[];
	/** Why the check stopped early (unreachable service, refused key). */
	fatal?: string;
	summary: { ok: number; differs: number; unreachable: number; skipped: number; additions: number };
	exitCode: 0 | 1 | 2;
}

type Json = Record<string, unknown>;

const byId = (value: string): INodeParameters => ({ __rl: true, mode: 'id', value });
const firstString = (items: Json[], field: string): string | undefined => items.map((item) => item[field]).find((value): value is string => typeof value === 'string' && value !== '');

/** How many rows list operations read: one page is enough to see the shape, and light on the service. */
const LIST_LIMIT = 20;

export async function runContractCheck(options: CheckOptions): Promise<CheckReport> {
	const problem = baseUrlProblem(options.baseUrl);
	if (problem) throw new Error(`--base-url: ${problem}`);
	if (options.apiKey.trim() === '') throw new Error('No API key: give --api-key or set OLLANG_API_KEY');
	const origin = new URL(options.baseUrl).origin;
	const report: CheckReport = { baseUrl: options.baseUrl, readOnly: READ_ONLY_NOTICE, startedAt: new Date().toISOString(), operations: [], summary: { ok: 0, differs: 0, unreachable: 0, skipped: 0, additions: 0 }, exitCode: 0 };
	const recorder = await startRecorder(options.baseUrl);
	try {
		await runOperations(recorder, origin, options, report);
	} finally {
		await recorder.close();
	}
	for (const operation of report.operations) {
		if (operation.informational) continue;
		report.summary[operation.outcome] += 1;
		report.summary.additions += operation.additions.length;
	}
	const counted = report.operations.filter((operation) => !operation.informational);
	report.exitCode = report.fatal !== undefined || counted.some((operation) => operation.outcome === 'unreachable') ? 2 : counted.some((operation) => operation.outcome === 'differs') ? 1 : 0;
	return report;
}

class Stop extends Error {}

async function runOperations(recorder: Recorder, origin: string, options: CheckOptions, report: CheckReport): Promise<void> {
	const redact = redactor(options.apiKey);
	const add = (found: OperationReport) => {
		// An answer may echo the key (a debugging proxy, a careless error page): it leaves the check redacted.
		const operation = redactValue(found, redact) as OperationReport;
		report.operations.push(operation);
		options.onOperation?.(operation);
		return operation;
	};
	const skip = (operation: string, why: string) => add({ operation, outcome: 'skipped', requests: [], differences: [], additions: [], problems: [], notes: [why] });
	/** Runs one operation of the node and classifies what it exchanged; returns the node's output items. */
	const run = async (
		operation: string,
		parameters: INodeParameters,
		extra: { rewrite?: (path: string) => string; informational?: boolean; annotate?: (report: OperationReport) => void } = {},
	): Promise<{ items: Json[]; report: OperationReport }> => {
		recorder.exchanges.length = 0;
		recorder.rewrite = extra.rewrite;
		const result = await runNode({ parameters, credentials: { baseUrl: recorder.baseUrl, apiKey: options.apiKey } });
		recorder.rewrite = undefined;
		const nodeError = result.error ? [result.error.message, result.error.description].filter(Boolean).join(' ') : undefined;
		const found = classifyOperation(operation, [...recorder.exchanges], origin, nodeError);
		if (extra.informational) found.informational = true;
		extra.annotate?.(found);
		const classified = add(found);
		if (classified.keyRefused) {
			report.fatal = `The API refused the key (401): check the key; nothing else can be checked.`;
			throw new Stop();
		}
		return { items: result.items.map((item) => item.json as Json), report: classified };
	};

	try {
		const health = await run('Health > Check', { resource: 'health', operation: 'check' });
		if (health.report.outcome === 'unreachable') {
			report.fatal = `The service at ${origin} is unreachable: ${health.report.problems.join('; ')}`;
			return;
		}
		await run('Credit Wallet > Get', { resource: 'creditWallet', operation: 'get' });
		await run('Consumption > Get Many', { resource: 'consumption', operation: 'getMany', returnAll: false, limit: LIST_LIMIT });

		const orders = (await run('Order > Get Many', { resource: 'order', operation: 'getMany', returnAll: false, limit: LIST_LIMIT })).items;
		const orderId = firstString(orders, 'id');
		if (orderId === undefined) {
			for (const name of ['Order > Get', 'Order > Get Review Info', 'Revision > Get Many']) skip(name, 'no order found to read');
		} else {
			await run('Order > Get', { resource: 'order', operation: 'get', orderId: byId(orderId) });
			// Prefer an order in the review gate, whose info is not all null.
			const gated = firstString(orders.filter((order) => order.status === 'qualityCheck'), 'id') ?? orderId;
			const info = { resource: 'order', operation: 'getReviewInfo', orderId: byId(gated) };
			// The node's operation, once with its path rewritten to the SDK's on the way; then on its own (spec) path.
			const sdkPath = REVIEW_INFO_SDK_PATH.replace(':orderId', encodeURIComponent(gated));
			const sdk = await run(`Order > Get Review Info on the SDK's path`, info, { rewrite: () => sdkPath, informational: true });
			await run('Order > Get Review Info', info, { annotate: (spec) => compareReviewInfoPaths(spec, sdk.report) });
			const revisable = firstString(orders.filter((order) => order.status === 'completed' || order.status === 'delivered'), 'id') ?? orderId;
			await run('Revision > Get Many', { resource: 'revision', operation: 'getMany', orderId: byId(revisable), returnAll: true });
		}

		const projects = (await run('Project > Get Many', { resource: 'project', operation: 'getMany', returnAll: false, limit: LIST_LIMIT })).items;
		const projectId = firstString(projects, 'id');
		if (projectId === undefined) skip('Project > Get', 'no project found to read');
		else await run('Project > Get', { resource: 'project', operation: 'get', projectId: byId(projectId) });

		const folders = (await run('Folder > Get Many', { resource: 'folder', operation: 'getMany', returnAll: false, limit: LIST_LIMIT })).items;
		const folderId = firstString(folders, 'id');
		if (folderId === undefined) {
			for (const name of ['Folder > Get Order Language Pairs', 'Folder > List Documents']) skip(name, 'no folder found to read');
		} else {
			await run('Folder > Get Order Language Pairs', { resource: 'folder', operation: 'getOrderLanguagePairs', folderId: byId(folderId) });
			await run('Folder > List Documents', { resource: 'folder', operation: 'listDocuments', folderId: byId(folderId), returnAll: true });
		}

		const memories = (await run('Memory > Get Many', { resource: 'memory', operation: 'getMany', returnAll: false, limit: LIST_LIMIT })).items;
		const memoryId = firstString(memories, 'id');
		if (memoryId === undefined) skip('Memory > Get', 'no memory found to read');
		else await run('Memory > Get', { resource: 'memory', operation: 'get', memoryId: byId(memoryId) });
		if (options.importJobId === undefined) skip('Memory > Get Import Job', 'the API cannot list import jobs; give --import-job ID to check one');
		else await run('Memory > Get Import Job', { resource: 'memory', operation: 'getImportJob', jobId: options.importJobId });

		await run('Custom Instruction > Get Suggestions', { resource: 'customInstruction', operation: 'getSuggestions' });
		const instructions = (await run('Custom Instruction > Get Many', { resource: 'customInstruction', operation: 'getMany', returnAll: true })).items;
		const instructionId = firstString(instructions, 'id');
		if (instructionId === undefined) skip('Custom Instruction > Get', 'no custom instruction found to read');
		else await run('Custom Instruction > Get', { resource: 'customInstruction', operation: 'get', instructionId });

		await run('Locale > Get Languages', { resource: 'locale', operation: 'getLanguages' });
		await run('Locale > Search', { resource: 'locale', operation: 'search', query: 'en' });
		await run('Locale > Validate Tag', { resource: 'locale', operation: 'validateTag', tag: 'en' });

		const language = firstString(orders, 'targetLanguage') ?? 'en';
		await run('Content > Export', { resource: 'content', operation: 'export', targetLanguages: language, output: 'map' });

		if (options.figmaFileKey === undefined) {
			for (const name of ['Figma Order > Get Many by File', 'Figma Order > Get Status']) skip(name, 'the API cannot list Figma files; give --figma-file KEY to check them');
		} else {
			const figmaOrders = (await run('Figma Order > Get Many by File', { resource: 'figmaOrder', operation: 'getManyByFile', fileKey: options.figmaFileKey, returnAll: true })).items;
			const figmaOrderId = firstString(figmaOrders, 'id');
			if (figmaOrderId === undefined) skip('Figma Order > Get Status', 'the Figma file has no orders');
			else await run('Figma Order > Get Status', { resource: 'figmaOrder', operation: 'getStatus', orderId: byId(figmaOrderId) });
		}
	} catch (error) {
		if (!(error instanceof Stop)) throw error;
	}
}

/** The spec serves review info at /v1/api/client/..., the SDKs at /integration/...: says which one works. */
function compareReviewInfoPaths(spec: OperationReport, sdk: OperationReport): void {
	const missing = (report: OperationReport) => report.requests.some((request) => request.status === 404);
	if (missing(spec) && sdk.outcome === 'ok') {
		spec.notes.push(`the SDK's path ${REVIEW_INFO_SDK_PATH} answers and matches the contract: that path works, the spec's (the node's) does not`);
	} else if (spec.outcome === 'ok' && missing(sdk)) {
		spec.notes.push(`the spec's path (the node's) works; the SDK's path ${REVIEW_INFO_SDK_PATH} answers 404`);
	} else if (spec.outcome === 'ok' && sdk.outcome === 'ok') {
		spec.notes.push('both review-info paths answer');
	}
}
