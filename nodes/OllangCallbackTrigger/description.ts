import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_LOOKBACK_DAYS } from '../OllangTrigger/config';
import { DEFAULT_SWEEP_MINUTES } from './sweep';

// The Options below are read as 'options.sweepMinutes' and 'options.sweepLookbackDays' (receive.ts, emitOnce.ts,
// sweep.ts): how often, and over which orders, the node asks the API for completions no callback brought.
export const callbackTriggerProperties: INodeProperties[] = [
	{
		displayName:
			"Give this node's production URL as the Callback URL of Order > Create or Order > Run QC Evaluation; Ollang calls only public https addresses. Each completion starts the workflow once, even when Ollang calls more than once.",
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
				description: 'An order is complete and its files can be downloaded',
			},
			{
				name: 'QC Evaluation Completed',
				value: 'qcEvaluationCompleted',
				description: 'A QC evaluation you requested is complete and its scores are available',
			},
		],
		default: ['orderCompleted', 'qcEvaluationCompleted'],
		description: 'Which completions start the workflow',
	},
	{
		displayName: 'Secret Token',
		name: 'secretToken',
		type: 'string',
		typeOptions: { password: true },
		default: '',
		description:
			'When set, only calls whose URL ends in ?token= followed by this value start the workflow. Add it to the Callback URL you give Ollang.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Check for Missed Completions Every (Minutes)',
				name: 'sweepMinutes',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 2 },
				default: DEFAULT_SWEEP_MINUTES,
				description:
					"How often the node also asks Ollang for completions whose call never arrived (n8n was down, or Ollang gave up). It covers every recent order of the account, whatever its Callback URL, and a completion still starts the workflow once. 0: rely on Ollang's calls alone.",
			},
			{
				displayName: 'Check Orders Created Within (Days)',
				name: 'sweepLookbackDays',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 365 },
				default: DEFAULT_LOOKBACK_DAYS,
				displayOptions: { hide: { sweepMinutes: [0] } },
				description:
					"How far back the check for missed completions looks, by the orders' creation date. A longer time costs more requests at each check.",
			},
		],
	},
];
