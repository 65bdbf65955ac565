import type {
	Icon,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

export class OllangApi implements ICredentialType {
	name = 'ollangApi';

	displayName = 'Ollang API';

	documentationUrl = 'https://api-docs.ollang.com';

	icon: Icon = {
		light: 'file:../nodes/Ollang/ollang.svg',
		dark: 'file:../nodes/Ollang/ollang.dark.svg',
	};

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The API key from the Ollang dashboard (Settings > API keys)',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api-integration.ollang.com',
			required: true,
			description:
				'Address of the Ollang integration API. Must use https, except for a local address (localhost, 127.x.x.x, [::1]) such as the Ollang sandbox.',
		},
	];

	// A function rather than a generic `={{$credentials.apiKey}}` header: n8n evaluates a generic header's expression
	// on every request (in n8n 2.x inside its expression isolate, about a millisecond of CPU each); n8n 1.x and 2.x
	// call a function directly with the decrypted credential.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, 'X-Api-Key': String(credentials.apiKey ?? '') },
		};
	}

	// Any valid key may read the suggestions, whatever its roles, so the test tells a bad key from a good one.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/integration/custom-instructions/suggestions',
			method: 'GET',
		},
	};
}
