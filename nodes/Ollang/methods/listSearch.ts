import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiPath, apiRequest, MAX_PAGE_SIZE, pagingKey, pathIdProblem, unexpectedResponse } from '../transport';
import type { OllangRequest, PagingStyle } from '../transport';
import { requireList } from '../actions/common/responses';
import { revisionTypes } from '../actions/revision/values';
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
	const instructions = requireList
		.call(this, request, await apiRequest.call(this, request))
		.filter((instruction) => matches(instruction, ['key', 'description'], filter))
		.sort((a, b) => String(a.key ?? '').localeCompare(String(b.key ?? '')));
	return {
		results: instructions.map((instruction) => ({
			name: `${String(instruction.key ?? instruction.id)}${instruction.active === false ? ' (inactive)' : ''}`,
			value: String(instruction.id),
		})),
	};
}

/**
 * The ID a locator chosen earlier in the panel holds (the order of a revision, the folder of a document), or a
 * clear error when it is not chosen yet. An expression that reads input items cannot be resolved while editing.
 */
function chosenId(ctx: ILoadOptionsFunctions, name: string, field: string): string {
	const value = ctx.getCurrentNodeParameter(name, { extractValue: true });
	const id = typeof value === 'string' ? value.trim() : '';
	if (id === '' || id.startsWith('=') || pathIdProblem(id) !== undefined) {
		throw new NodeOperationError(ctx.getNode(), `Choose the ${field} first`, {
			description: `This list shows what the chosen ${field} holds. Pick the ${field} above by list or ID, or give this ID by expression.`,
		});
	}
	return id;
}

/** Text that matches the search (case-insensitive), where any of `fields` contains it. */
function matches(row: IDataObject, fields: string[], filter?: string): boolean {
	const needle = filter?.trim().toLowerCase();
	return !needle || fields.some((field) => String(row[field] ?? '').toLowerCase().includes(needle));
}

/** The revision requests of the order chosen above (the API lists them whole), newest first. */
export async function searchRevisions(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const orderId = chosenId(this, 'orderId', 'order');
	const request: OllangRequest = { method: 'GET', path: apiPath`/integration/revision/${orderId}`, retry: 'safe' };
	const revisions = requireList
		.call(this, request, await apiRequest.call(this, request))
		.filter((revision) => matches(revision, ['type', 'time', 'description'], filter))
		.sort((a, b) => String(b.createdAt ?? '').localeCompare(String(a.createdAt ?? '')));
	return {
		results: revisions.map((revision) => {
			const note = typeof revision.description === 'string' && revision.description !== '' ? `: ${revision.description}` : '';
			const type = revisionTypes.find((option) => option.value === revision.type)?.name ?? String(revision.type ?? 'Revision');
			const label = `${type} at ${String(revision.time ?? '?')}${note}`;
			return { name: label.length > 80 ? `${label.slice(0, 79)}…` : label, value: String(revision.id) };
		}),
	};
}

/** The documents of the folder chosen above (the API lists them whole), by name. */
export async function searchFolderDocuments(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const folderId = chosenId(this, 'folderId', 'folder');
	const request: OllangRequest = { method: 'GET', path: apiPath`/integration/folder/${folderId}/docs`, retry: 'safe' };
	const documents = requireList
		.call(this, request, await apiRequest.call(this, request))
		.filter((document) => matches(document, ['name', 'fileName', 'type', 'language'], filter))
		.sort((a, b) => String(a.name ?? a.fileName ?? '').localeCompare(String(b.name ?? b.fileName ?? '')));
	return {
		results: documents.map((document) => {
			const details = [document.type, document.language].filter((part) => typeof part === 'string' && part !== '');
			const label = String(document.name ?? document.fileName ?? document.id);
			return { name: details.length > 0 ? `${label} (${details.join(', ')})` : label, value: String(document.id) };
		}),
	};
}
