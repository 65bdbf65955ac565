// Paging over { data, meta } answers, in either query style (nested pageOptions[page] or flat page, take <= 50):
// page 1, then the rest in parallel.
import type { IDataObject } from 'n8n-workflow';

import { mapConcurrent } from './concurrency';
import { apiRequestWithResponse, unexpectedResponse } from './jsonRequest';
import type { OllangContext, OllangRequest } from './request';

export const MAX_PAGE_SIZE = 50;
/** Pages fetched at the same time after page 1, unless the operation's Parallel Page Requests option says otherwise. */
export const DEFAULT_PAGE_CONCURRENCY = 10;
/** The most the Parallel Page Requests option allows. */
export const MAX_PAGE_CONCURRENCY = 10;

/**
 * The API's two paging query styles: 'nested' (pageOptions[page], pageOptions[take], ...: orders, consumption) and
 * 'flat' (page, take, ...: folders, projects).
 */
export type PagingStyle = 'nested' | 'flat';

/** The query key of a paging parameter (page, take, search, orderBy, orderDirection) in a style. */
export function pagingKey(style: PagingStyle, name: 'page' | 'take' | 'search' | 'orderBy' | 'orderDirection'): string {
	return style === 'nested' ? `pageOptions[${name}]` : name;
}

export interface PagingOptions {
	/** The query style (default 'nested'). */
	style?: PagingStyle;
	returnAll: boolean;
	/** Needed when returnAll is false. */
	limit?: number;
	/** Pages fetched at the same time after page 1 (default 4). */
	concurrency?: number;
	/** take, 1 to 50 (default 50). */
	pageSize?: number;
	/** Called with each page's number and answer headers (e.g. to read the service's Date). */
	onPage?: (page: number, headers: Record<string, string>) => void;
}

interface PageAnswer<T> {
	data: T[];
	meta: { pageCount?: number; hasNextPage?: boolean };
}

function isPageAnswer<T>(value: unknown): value is PageAnswer<T> {
	if (value === null || typeof value !== 'object') return false;
	const candidate = value as { data?: unknown; meta?: unknown };
	return (
		Array.isArray(candidate.data) &&
		// Every row of a listing is a record.
		candidate.data.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row)) &&
		candidate.meta !== null &&
		typeof candidate.meta === 'object'
	);
}

/**
 * Fetches page 1, then the remaining pages concurrently (bounded), and returns the rows in page order.
 * With a limit, only the pages needed for it are fetched.
 */
export async function apiRequestAllPages<T = IDataObject>(
	this: OllangContext,
	request: OllangRequest,
	paging: PagingOptions,
): Promise<T[]> {
	const limit = paging.returnAll ? Infinity : Math.max(1, Math.floor(paging.limit ?? MAX_PAGE_SIZE));
	const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, Math.floor(paging.pageSize ?? MAX_PAGE_SIZE)));
	const take = Math.min(pageSize, limit);
	const concurrency = Math.max(1, Math.floor(paging.concurrency ?? DEFAULT_PAGE_CONCURRENCY));
	const style = paging.style ?? 'nested';

	const fetchPage = async (page: number): Promise<PageAnswer<T>> => {
		const pageRequest: OllangRequest = {
			...request,
			qs: {
				...request.qs,
				[pagingKey(style, 'page')]: page,
				[pagingKey(style, 'take')]: take,
			},
		};
		const response = await apiRequestWithResponse.call(this, pageRequest);
		const answer = response.body;
		if (!isPageAnswer<T>(answer)) {
			throw unexpectedResponse.call(this, pageRequest, 'a page: { data: [objects], meta: {...} }', answer);
		}
		paging.onPage?.(page, response.headers);
		return answer;
	};

	const first = await fetchPage(1);
	const rows: T[] = [...first.data];
	const pagesNeeded = Number.isFinite(limit) ? Math.ceil(limit / take) : Infinity;
	const pageCount = first.meta.pageCount;

	if (typeof pageCount === 'number' && Number.isFinite(pageCount)) {
		const lastPage = Math.min(pageCount, pagesNeeded);
		const pages: number[] = [];
		for (let page = 2; page <= lastPage; page++) pages.push(page);
		const answers = await mapConcurrent(pages, concurrency, fetchPage);
		for (const answer of answers) rows.push(...answer.data);
	} else {
		// No page count: follow hasNextPage one page at a time.
		let answer = first;
		let page = 1;
		while (answer.meta.hasNextPage === true && page < pagesNeeded && answer.data.length > 0) {
			page++;
			answer = await fetchPage(page);
			rows.push(...answer.data);
		}
	}
	return Number.isFinite(limit) ? rows.slice(0, limit) : rows;
}
