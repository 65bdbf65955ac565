import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as consumption from './actions/consumption';
import * as content from './actions/content';
import * as creditWallet from './actions/creditWallet';
import * as customInstruction from './actions/customInstruction';
import * as folder from './actions/folder';
import * as memory from './actions/memory';
import * as order from './actions/order';
import * as project from './actions/project';
import * as revision from './actions/revision';
import { resourceOperationSubtitle } from './actions/common/subtitle';
import { router } from './actions/router';
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
				description: 'Custom instruction templates',
			},
			{
				name: 'Folder',
				value: 'folder',
				description: 'Folders: listing, documents, translator assignment and XLSX export',
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
];

export class Ollang implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ollang',
		name: 'ollang',
		icon: { light: 'file:ollang.svg', dark: 'file:ollang.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: resourceOperationSubtitle(properties),
		description:
			'Order translations, subtitles and dubbing from Ollang (orders, reruns, QC and human reviews spend credits); manage revisions, translation memories, content, folders, projects and uploads; read the credit wallet and credit consumption',
		defaults: { name: 'Ollang' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'ollangApi', required: true }],
		properties,
	};

	methods = { listSearch, loadOptions };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
