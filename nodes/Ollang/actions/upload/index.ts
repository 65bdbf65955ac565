import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as uploadFile from './uploadFile.operation';
import * as uploadFromUrl from './uploadFromUrl.operation';
import * as uploadVtt from './uploadVtt.operation';

export const operations: ResourceOperations<'upload'> = { uploadFile, uploadFromUrl, uploadVtt };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['upload'] } },
		options: [
			{
				name: 'Upload File',
				value: 'uploadFile',
				action: 'Upload file',
				description:
					'Upload a video, audio, document or subtitle file from a binary field as a new project; returns its project ID for Order > Create',
			},
			{
				name: 'Upload From URL',
				value: 'uploadFromUrl',
				action: 'Upload file from URL',
				description:
					'Make a new project from a file at a URL, named after the file; needs the file size. Returns its project ID for Order > Create. To name the project or add notes, use Project > Create From URL.',
			},
			{
				name: 'Upload VTT',
				value: 'uploadVtt',
				action: 'Upload VTT subtitle file',
				description:
					'Add a WebVTT subtitle file (.vtt) from a binary field to an existing project; returns the project ID',
			},
		],
		default: 'uploadFile',
	},
	...uploadFile.description,
	...uploadFromUrl.description,
	...uploadVtt.description,
];
