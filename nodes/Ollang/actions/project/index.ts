import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as createFromUrl from './createFromUrl.operation';
import * as get from './get.operation';
import * as getMany from './getMany.operation';

export const operations: ResourceOperations<'project'> = { get, getMany, createFromUrl };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['project'] } },
		options: [
			{
				name: 'Create From URL',
				value: 'createFromUrl',
				action: 'Create project from file URL',
				description:
					'Make a new project from a file at a URL, with a name of your choice and optional notes for the linguists; no file size needed. Returns the project and its ID for Order > Create.',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get project',
				description: 'Get a project with its documents (source file, guidelines, subtitles) and its order count',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many projects',
				description: 'List projects, newest first by default, optionally searched by name and sorted',
			},
		],
		default: 'getMany',
	},
	...getMany.description,
	...get.description,
	...createFromUrl.description,
];
