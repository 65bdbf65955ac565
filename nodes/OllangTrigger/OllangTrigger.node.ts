import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { optionSubtitle } from '../Ollang/actions/common/subtitle';
import { listSearch } from '../Ollang/methods';
import { triggerProperties } from './description';
import { pollTrigger } from './poll';

export class OllangTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Ollang Trigger',
		name: 'ollangTrigger',
		icon: {
			light: 'file:../Ollang/ollang.svg',
			dark: 'file:../Ollang/ollang.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: optionSubtitle(triggerProperties, 'event'),
		description:
			"Starts a workflow for each new order delivery event, when a watched order's QC evaluation is completed, or when a watched memory import job finishes",
		defaults: { name: 'Ollang Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'ollangApi', required: true }],
		properties: triggerProperties,
	};

	methods = { listSearch };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollTrigger.call(this);
	}
}
