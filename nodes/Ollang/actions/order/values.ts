import type { INodePropertyOptions } from 'n8n-workflow';

/** An order's own fields, as list rows carry them (no documents, delivery events, finance or QC evaluation). */
export const orderOwnFields = [
	'id',
	'name',
	'type',
	'status',
	'level',
	'sourceLanguage',
	'targetLanguage',
	'folderId',
	'projectId',
	'createdAt',
] as const;

export const orderStatuses: INodePropertyOptions[] = [
	{ name: 'Completed', value: 'completed' },
	{ name: 'Delayed', value: 'delayed' },
	{ name: 'Delivered', value: 'delivered' },
	{ name: 'Ongoing', value: 'ongoing' },
	{ name: 'Pending', value: 'pending' },
	{ name: 'Quality Check', value: 'qualityCheck' },
	{ name: 'Ready to Send', value: 'readyToSent' },
	{ name: 'Revision', value: 'revision' },
	{ name: 'Waiting for CC', value: 'waitingForCC' },
	{ name: 'Waiting for Subtitle', value: 'waitingForSubtitle' },
];

export const creatableOrderTypes: INodePropertyOptions[] = [
	{ name: 'AI Dubbing', value: 'aiDubbing' },
	{ name: 'Closed Captions', value: 'cc' },
	{ name: 'Document Translation', value: 'document' },
	{ name: 'Studio Dubbing', value: 'studioDubbing' },
	{ name: 'Subtitles', value: 'subtitle' },
];

/** Kinds of closed captions (orderSubType), for cc orders. */
export const orderSubTypes: INodePropertyOptions[] = [
	{ name: 'Closed Captions', value: 'closedCaption' },
	{ name: 'Timecoded Transcription', value: 'timecodedTranscription' },
];

/** How a dubbed voice is laid over the video (dubbingStyle), for dubbing orders. */
export const dubbingStyles: INodePropertyOptions[] = [
	{ name: 'Audio Description', value: 'audioDescription' },
	{ name: 'Lip Sync', value: 'lipsync' },
	{ name: 'Overdub', value: 'overdub' },
];

/** Types an order or a consumption line may carry, including legacy and system ones. */
export const allOrderTypes: INodePropertyOptions[] = [
	...creatableOrderTypes,
	{ name: 'Other', value: 'other' },
	{ name: 'Proofreading', value: 'proofreading' },
	{ name: 'Revision', value: 'revision' },
].sort((a, b) => a.name.localeCompare(b.name));
