import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequest, MAX_PAGE_SIZE, unexpectedResponse } from '../transport';
import type { OllangRequest } from '../transport';
import { listMemories, memoryLabel } from './memories';

/** Orders, newest first, one API page per list page; the search text filters by order name. */
export async function searchOrders(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = Math.max(1, Number(paginationToken ?? 1) || 1);
	const request: OllangRequest = {
		method: 'GET',
		path: '/integration/orders',
		qs: {
			'pageOptions[page]': page,
			'pageOptions[take]': MAX_PAGE_SIZE,
			'pageOptions[orderBy]': 'createdAt',
			'pageOptions[orderDirection]': 'desc',
			'filter[name]': filter?.trim() || undefined,
		},
		retry: 'safe',
	};
	const answer = (await apiRequest.call(this, request)) as { data?: unknown; meta?: IDataObject };
	if (!answer || !Array.isArray(answer.data)) {
		throw unexpectedResponse.call(this, request, 'a page: { data: [...], meta: {...} }', answer);
	}
	const orders = answer.data as IDataObject[];
	return {
		results: orders.map((order) => ({
			name: `${String(order.name ?? order.id)} (${String(order.type ?? '?')}, ${String(order.targetLanguage ?? '?')}, ${String(order.status ?? '?')})`,
			value: String(order.id),
		})),
		paginationToken: answer.meta?.hasNextPage === true ? String(page + 1) : undefined,
	};
}

export async function searchMemories(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const memories = await listMemories.call(this, filter);
	return { results: memories.map((memory) => ({ name: memoryLabel(memory), value: String(memory.id) })) };
}
