import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
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

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				'X-Api-Key': '={{$credentials.apiKey}}',
			},
		},
	};

	// Any valid key may read the suggestions, whatever its roles, so the test tells a bad key from a good one.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/integration/custom-instructions/suggestions',
			method: 'GET',
		},
	};
}
