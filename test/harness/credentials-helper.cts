// A credentials helper for in-process runs: it keeps decrypted credential data in memory (no database, no
// encryption at rest) and otherwise behaves like n8n's own CLI helper, so a credential type's `authenticate`
// (a function, or a generic block with `={{$credentials.x}}` expressions) is what puts auth on each request.
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, deepCopy } from 'n8n-workflow';
import { Credentials } from 'n8n-core';
import { LazyRegistry } from './lazy-registry.cts';

let decryptions = 0;

/** How many times a credential was read (n8n decrypts it on each read) in this process: this test file. */
export function credentialDecryptions(): number {
	return decryptions;
}

export interface StoredCredential {
	type: string;
	data: ICredentialDataDecryptedObject;
}

export class CredentialTypeRegistry {
	private readonly registry = new LazyRegistry<ICredentialType>('credential type', (name, loaded) =>
		loaded.name === name ? undefined : `its name is "${loaded.name}"`,
	);

	register(type: ICredentialType): void {
		this.registry.register(type.name, type);
	}

	/** A loader run on first use (for files that may not exist yet). */
	registerLoader(name: string, load: () => ICredentialType): void {
		this.registry.registerLoader(name, load);
	}

	recognizes(name: string): boolean {
		return this.registry.recognizes(name);
	}

	getByName(name: string): ICredentialType {
		return this.registry.get(name);
	}

	getParentTypes(name: string): string[] {
		const parents = this.getByName(name).extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	/** Own properties plus inherited ones, the way n8n merges `extends`. */
	getProperties(name: string): INodeProperties[] {
		const type = this.getByName(name);
		const inherited = (type.extends ?? []).flatMap((parent) => this.getProperties(parent));
		const own = new Set(type.properties.map((property) => property.name));
		return [...inherited.filter((property) => !own.has(property.name)), ...type.properties];
	}
}

export class InMemoryCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentialTypes: CredentialTypeRegistry,
		private readonly store: Map<string, StoredCredential>,
	) {
		super();
	}

	getParentTypes(name: string): string[] {
		return this.credentialTypes.getParentTypes(name);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		if (!this.credentialTypes.recognizes(credentialType)) return true;
		const type = this.credentialTypes.getByName(credentialType);
		if (!type.restrictToSupportedNodes) return true;
		const shortName = nodeType.slice(nodeType.lastIndexOf('.') + 1);
		return (type.supportedNodes ?? []).some((supported) => supported === nodeType || supported === shortName);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.credentialTypes.getByName(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			if (!workflow || !node) {
				throw new Error(`Generic authentication of "${typeName}" needs the workflow and node to resolve expressions`);
			}
			requestOptions.headers ??= {};
			const target = requestOptions as unknown as Record<string, Record<string, unknown>>;
			for (const [section, entries] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
					const resolvedKey = String(this.resolve(key, credentials, workflow, node));
					target[section] ??= {};
					target[section][resolvedKey] = this.resolve(value, credentials, workflow, node);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	/** n8n resolves `=`-prefixed values with `$credentials` bound to the decrypted data; other values pass as they are. */
	private resolve(value: unknown, credentials: ICredentialDataDecryptedObject, workflow: Workflow, node: INode): unknown {
		if (typeof value !== 'string' || !value.startsWith('=')) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials },
			undefined,
			'',
		);
		return resolved === undefined || resolved === null ? '' : String(resolved);
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.credentialTypes.getByName(typeName);
		const expirable = type.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
		if (!credentialsExpired && credentials[expirable.name] !== '' && credentials[expirable.name] !== undefined) {
			return undefined;
		}
		const refreshed = (await type.preAuthentication.call(helpers, credentials)) as ICredentialDataDecryptedObject;
		// n8n stores the refreshed fields, so the next execution starts from them.
		const nodeCredentials = node.credentials?.[typeName];
		if (nodeCredentials) await this.updateCredentialsOauthTokenData(nodeCredentials, typeName, refreshed);
		return refreshed;
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.credentialTypes.getByName(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		return (await type.preAuthentication.call(helpers, credentials)) as ICredentialDataDecryptedObject;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<Credentials> {
		const stored = this.find(nodeCredentials, type);
		const credentials = new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, type);
		await credentials.setData(deepCopy(stored.data));
		return credentials;
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		_mode?: WorkflowExecuteMode,
	): Promise<ICredentialDataDecryptedObject> {
		decryptions++;
		const stored = this.find(nodeCredentials, type);
		// n8n fills in the credential type's defaults for fields the stored data leaves out.
		const withDefaults = NodeHelpers.getNodeParameters(
			this.credentialTypes.getProperties(type),
			deepCopy(stored.data) as never,
			true,
			false,
			null,
			null,
		);
		return (withDefaults ?? {}) as ICredentialDataDecryptedObject;
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		this.find(nodeCredentials, type).data = { ...data };
	}

	async updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const stored = this.find(nodeCredentials, type);
		stored.data = { ...stored.data, ...data };
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.credentialTypes.getProperties(type);
	}

	private find(nodeCredentials: INodeCredentialsDetails, type: string): StoredCredential {
		const id = nodeCredentials.id ?? '';
		const stored = this.store.get(id);
		if (!stored) throw new Error(`Credential with ID "${id}" does not exist for type "${type}".`);
		if (stored.type !== type) {
			throw new Error(`Credential with ID "${id}" is of type "${stored.type}", not "${type}".`);
		}
		return stored;
	}
}
