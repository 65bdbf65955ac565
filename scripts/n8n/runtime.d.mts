// Types of runtime.mjs for the TypeScript that imports it (the end-to-end tests). Keep in step with runtime.mjs.
import type { ChildProcess } from 'node:child_process';

export const NODE_VERSION: string;
export const N8N_VERSION: string;
export const DEFAULT_N8N_VERSION: string;
export const N8N_VERSIONS: Record<string, { overrides: Record<string, string> }>;
export const REPO_ROOT: string;
export const N8N_ENCRYPTION_KEY: string;

export interface RuntimePaths {
	dir: string;
	nodeHome: string;
	nodeBin: string;
	n8nPrefix: string;
	n8nBin: string;
	marker: string;
}

export interface Runtime {
	nodeBin: string;
	n8nBin: string;
	env: NodeJS.ProcessEnv;
	paths: RuntimePaths;
}

export interface Owner {
	email: string;
	password: string;
	firstName?: string;
	lastName?: string;
}

export const LOCAL_OWNER: Readonly<Required<Owner>>;

export function cacheRoot(): string;
export function runtimePaths(root?: string): RuntimePaths;
export function ensureRuntime(): Promise<Runtime>;
export function n8nFilesDir(userFolder: string): string;
export function n8nEnv(runtime: Runtime, userFolder: string, extra?: Record<string, string>): NodeJS.ProcessEnv;

export interface CommandOutput {
	label: string;
	stdout: string;
	stderr: string;
}

/** Options of every function that runs an n8n CLI command. */
export interface N8nCommandOptions {
	/** Added to n8n's environment. */
	env?: Record<string, string>;
	/** Receives the command's output, whether it succeeded or not. */
	onOutput?: (output: CommandOutput) => void;
}

/** Whether an n8n process's error is a SIGSEGV while exiting (its run may have finished before it). */
export function diedWhileExiting(error: unknown): boolean;
export function runN8n(
	userFolder: string,
	args: string[],
	options?: N8nCommandOptions & { label?: string },
): Promise<{ stdout: string; stderr: string; elapsedMs: number }>;

export function packageSourceHash(): string;
export function buildPackageTarball(options?: { echo?: boolean }): Promise<{ tarball: string; sourceHash: string }>;

export interface InstalledPackage {
	skipped: boolean;
	packageDir: string;
	nodeTypes: string[];
	credentialTypes: string[];
}

export function packAndInstall(userFolder: string, options?: { force?: boolean; echo?: boolean }): Promise<InstalledPackage>;

