import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as cancel from './cancel.operation';
import * as cancelHumanReview from './cancelHumanReview.operation';
import * as create from './create.operation';
import * as createAndWait from './createAndWait.operation';
import * as downloadFiles from './downloadFiles.operation';
import * as exportXlsx from './exportXlsx.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';
import * as getReviewInfo from './getReviewInfo.operation';
import * as requestHumanReview from './requestHumanReview.operation';
import * as requestSubtitleEmbedding from './requestSubtitleEmbedding.operation';
import * as rerun from './rerun.operation';
import * as runQcEvaluation from './runQcEvaluation.operation';

export const operations: ResourceOperations<'order'> = {
	get,
	getMany,
	create,
	createAndWait,
	requestHumanReview,
	cancelHumanReview,
	exportXlsx,
	downloadFiles,
	requestSubtitleEmbedding,
	getReviewInfo,
	cancel,
	rerun,
	runQcEvaluation,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['order'] } },
		options: [
			{
				name: 'Cancel',
				value: 'cancel',
				action: 'Cancel order',
				description: 'Cancel a pending order, or an ongoing one whose AI processing has not finished',
			},
			{
				name: 'Cancel Human Review',
				value: 'cancelHumanReview',
				action: 'Cancel human review of order',
				description: 'Cancel an ongoing human review and refund its part of the price',
			},
			{
				name: 'Create',
				value: 'create',
				action: 'Create order',
				description: 'Create one order per target language for a project (spends credits)',
			},
			{
				name: 'Create and Wait',
				value: 'createAndWait',
				action: 'Create order and wait for completion',
				description:
					'Create the orders, then pause the execution until the API confirms every one complete (spends credits)',
			},
			{
				name: 'Download Files',
				value: 'downloadFiles',
				action: 'Download files of order',
				description: "Download the order's subtitles, translated document, dubbed audio or embedded video as binary files",
			},
			{
				name: 'Export XLSX',
				value: 'exportXlsx',
				action: 'Export order as XLSX',
				description: "Download the order's segments and translations as a spreadsheet file",
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get order',
				description: 'Get an order with its documents, finance, evaluation and delivery events',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many orders',
				description: 'List orders, filtered by status, type, name, project or creation time',
			},
			{
				name: 'Get Review Status',
				value: 'getReviewInfo',
				action: 'Get review status of order',
				description:
					'Get whether an order is held for a review before delivery, and by whom: the reviewing team\'s tag and color, the kind of review, since when, and the reviewers',
			},
			{
				name: 'Request Human Review',
				value: 'requestHumanReview',
				action: 'Request human review of order',
				description: 'Add a human review to a completed or delivered order (spends credits)',
			},
			{
				name: 'Request Subtitle Embedding',
				value: 'requestSubtitleEmbedding',
				action: 'Request subtitle embedding for order',
				description: 'Burn the subtitles of a completed subtitle order into its video',
			},
			{
				name: 'Rerun',
				value: 'rerun',
				action: 'Rerun order',
				description:
					'Run the AI processing of a completed or delivered order again and deliver a new result (spends credits unless free)',
			},
			{
				name: 'Run QC Evaluation',
				value: 'runQcEvaluation',
				action: 'Run QC evaluation of order',
				description:
					'Score a completed or delivered order for accuracy, fluency, tone and cultural fit with AI (spends credits)',
			},
		],
		default: 'get',
	},
	...get.description,
	...getMany.description,
	...create.description,
	...createAndWait.description,
	...requestHumanReview.description,
	...cancelHumanReview.description,
	...exportXlsx.description,
	...downloadFiles.description,
	...requestSubtitleEmbedding.description,
	...getReviewInfo.description,
	...cancel.description,
	...rerun.description,
	...runQcEvaluation.description,
];
