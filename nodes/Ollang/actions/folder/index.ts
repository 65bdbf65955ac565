import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as attachDocument from './attachDocument.operation';
import * as listDocuments from './listDocuments.operation';
import * as removeDocument from './removeDocument.operation';
import * as unassignTranslator from './unassignTranslator.operation';
import * as uploadDocument from './uploadDocument.operation';

export const operations: ResourceOperations<'folder'> = {
	unassignTranslator,
	attachDocument,
	listDocuments,
	uploadDocument,
	removeDocument,
};

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['folder'] } },
		options: [
			{
				name: 'Attach Document by URL',
				value: 'attachDocument',
				action: 'Attach a document to a folder by URL',
				description: 'Attach a guideline, glossary or character list from a URL to a folder',
			},
			{
				name: 'List Documents',
				value: 'listDocuments',
				action: 'List the documents of a folder',
				description: 'List the guidelines, glossaries and character lists of a folder',
			},
			{
				name: 'Remove Document',
				value: 'removeDocument',
				action: 'Remove a document from a folder',
				description: 'Remove a folder document and its copies in the folder\'s projects',
			},
			{
				name: 'Unassign Translator',
				value: 'unassignTranslator',
				action: 'Unassign the translator from folder orders',
				description: 'Remove the assigned translator from the ongoing orders of a folder',
			},
			{
				name: 'Upload Document',
				value: 'uploadDocument',
				action: 'Upload a document to a folder',
				description: 'Upload a guideline, glossary or character list file (up to 50 MB) to a folder',
			},
		],
		default: 'listDocuments',
	},
	...unassignTranslator.description,
	...attachDocument.description,
	...listDocuments.description,
	...uploadDocument.description,
	...removeDocument.description,
];
