import type { INodeProperties } from 'n8n-workflow';

import { folderListLocator, memoryLocator } from '../Ollang/actions/common/fields';
import { allOrderTypes, orderStatuses } from '../Ollang/actions/order/values';
import { DEFAULT_CONCURRENCY, DEFAULT_LOOKBACK_DAYS, DEFAULT_RECHECK_PER_POLL, MAX_RECHECK_PER_POLL } from './config';

const forDeliveryEvents = { show: { event: ['orderDeliveryEvent'] } };
/** Both events found by reading watched orders share how the orders are chosen. */
const forOrders = { show: { event: ['orderDeliveryEvent', 'qcEvaluationFinished'] } };
const forJobs = { show: { event: ['importJobFinished'] } };

const orderEventProperties: INodeProperties[] = [
	{
		displayName: 'Event Types',
		name: 'eventTypes',
		type: 'multiOptions',
		displayOptions: forDeliveryEvents,
		options: [
			{
				name: 'AI Delivered',
				value: 'ai_delivered',
				description: 'The AI result of an order is ready',
			},
			{
				// The API's lsp_approved: LSP is the language service provider.
				name: 'Language Service Provider Approved',
				value: 'lsp_approved',
				description:
					"The language service provider (the agency or team that manages the translators) approved a translator's delivery",
			},
			{
				name: 'Order Delivered',
				value: 'order_delivered',
				description: 'The translated files became available to you',
			},
			{
				name: 'Translator Delivered',
				value: 'translator_delivered',
				description: 'A translator delivered their work',
			},
		],
		default: ['ai_delivered', 'translator_delivered', 'lsp_approved', 'order_delivered'],
		description:
			'Which delivery events start the workflow. The same type can occur again on an order (re-delivery, rerun): each occurrence is a new event.',
	},
	{
		displayName: 'Watch',
		name: 'watch',
		type: 'options',
		noDataExpression: true,
		displayOptions: forOrders,
		options: [
			{
				name: 'Recent Orders',
				value: 'recentOrders',
				description: 'Orders created within the look-back window, optionally filtered',
			},
			{ name: 'Specific Orders', value: 'orderIds', description: 'The orders whose IDs are given' },
		],
		default: 'recentOrders',
	},
	{
		displayName: 'Look-Back Days',
		name: 'lookbackDays',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 365 },
		displayOptions: { show: { event: ['orderDeliveryEvent', 'qcEvaluationFinished'], watch: ['recentOrders'] } },
		default: DEFAULT_LOOKBACK_DAYS,
		description:
			"Watch orders created within this many days (by Ollang's clock); older orders are no longer watched. A longer window costs more requests per poll.",
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		displayOptions: { show: { event: ['orderDeliveryEvent', 'qcEvaluationFinished'], watch: ['recentOrders'] } },
		default: {},
		options: [
			// A saved folder (By ID or By URL) keeps its mode; new nodes start on the list.
			{ ...folderListLocator('Only orders in this folder'), required: false },
			{
				displayName: 'Order Types',
				name: 'types',
				type: 'multiOptions',
				options: allOrderTypes,
				default: [],
				description: 'Only orders of these types',
			},
			{
				displayName: 'Statuses',
				name: 'statuses',
				type: 'multiOptions',
				options: orderStatuses,
				default: [],
				description:
					'Only orders in one of these statuses when the event is found. An event found as the order leaves these statuses (e.g. the AI delivery that ends "Ongoing") still counts.',
			},
		],
	},
	{
		displayName: 'Order IDs',
		name: 'orderIds',
		type: 'string',
		required: true,
		displayOptions: { show: { event: ['orderDeliveryEvent', 'qcEvaluationFinished'], watch: ['orderIds'] } },
		default: '',
		placeholder: 'e.g. 6650f1c2a4b3e2d1c0b9a8f7, 6650f1c2a4b3e2d1c0b9a8f8',
		description:
			'IDs of the orders to watch, separated by commas or new lines, or an expression that gives a list. Each order is read on every poll; adding or removing an ID does not affect the others.',
	},
];

const importJobProperties: INodeProperties[] = [
	{
		displayName:
			'The Ollang API cannot list import jobs, so this trigger watches the job IDs given below (those returned by Memory > Import Items). To wait for a job inside the same workflow, use the "Wait for Completion" option of Import Items instead.',
		name: 'importJobNotice',
		type: 'notice',
		displayOptions: forJobs,
		default: '',
	},
	{
		displayName: 'Import Job IDs',
		name: 'jobIds',
		type: 'string',
		required: true,
		displayOptions: forJobs,
		default: '',
		placeholder: 'e.g. 6650f1c2a4b3e2d1c0b9a8f7 or memoryId:jobId',
		description:
			'Job IDs separated by commas or new lines, or an expression that gives a list. Write an entry as memoryId:jobId to get that memory in the output. Adding or removing a job does not affect the others.',
	},
	{
		...memoryLocator('The memory of jobs given without one, added to the output (optional)'),
		required: false,
		displayOptions: forJobs,
	},
	{
		displayName: 'Include Failed Jobs',
		name: 'includeFailed',
		type: 'boolean',
		displayOptions: forJobs,
		default: false,
		description: 'Whether a job that fails (or whose vectorization fails, when waited for) also starts the workflow',
	},
	{
		displayName: 'Wait for Vectorization',
		name: 'waitForVectorization',
		type: 'boolean',
		displayOptions: forJobs,
		default: false,
		description:
			'Whether to wait until vectorization has completed too, so the units are available to semantic matching, not only to exact lookup',
	},
];

export const triggerProperties: INodeProperties[] = [
	{
		// n8n's name for a trigger's event choice ("Trigger On"); the parameter's name stays 'event'.
		displayName: 'Trigger On',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Order Delivery Event',
				value: 'orderDeliveryEvent',
				description: 'A new entry in the delivery log of an order',
			},
			{
				// One name with the Callback Trigger's event; the value stays as saved workflows have it.
				name: 'QC Evaluation Completed',
				value: 'qcEvaluationFinished',
				description:
					"A watched order's latest QC evaluation (Order > Run QC Evaluation) is complete and its scores are available",
			},
			{
				name: 'Memory Import Job Finished',
				value: 'importJobFinished',
				description: 'A watched memory import job completed, or failed if Include Failed Jobs is on',
			},
		],
		default: 'orderDeliveryEvent',
	},
	...orderEventProperties,
	...importJobProperties,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include Existing Events',
				name: 'emitExisting',
				type: 'boolean',
				default: false,
				description:
					'Whether the first poll after activation (or after you change what is watched) also starts the workflow for the events and finished jobs that exist already, once each. Otherwise only new ones do.',
			},
			{
				displayName: 'Parallel Requests',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 10 },
				default: DEFAULT_CONCURRENCY,
				description: 'How many requests a poll sends at the same time',
			},
			{
				displayName: 'Orders Rechecked per Poll',
				name: 'recheckPerPoll',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_RECHECK_PER_POLL },
				displayOptions: {
					show: { '/event': ['orderDeliveryEvent', 'qcEvaluationFinished'], '/watch': ['recentOrders'] },
				},
				default: DEFAULT_RECHECK_PER_POLL,
				description:
					'Some delivery events leave the order list unchanged (e.g. a re-delivery): they are found by rechecking the watched orders, this many per poll, in turn. With 1,000 orders at 10 per poll, every order is rechecked within 100 polls. Higher finds such events sooner and costs more requests per poll.',
			},
		],
	},
];
