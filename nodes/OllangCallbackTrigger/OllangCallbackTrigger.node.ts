import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { callbackTriggerProperties } from './description';
import { emitOnce } from './emitOnce';
import { receiveCallback } from './receive';
import { startSweeps } from './sweep';

export class OllangCallbackTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ollang Callback Trigger',
		name: 'ollangCallbackTrigger',
		icon: {
			light: 'file:../Ollang/ollang.svg',
			dark: 'file:../Ollang/ollang.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: 'Order and QC completion callbacks',
		description: 'Starts a workflow when Ollang calls back: an order or a QC evaluation is completed',
		defaults: { name: 'Ollang Callback Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'ollangApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// In this mode n8n answers responseData when it is set, and reads an unset one as 'firstEntryJson' (a
				// lastNode setting), which it would send as that literal text (n8n 1.123 to 2.41). Empty, it answers the
				// webhookResponse webhook() returns: {"received": true}.
				responseData: '',
				path: 'ollang-callback',
			},
		],
		properties: callbackTriggerProperties,
	};

	// Nothing to register with Ollang: its API has no webhook subscriptions; the URL travels with each order or QC
	// request (Callback URL). So the webhook always exists, and creating or deleting it has nothing to do.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveCallback.call(this);
	}

	// Runs beside the webhook while the workflow is published: the sweep for what push missed (sweep.ts).
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		return await startSweeps.call(this);
	}

	// The first step of each execution webhook() or the sweep started: confirms with the API, drops a completion n8n's
	// database has seen (emitOnce.ts).
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await emitOnce.call(this);
	}
}
