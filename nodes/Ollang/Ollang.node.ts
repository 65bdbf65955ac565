import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as consumption from './actions/consumption';
import * as content from './actions/content';
import * as creditWallet from './actions/creditWallet';
import * as customInstruction from './actions/customInstruction';
import * as figmaOrder from './actions/figmaOrder';
import * as folder from './actions/folder';
import * as health from './actions/health';
import * as locale from './actions/locale';
import * as memory from './actions/memory';
import * as order from './actions/order';
import * as project from './actions/project';
import * as revision from './actions/revision';
import { resourceOperationSubtitle } from './actions/common/subtitle';
import { router } from './actions/router';
import { receiveResumeRequest, waitingWebhooks } from './actions/order/wait/resume';
import * as upload from './actions/upload';
import { listSearch, loadOptions } from './methods';

const properties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Consumption',
				value: 'consumption',
				description: 'AI credit consumption lines',
			},
			{
				name: 'Content',
				value: 'content',
				description: 'The content database of translation units',
			},
			{
				name: 'Credit Wallet',
				value: 'creditWallet',
				description: 'Credit balance of the account',
			},
			{
				name: 'Custom Instruction',
				value: 'customInstruction',
				description: 'Instructions applied to every order of the account, and suggested ones',
			},
			{
				name: 'Figma Order',
				value: 'figmaOrder',
				description: 'Translation orders for the texts of a Figma file',
			},
			{
				name: 'Folder',
				value: 'folder',
				description: 'Folders: listing, documents, translator assignment and XLSX export',
			},
			{
				name: 'Health',
				value: 'health',
				description: 'Whether the Ollang API is up',
			},
			{
				name: 'Locale',
				value: 'locale',
				description: 'Supported languages and language tag checks',
			},
			{
				name: 'Memory',
				value: 'memory',
				description: 'Translation memories and their imports',
			},
			{
				name: 'Order',
				value: 'order',
				description: 'Translation, subtitle and dubbing orders',
			},
			{
				name: 'Project',
				value: 'project',
				description: 'Projects: the uploaded source files orders are made from',
			},
			{
				name: 'Revision',
				value: 'revision',
				description: 'Revision requests on delivered orders',
			},
			{
				name: 'Upload',
				value: 'upload',
				description: 'Source files, uploaded to create a project',
			},
		],
		default: 'order',
	},
	...order.description,
	...revision.description,
	...consumption.description,
	...creditWallet.description,
	...content.description,
	...memory.description,
	...folder.description,
	...project.description,
	...upload.description,
	...customInstruction.description,
	...locale.description,
	...figmaOrder.description,
	...health.description,
];

export class Ollang implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ollang',
		name: 'ollang',
		icon: { light: 'file:ollang.svg', dark: 'file:ollang.dark.svg' },
		group: ['transform'],
		// One version: the package has not been published, so no saved workflow needs an older behaviour.
		version: 1,
		subtitle: resourceOperationSubtitle(properties),
		description:
			'Order translations, subtitles and dubbing from Ollang, also for Figma files (orders, reruns, QC and human reviews spend credits); manage revisions, translation memories, content, custom instructions, folders, projects and uploads; look up languages; read the credit wallet and credit consumption',
		defaults: { name: 'Ollang' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'ollangApi', required: true }],
		// Order > Create and Wait's resume URL, served by n8n only while an execution waits (wait/resume.ts).
		webhooks: waitingWebhooks,
		properties,
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	// A request to a waiting Create and Wait's resume URL: read the orders, resume once every one is done.
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveResumeRequest.call(this);
	}
}
