import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { apiRequest, MAX_PAGE_SIZE, pagingKey, unexpectedResponse } from '../transport';
import type { OllangRequest, PagingStyle } from '../transport';
import { requireList } from '../actions/common/responses';
import { listMemories, memoryLabel } from './memories';

/**
 * One list page per API page (50 rows, newest first): the list's pagination token is the next page number.
 * `query` adds the listing's search; `label` names each row.
 */
async function searchPagedList(
	this: ILoadOptionsFunctions,
	listing: { path: string; style: PagingStyle; query: IDataObject },
	label: (row: IDataObject) => string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = Math.max(1, Number(paginationToken ?? 1) || 1);
	const request: OllangRequest = {
		method: 'GET',
		path: listing.path,
		qs: {
			[pagingKey(listing.style, 'page')]: page,
			[pagingKey(listing.style, 'take')]: MAX_PAGE_SIZE,
			[pagingKey(listing.style, 'orderBy')]: 'createdAt',
			[pagingKey(listing.style, 'orderDirection')]: 'desc',
			...listing.query,
		},
		retry: 'safe',
	};
	const answer = (await apiRequest.call(this, request)) as { data?: unknown; meta?: IDataObject };
	if (!answer || !Array.isArray(answer.data)) {
		throw unexpectedResponse.call(this, request, 'a page: { data: [...], meta: {...} }', answer);
	}
	const rows = answer.data as IDataObject[];
	return {
		results: rows.map((row) => ({ name: label(row), value: String(row.id) })),
		paginationToken: answer.meta?.hasNextPage === true ? String(page + 1) : undefined,
	};
}

/** Orders, newest first, one API page per list page; the search text filters by order name. */
export async function searchOrders(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPagedList.call(
		this,
		{ path: '/integration/orders', style: 'nested', query: { 'filter[name]': filter?.trim() || undefined } },
		(order) =>
			`${String(order.name ?? order.id)} (${String(order.type ?? '?')}, ${String(order.targetLanguage ?? '?')}, ${String(order.status ?? '?')})`,
		paginationToken,
	);
}

/** Projects, newest first; the search text matches part of the project name. */
export async function searchProjects(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPagedList.call(
		this,
		{ path: '/integration/project', style: 'flat', query: { search: filter?.trim() || undefined } },
		(project) => `${String(project.name ?? project.id)} (${String(project.sourceLanguage ?? '?')})`,
		paginationToken,
	);
}

/** Folders, newest first; the search text matches part of the folder name. */
export async function searchFolders(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	return await searchPagedList.call(
		this,
		{ path: '/integration/folder', style: 'flat', query: { search: filter?.trim() || undefined } },
		(folder) => {
			const count = typeof folder.projectCount === 'number' ? ` (${folder.projectCount} projects)` : '';
			return `${String(folder.name ?? folder.id)}${count}`;
		},
		paginationToken,
	);
}

export async function searchMemories(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const memories = await listMemories.call(this, filter);
	return { results: memories.map((memory) => ({ name: memoryLabel(memory), value: String(memory.id) })) };
}

/** Custom instructions by key (the API lists them all at once); the search text matches the key or description. */
export async function searchCustomInstructions(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const request: OllangRequest = { method: 'GET', path: '/integration/custom-instructions', retry: 'safe' };
	const needle = filter?.trim().toLowerCase();
	const instructions = requireList
		.call(this, request, await apiRequest.call(this, request))
		.filter(
			(instruction) =>
				!needle ||
				[instruction.key, instruction.description].some((field) =>
					String(field ?? '')
						.toLowerCase()
						.includes(needle),
				),
		)
		.sort((a, b) => String(a.key ?? '').localeCompare(String(b.key ?? '')));
	return {
		results: instructions.map((instruction) => ({
			name: `${String(instruction.key ?? instruction.id)}${instruction.active === false ? ' (inactive)' : ''}`,
			value: String(instruction.id),
		})),
	};
}
