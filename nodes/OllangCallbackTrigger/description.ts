import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_LOOKBACK_DAYS } from '../OllangTrigger/config';
import { DEFAULT_SWEEP_MINUTES } from './sweep';

export const callbackTriggerProperties: INodeProperties[] = [
	{
		displayName:
			"Give this node's production URL as the Callback URL of Order > Create or Order > Run QC Evaluation. Callbacks are answered at once; the workflow's first step confirms each with the Ollang API, and each completion starts it once. A sweep of the API emits what callbacks missed. The API calls only public https addresses.",
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
	{
		displayName: 'Sweep Every (Minutes)',
		name: 'sweepMinutes',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: DEFAULT_SWEEP_MINUTES,
		description:
			'How often the trigger also reads the API for completions no callback brought (the API gave up on a delivery, n8n was down): each is emitted once, whichever comes first. It watches every recent order of the account, whatever its Callback URL. 0 turns the sweep off: callbacks are then the only way in.',
	},
	{
		displayName: 'Sweep Orders Created Within (Days)',
		name: 'sweepLookbackDays',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 365 },
		default: DEFAULT_LOOKBACK_DAYS,
		displayOptions: { hide: { sweepMinutes: [0] } },
		description: "The sweep watches orders created within this many days (by the API's clock). A longer window costs more list requests per sweep.",
	},
];
