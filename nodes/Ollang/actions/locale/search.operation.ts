import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiRequest } from '../../transport';
import { forReadOperation } from '../common/fields';
import { toResults } from '../common/outcomes';
import { readText } from '../common/parameters';
import { requireList } from '../common/responses';
import type { OperationKind, OperationResult } from '../node.type';

const properties: INodeProperties[] = [
	{
		displayName: 'Search Text',
		name: 'query',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. portuguese',
		description: 'Part of a language name, its native name or its code; one item per matching language',
	},
];

export const description = forReadOperation('locale', 'search', properties);

export const kind: OperationKind = 'read';

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<OperationResult[]> {
	const q = readText(this, 'query', 'Search Text', itemIndex);
	const request: OllangRequest = {
		method: 'GET',
		path: '/integration/locales/search',
		qs: { q },
		retry: 'safe',
		itemIndex,
	};
	return toResults(requireList.call(this, request, await apiRequest.call(this, request)));
}
