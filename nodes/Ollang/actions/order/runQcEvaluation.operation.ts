import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiPath, apiRequest } from '../../transport';
import { forPaidWrite, orderLocator } from '../common/fields';
import { toResults } from '../common/outcomes';
import { checkBoolean, checkText, invalidField, readId } from '../common/parameters';
import { requireObject } from '../common/responses';
import { writeOnce } from '../common/writeOnce';
import { byLatestEvaluation } from './latestEvaluation';
import type { OperationKind, OperationResult } from '../node.type';

/** The criteria the evaluation can score, as the API names them. */
const CRITERIA: Array<{ name: string; field: string; description: string }> = [
	{
		name: 'accuracy',
		field: 'Accuracy',
		description: 'Whether to score how faithfully the meaning of the source is kept',
	},
	{ name: 'fluency', field: 'Fluency', description: 'Whether to score how naturally the translation reads' },
	{ name: 'tone', field: 'Tone', description: 'Whether to score whether tone and register fit the content' },
	{
		name: 'culturalFit',
		field: 'Cultural Fit',
		description: 'Whether to score whether references and idioms suit the target culture',
	},
];

const MAX_CUSTOM_PROMPT_LENGTH = 4000;

const properties: INodeProperties[] = [
	{
		displayName:
			'Runs an AI quality evaluation of a completed or delivered order. This spends credits (the amount is returned as creditsUsed). The result arrives later: read it from the latestEvaluation of Order > Get once isLoading is false, or receive it at the Callback URL.',
		name: 'qcNotice',
		type: 'notice',
		default: '',
	},
	orderLocator('The order to evaluate: its status must be completed or delivered'),
	...CRITERIA.map(
		(criterion): INodeProperties => ({
			displayName: criterion.field,
			name: criterion.name,
			type: 'boolean',
			default: true,
			description: criterion.description,
		}),
	),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Callback URL',
				name: 'callbackUrl',
				type: 'string',
				default: '',
				placeholder: 'e.g. https://example.com/ollang-qc',
				description:
					"Public https address Ollang calls with the completed evaluation, such as an Ollang Callback Trigger's production URL. Local and private network addresses are refused.",
			},
			{
				displayName: 'Custom Prompt',
				name: 'customPrompt',
				type: 'string',
				typeOptions: { rows: 3 },
				default: '',
				placeholder: 'e.g. Pay special attention to product names and the formal form of address',
				description: 'Extra instructions for the evaluation, in plain language',
			},
		],
	},
];

export const description = forPaidWrite('order', 'runQcEvaluation', properties);

export const kind: OperationKind = 'paidWrite';

/**
 * The IPv4 address inside an IPv6 form that reaches it (mapped ::ffff:, translated ::ffff:0:, NAT64 64:ff9b::), in
 * dotted form; the URL parser writes its last 32 bits as two hex groups (`[::ffff:127.0.0.1]` becomes `::ffff:7f00:1`).
 */
function embeddedV4(host: string): string | undefined {
	const groups = /^(?:::ffff:|::ffff:0:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
	if (!groups) return undefined;
	const [high, low] = [parseInt(groups[1], 16), parseInt(groups[2], 16)];
	return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** Loopback, private, link-local, unique-local and unspecified addresses, and local host names. */
function isPrivateHost(hostname: string): boolean {
	const host = hostname
		.toLowerCase()
		.replace(/^\[|\]$/g, '')
		.replace(/\.$/, '');
	if (host === '' || host === 'localhost') return true;
	if (['.localhost', '.local', '.internal'].some((suffix) => host.endsWith(suffix))) return true;
	const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(embeddedV4(host) ?? host);
	if (v4) {
		const [a, b] = [Number(v4[1]), Number(v4[2])];
		return (
			a === 0 ||
			a === 10 ||
			a === 127 ||
			(a === 169 && b === 254) ||
			(a === 172 && b >= 16 && b <= 31) ||
			(a === 192 && b === 168) ||
			(a === 100 && b >= 64 && b <= 127)
		);
	}
	if (host.includes(':')) return /^::[0-9a-f:]*$/.test(host) || /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
	return false;
}

function checkCallbackUrl(ctx: IExecuteFunctions, value: unknown, itemIndex: number): string | undefined {
	const text = checkText(ctx, value, 'Callback URL', itemIndex, false);
	if (text === undefined) return undefined;
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw invalidField(ctx, itemIndex, 'Callback URL', `"${text}" is not a valid URL`);
	}
	if (url.protocol !== 'https:') {
		throw invalidField(
			ctx,
			itemIndex,
			'Callback URL',
			`"${text}" must start with https:// (the service calls https only)`,
		);
	}
	if (isPrivateHost(url.hostname)) {
		throw invalidField(
			ctx,
			itemIndex,
			'Callback URL',
			`"${url.hostname}" is a local or private address; the service only calls public hosts`,
		);
	}
	return text;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const orderId = readId(this, 'orderId', 'Order', itemIndex);
	const body: IDataObject = {};
	for (const criterion of CRITERIA)
		body[criterion.name] = checkBoolean(this, this.getNodeParameter(criterion.name, itemIndex, true), criterion.field, itemIndex, true);
	if (!CRITERIA.some((criterion) => body[criterion.name] === true)) {
		throw invalidField(this, itemIndex, 'Accuracy', 'turn on at least one of Accuracy, Fluency, Tone or Cultural Fit');
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const customPrompt = checkText(this, options.customPrompt, 'Custom Prompt', itemIndex, false);
	if (customPrompt !== undefined) {
		if (customPrompt.length > MAX_CUSTOM_PROMPT_LENGTH) {
			throw invalidField(
				this,
				itemIndex,
				'Custom Prompt',
				`at most ${MAX_CUSTOM_PROMPT_LENGTH} characters, got ${customPrompt.length}`,
			);
		}
		body.customPrompt = customPrompt;
	}
	const callbackUrl = checkCallbackUrl(this, options.callbackUrl, itemIndex);
	if (callbackUrl !== undefined) body.callbackUrl = callbackUrl;

	const request: OllangRequest = {
		method: 'POST',
		path: apiPath`/integration/orders/${orderId}/qc`,
		body,
		// Spends credits: repeated only where the service cannot have acted.
		retry: 'once',
		itemIndex,
		errorHints: {
			ORDER_NOT_ELIGIBLE:
				'A QC evaluation can be run only on completed or delivered orders. Get the order to see its status.',
		},
	};
	const json = await writeOnce(this, itemIndex, {
		request: { path: request.path, body },
		send: async () => ({ orderId, ...requireObject.call(this, request, await apiRequest.call(this, request), ['evalId']) }),
		lostAnswer: byLatestEvaluation(this, orderId, itemIndex),
		identity: { orderId },
	});
	return toResults(json);
}