export interface CredentialToImport {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

export function importCredentials(userFolder: string, creds: CredentialToImport[], options?: N8nCommandOptions): Promise<void>;
export function importWorkflows(userFolder: string, files: string[], options?: N8nCommandOptions): Promise<string[]>;
export function publishWorkflow(userFolder: string, id: string, options?: N8nCommandOptions): Promise<void>;

/** One output item of a node, as n8n stores it. */
export interface N8nItem {
	json: Record<string, unknown>;
	binary?: Record<string, { id?: string; data: string; fileName?: string; mimeType: string; fileSize?: string; bytes?: number }>;
	pairedItem?: unknown;
}

export interface N8nNodeRun {
	startTime: number;
	executionStatus?: string;
	error?: { message: string; description?: string | null; httpCode?: string | null; [key: string]: unknown };
	data?: { main: Array<N8nItem[] | null> };
	/** The node's execution hints (addExecutionHints), shown above its output. */
	hints?: Array<{ message: string; location?: string }>;
}

export interface N8nRunData {
	resultData: {
		runData: Record<string, N8nNodeRun[]>;
		lastNodeExecuted?: string;
		error?: { message: string; description?: string | null; httpCode?: string | null; node?: { name: string }; [key: string]: unknown };
	};
}

/** What `n8n execute --rawOutput` prints. */
export interface N8nRun {
	status: string;
	mode: string;
	finished: boolean;
	data: N8nRunData;
}

/** A failed `executeWorkflow` rejects with this: `run` is the failed run when n8n printed it. */
export interface ExecuteWorkflowError extends Error {
	run?: N8nRun;
	output: string;
}

export function executeWorkflow(userFolder: string, id: string, options?: N8nCommandOptions): Promise<N8nRun>;

export interface RunningN8n {
	url: string;
	child: ChildProcess;
	owner: Owner | null;
	output(): string;
	stop(): Promise<void>;
}

export function startN8n(
	userFolder: string,
	options?: {
		port?: number;
		owner?: Owner | null;
		onLine?: (line: string) => void;
		env?: Record<string, string>;
		timeoutMs?: number;
	},
): Promise<RunningN8n>;

export interface RunningWorker {
	child: ChildProcess;
	output(): string;
	stop(): Promise<void>;
}

export function startN8nWorker(
	userFolder: string,
	options?: { concurrency?: number; onLine?: (line: string) => void; env?: Record<string, string>; timeoutMs?: number },
): Promise<RunningWorker>;

export interface RunningWebhook {
	/** http://127.0.0.1:PORT: its production webhooks are under /webhook/. */
	url: string;
	child: ChildProcess;
	output(): string;
	stop(): Promise<void>;
}

export function startN8nWebhook(
	userFolder: string,
	options?: { port?: number; onLine?: (line: string) => void; env?: Record<string, string>; timeoutMs?: number },
): Promise<RunningWebhook>;

export function signIn(baseUrl: string, owner?: Owner): Promise<string>;
export function listLoadedNodeTypes(baseUrl: string, cookie: string): Promise<string[]>;
export function restRequest<T = unknown>(baseUrl: string, cookie: string, method: string, pathname: string, body?: unknown): Promise<T>;
export function createWorkflow<T extends Record<string, unknown>>(baseUrl: string, cookie: string, workflow: T): Promise<T & { id: string }>;
export function deleteWorkflow(baseUrl: string, cookie: string, id: string): Promise<void>;

export interface N8nExecution {
	id: string;
	mode: string;
	status: string;
	startedAt: string;
	stoppedAt?: string | null;
	workflowId: string;
	data: N8nRunData;
}

export function readWorkflowStaticData(baseUrl: string, cookie: string, workflowId: string): Promise<Record<string, unknown>>;
export function readExecutions(baseUrl: string, cookie: string, workflowId: string, options?: { limit?: number }): Promise<N8nExecution[]>;
export function readExecutionSummaries(baseUrl: string, cookie: string, workflowId: string, options?: { limit?: number }): Promise<Array<Omit<N8nExecution, 'data'>>>;

export function activateWorkflow(baseUrl: string, cookie: string, id: string, versionId?: string): Promise<unknown>;
/** A published workflow's production webhook, sent again while n8n still answers that it is not registered. */
export function callProductionWebhook(baseUrl: string, pathname: string, init?: RequestInit, options?: { timeoutMs?: number }): Promise<{ status: number; text: string }>;

export interface InstalledCommunityPackage {
	packageName: string;
	installedVersion: string;
	installedNodes: Array<{ name: string; type: string; latestVersion: number }>;
}

export interface CommunityPackagesAnswer<T> {
	status: number;
	data: T;
	message?: string;
}

export function communityPackages(baseUrl: string, cookie: string, method: 'GET'): Promise<CommunityPackagesAnswer<InstalledCommunityPackage[]>>;
export function communityPackages(
	baseUrl: string,
	cookie: string,
	method: 'POST' | 'PATCH',
	body: { name: string; version?: string },
): Promise<CommunityPackagesAnswer<InstalledCommunityPackage>>;
export function communityPackages(baseUrl: string, cookie: string, method: 'DELETE', body: { name: string }): Promise<CommunityPackagesAnswer<undefined>>;

export const CACHED_TOOLS: Record<'verdaccio', { name: string; version: string; overrides: Record<string, unknown> }>;
export function ensureCachedTool(name: string, version: string, options?: { overrides?: Record<string, unknown> }): Promise<string>;
export function n8nFetch(url: string | URL, init?: RequestInit): Promise<Response>;
export function n8nRequest(url: string | URL, options?: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<{ status: number; text: string }>;
