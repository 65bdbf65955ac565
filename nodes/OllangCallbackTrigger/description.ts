import type { INodeProperties } from 'n8n-workflow';

export const callbackTriggerProperties: INodeProperties[] = [
	{
		displayName:
			"Give this node's production URL as the Callback URL of Order > Create or Order > Run QC Evaluation. Each callback is confirmed with the Ollang API before the workflow starts, and each completion starts it once. The API calls only public https addresses.",
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		options: [
			{
				name: 'Order Completed',
				value: 'orderCompleted',
				description: "An order's work is done (the API's order-completion callback)",
			},
			{
				name: 'QC Evaluation Completed',
				value: 'qcEvaluationCompleted',
				description: 'A requested QC evaluation finished (the QC callback)',
			},
		],
		default: ['orderCompleted', 'qcEvaluationCompleted'],
		description: 'Which callbacks start the workflow; the others are answered and ignored',
	},
	{
		displayName: 'Secret Token',
		name: 'secretToken',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description:
			'Optional. When set, only callbacks whose URL ends in ?token= followed by this value are accepted (checked before anything else): add it to the Callback URL you give the API.',
	},
];
