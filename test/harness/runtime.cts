// The pieces of n8n-core every in-process run shares, built once per process (per jest test file):
// instance settings in a throw-away user folder, the filesystem binary-data store n8n uses by default,
// the node-type and credential-type registries, and the additional data an execution needs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	INodeCredentials,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';
import { BinaryDataService, DataDeduplicationService, ExternalSecretsProxy, InstanceSettings } from 'n8n-core';
import type { ExecutionLifecycleHooks } from 'n8n-core';
import { CredentialTypeRegistry, InMemoryCredentialsHelper } from './credentials-helper.cts';
import { InMemoryDeduplicator } from './deduplication.cts';
import { LazyRegistry } from './lazy-registry.cts';
import type { StoredCredential } from './credentials-helper.cts';
import { TEST_ITEMS_NODE_TYPE, TestItems } from './test-items-node.cts';

type DiModule = typeof import('@n8n/di');
/** n8n-core ships its own copy of @n8n/di; only that copy's Container holds the services n8n-core reads. */
export const { Container } = require(
	require.resolve('@n8n/di', { paths: [dirname(require.resolve('n8n-core'))] }),
) as DiModule;

const packageName = (require('../../package.json') as { name: string }).name;

export const OLLANG_NODE_TYPE = `${packageName}.ollang`;
export const OLLANG_TRIGGER_NODE_TYPE = `${packageName}.ollangTrigger`;
export const OLLANG_CREDENTIAL_TYPE = 'ollangApi';
export { TEST_ITEMS_NODE_TYPE };

type AnyNodeType = INodeType | IVersionedNodeType;

/**
 * Finds a class export in a module loaded lazily, so a harness compiled before the file exists still type-checks.
 * Paths carry their `.ts` extension: beside `X.node.ts` lies the codex `X.node.json`, which Node's `require`
 * would pick for an extensionless path outside jest (it tries `.json` before a loader's `.ts`).
 */
function loadExport<T>(modulePath: string, exportName: string): new () => T {
	let loaded: Record<string, unknown>;
	try {
		loaded = require(modulePath) as Record<string, unknown>;
	} catch (error) {
		const reason = error instanceof Error ? error.message : String(error);
		throw new Error(`Cannot load ${modulePath} (expected export "${exportName}"): ${reason}`);
	}
	const exported = loaded[exportName];
	if (typeof exported !== 'function') {
		throw new Error(`${modulePath} has no class export "${exportName}"`);
	}
	return exported as new () => T;
}

class NodeTypeRegistry implements INodeTypes {
	// A type is "<package>.<description.name>", so a loaded class must carry the name after the dot.
	private readonly registry = new LazyRegistry<AnyNodeType>('node type', (typeName, loaded) => {
		const expected = typeName.slice(typeName.lastIndexOf('.') + 1);
		return loaded.description.name === expected
			? undefined
			: `its description.name is "${loaded.description.name}" (expected "${expected}")`;
	});

	register(typeName: string, nodeType: AnyNodeType): void {
		this.registry.register(typeName, nodeType);
	}

	registerLoader(typeName: string, load: () => AnyNodeType): void {
		this.registry.registerLoader(typeName, load);
	}

	getByName(typeName: string): AnyNodeType {
		return this.registry.get(typeName);
	}

