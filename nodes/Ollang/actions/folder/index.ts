import type { INodeProperties } from 'n8n-workflow';

import type { ResourceOperations } from '../node.type';
import * as assignTranslator from './assignTranslator.operation';
import * as attachDocument from './attachDocument.operation';
import * as exportXlsx from './exportXlsx.operation';
import * as getMany from './getMany.operation';
import * as getOrderLanguagePairs from './getOrderLanguagePairs.operation';
import * as listDocuments from './listDocuments.operation';
import * as removeDocument from './removeDocument.operation';
import * as unassignTranslator from './unassignTranslator.operation';
import * as uploadDocument from './uploadDocument.operation';

export const operations: ResourceOperations<'folder'> = {
	getMany,
	getOrderLanguagePairs,
	assignTranslator,
	unassignTranslator,
	exportXlsx,
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
				name: 'Assign Translator',
				value: 'assignTranslator',
				action: 'Assign translator to folder orders',
				description:
					'Assign a translator to the completed orders of a folder that have none, optionally only one language pair',
			},
			{
				name: 'Attach Document by URL',
				value: 'attachDocument',
				action: 'Attach document to folder by URL',
				description: 'Attach a guideline, glossary or character list from a URL to a folder',
			},
			{
				name: 'Delete Document',
				value: 'removeDocument',
				action: 'Delete document from folder',
				description: "Remove a folder document and its copies in the folder's projects",
			},
			{
				name: 'Export XLSX',
				value: 'exportXlsx',
				action: 'Export folders as XLSX file',
				description:
					'Download one spreadsheet with a sheet of segments per order and target language of the chosen folders',
			},
			{
				name: 'Get Many',
				value: 'getMany',
				action: 'Get many folders',
				description: 'List folders with their colour, type and project count, optionally searched by name',
			},
			{
				name: 'Get Many Documents',
				value: 'listDocuments',
				action: 'Get many documents of folder',
				description: 'List the guidelines, glossaries and character lists of a folder',
			},
			{
				name: 'Get Order Language Pairs',
				value: 'getOrderLanguagePairs',
				action: 'Get order language pairs of folder',
				description:
					'List the source and target language pairs of the folder orders that can be assigned a translator, or that have one',
			},
			{
				name: 'Unassign Translator',
				value: 'unassignTranslator',
				action: 'Unassign translator from folder orders',
				description: 'Remove the assigned translator from the ongoing orders of a folder',
			},
			{
				name: 'Upload Document',
				value: 'uploadDocument',
				action: 'Upload document to folder',
				description: 'Upload a guideline, glossary or character list file (up to 50 MB) to a folder',
			},
		],
		// Unchanged since the first release: n8n does not store a parameter left at its default.
		default: 'listDocuments',
	},
	...getMany.description,
	...getOrderLanguagePairs.description,
	...assignTranslator.description,
	...unassignTranslator.description,
	...exportXlsx.description,
	...attachDocument.description,
	...listDocuments.description,
	...uploadDocument.description,
	...removeDocument.description,
];