	getByNameAndVersion(typeName: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(typeName), version);
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** Node and credential types known to the harness: ours (loaded on first use), the Test Items node, and any a test registers. */
export const nodeTypes = new NodeTypeRegistry();
export const credentialTypes = new CredentialTypeRegistry();

nodeTypes.register(TEST_ITEMS_NODE_TYPE, new TestItems());
nodeTypes.registerLoader(OLLANG_NODE_TYPE, () => {
	const Ollang = loadExport<INodeType>('../../nodes/Ollang/Ollang.node.ts', 'Ollang');
	return new Ollang();
});
nodeTypes.registerLoader(OLLANG_TRIGGER_NODE_TYPE, () => {
	const OllangTrigger = loadExport<INodeType>('../../nodes/OllangTrigger/OllangTrigger.node.ts', 'OllangTrigger');
	return new OllangTrigger();
});
credentialTypes.registerLoader(OLLANG_CREDENTIAL_TYPE, () => {
	const OllangApi = loadExport<ICredentialType>('../../credentials/OllangApi.credentials.ts', 'OllangApi');
	return new OllangApi();
});

/** Adds a node type under a full type name (e.g. a scratch node in a self-test). */
export function registerNodeType(typeName: string, nodeType: AnyNodeType): void {
	nodeTypes.register(typeName, nodeType);
}

export function registerCredentialType(credentialType: ICredentialType): void {
	credentialTypes.register(credentialType);
}

export interface HarnessRuntime {
	nodeTypes: NodeTypeRegistry;
	credentialTypes: CredentialTypeRegistry;
	binaryData: BinaryDataService;
	/** Throw-away n8n user folder (settings, binary data); removed after the test file (or at process exit). */
	userFolder: string;
}

let runtime: Promise<HarnessRuntime> | undefined;

/** Environment n8n's config classes read when they are first constructed; restored right after. */
function withN8nEnvironment<T>(userFolder: string, build: () => T): T {
	const settings: Record<string, string> = {
		N8N_USER_FOLDER: userFolder,
		// A fixed key: the folder is new every time, and n8n would otherwise generate one and announce it.
		N8N_ENCRYPTION_KEY: 'ollang-harness-encryption-key',
		// Silent unless asked: n8n logs every node error it reports, which would bury test output.
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'silent',
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		N8N_DIAGNOSTICS_ENABLED: 'false',
	};
	const previous = Object.fromEntries(Object.keys(settings).map((key) => [key, process.env[key]]));
	Object.assign(process.env, settings);
	try {
		return build();
	} finally {
		for (const [key, value] of Object.entries(previous)) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
	}
}

const userFolders: string[] = [];

function removeUserFolders(): void {
	for (const folder of userFolders.splice(0)) rmSync(folder, { recursive: true, force: true });
}

// Under jest the module belongs to one test file, and jest's `process` never emits 'exit': clean up after the
// file's tests. Elsewhere (a script run with tsx), at process exit.
if (typeof afterAll === 'function') afterAll(removeUserFolders);
else process.once('exit', removeUserFolders);

async function createRuntime(): Promise<HarnessRuntime> {
	const userFolder = mkdtempSync(join(tmpdir(), 'ollang-harness-'));
	userFolders.push(userFolder);
	const binaryData = withN8nEnvironment(userFolder, () => {
		Container.get(InstanceSettings);
		return Container.get(BinaryDataService);
	});
	await binaryData.init();
	await DataDeduplicationService.init(deduplicationStore);
	return { nodeTypes, credentialTypes, binaryData, userFolder };
}

/** What n8n keeps in its database's deduplication table, for every run of this process. */
export const deduplicationStore = new InMemoryDeduplicator();

/** The n8n-core services, set up on first use. */
export async function getRuntime(): Promise<HarnessRuntime> {
	runtime ??= createRuntime();
	return await runtime;
}

export type CredentialsById = Record<string, { type: string; data: ICredentialDataDecryptedObject }>;

/** Id and name the single-node runs and poll runners give the Ollang credential. */
export const HARNESS_CREDENTIAL = { id: 'harness-ollang-credential', name: 'Ollang account' } as const;

/** The node's credential reference and the stored credential behind it, for the data a test gives. */
export function ollangCredential(data: ICredentialDataDecryptedObject): {
	nodeCredentials: INodeCredentials;
	credentialsById: CredentialsById;
} {
	return {
		nodeCredentials: { [OLLANG_CREDENTIAL_TYPE]: { ...HARNESS_CREDENTIAL } },
		credentialsById: { [HARNESS_CREDENTIAL.id]: { type: OLLANG_CREDENTIAL_TYPE, data } },
	};
}

/** The newest version a node type offers, which is what the editor puts on a new node. */
export function latestVersion(nodeType: AnyNodeType): number {
	if ('currentVersion' in nodeType) return nodeType.currentVersion;
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

export function createCredentialsHelper(credentials: CredentialsById): InMemoryCredentialsHelper {
	const store = new Map<string, StoredCredential>(
		Object.entries(credentials).map(([id, { type, data }]) => [id, { type, data: { ...data } }]),
	);
	return new InMemoryCredentialsHelper(credentialTypes, store);
}

function unsupported(feature: string): never {
	throw new Error(`The engine harness does not support ${feature}`);
}

/**
 * The additional data the CLI would build for an execution. Features our nodes do not use (sub-workflows,
 * task runners, AI agents) fail loudly instead of pretending.
 */
export function createAdditionalData(options: {
	credentialsHelper: InMemoryCredentialsHelper;
	hooks?: ExecutionLifecycleHooks;
	executionId?: string;
	workflowId?: string;
}): IWorkflowExecuteAdditionalData {
	const local = 'http://localhost:5678';
	return {
		credentialsHelper: options.credentialsHelper,
		hooks: options.hooks,
		executionId: options.executionId,
		workflowId: options.workflowId,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${local}/rest`,
		instanceBaseUrl: local,
		formBaseUrl: `${local}/form`,
		formWaitingBaseUrl: `${local}/form-waiting`,
		formTestBaseUrl: `${local}/form-test`,
		webhookBaseUrl: `${local}/webhook`,
		// As an n8n whose WEBHOOK_URL is its public https address: the API (and the sandbox, by default) refuses a
		// loopback Callback URL, and Order > Create and Wait sends this execution's resume URL as one.
		webhookWaitingBaseUrl: 'https://n8n.example.com/webhook-waiting',
		webhookTestBaseUrl: `${local}/webhook-test`,
		mcpBaseUrl: `${local}/mcp`,
		mcpTestBaseUrl: `${local}/mcp-test`,
		variables: {},
		// No secrets providers: `$secrets` resolves to nothing, as on an instance without external secrets.
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: async () => unsupported('executing sub-workflows'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => unsupported('task runners (Code node)'),
	} as IWorkflowExecuteAdditionalData;
}
