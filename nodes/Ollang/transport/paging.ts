// Paging over { data, meta } answers, in either query style (nested pageOptions[page] or flat page, take <= 50):
// page 1, then the rest in parallel, read as one consistent listing (pageSnapshot.ts).
import type { IDataObject } from 'n8n-workflow';

import { mapConcurrent } from './concurrency';
import { apiRequestWithResponse, unexpectedResponse } from './jsonRequest';
import type { PageAnswer, RowTime } from './pageSnapshot';
import { inconsistentListing, PageSnapshot, parseHttpDate, pinnedRequest } from './pageSnapshot';
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
	/** Pages fetched at the same time after page 1 (default DEFAULT_PAGE_CONCURRENCY). */
	concurrency?: number;
	/** take, 1 to 50 (default 50). */
	pageSize?: number;
	/**
	 * The query key of the listing's inclusive upper bound on its rows' time (consumption filter[to], orders
	 * filter[createdAtRange][to]). Pages after the first carry page 1's service time there when the request leaves it
	 * empty or later, so rows that arrive during the read enter no page.
	 */
	pinTimeKey?: string;
	/**
	 * The field of a row holding its creation time (occurredAt, createdAt). Rows stamped during the read show that
	 * the listing changed even when its count did not (see PageSnapshot); a page 1 listing rows stamped after its
	 * answer shows a service that stamps ahead of its Date (then nothing is pinned).
	 */
	rowTimeKey?: string;
	/** Called with each page's number and answer headers (e.g. to read the service's Date). */
	onPage?: (page: number, headers: Record<string, string>) => void;
}

function rowTimeOf(key: string | undefined): RowTime {
	if (key === undefined) return () => undefined;
	return (row) => {
		const value = row[key];
		const time = typeof value === 'string' ? Date.parse(value) : NaN;
		return Number.isNaN(time) ? undefined : time;
	};
}

function isPageAnswer(value: unknown): value is { data: IDataObject[]; meta: PageAnswer['meta'] } {
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
 * Every row of the listing (or the first `limit`), in the listing's order, as the listing stood when page 1 was
 * answered: page 1, then the remaining pages concurrently (bounded), pinned to page 1's time where the listing
 * filters on it; pages that shifted meanwhile are read again (see PageSnapshot). With a limit, only the pages needed
 * for it are fetched.
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
	let pageRequest = request;

	const fetchPage = async (page: number): Promise<PageAnswer & { headers: Record<string, string> }> => {
		const pageQuery: OllangRequest = {
			...pageRequest,
			qs: { ...pageRequest.qs, [pagingKey(style, 'page')]: page, [pagingKey(style, 'take')]: take },
		};
		const response = await apiRequestWithResponse.call(this, pageQuery);
		const answer = response.body;
		if (!isPageAnswer(answer)) {
			throw unexpectedResponse.call(this, pageQuery, 'a page: { data: [objects], meta: {...} }', answer);
		}
		paging.onPage?.(page, response.headers);
		return { data: answer.data, meta: answer.meta, headers: response.headers, servedAt: parseHttpDate(response.headers.date) };
	};

	const first = await fetchPage(1);
	const snapshot = new PageSnapshot(take, limit, first, rowTimeOf(paging.rowTimeKey));
	// A page 1 that lists rows stamped after its own Date: a pin at that Date would leave rows out. (Pinned pages
	// never list such rows, so page 1 is where the service shows it.)
	if (paging.pinTimeKey !== undefined && !snapshot.stampedAhead()) {
		pageRequest = pinnedRequest(request, paging.pinTimeKey, first.headers.date);
	}

	if (!snapshot.counted) {
		// No count: follow hasNextPage one page at a time; a row a shift showed twice is kept once.
		let answer: PageAnswer = first;
		let page = 1;
		while (answer.meta.hasNextPage === true && page < snapshot.pagesForLimit && answer.data.length > 0) {
			page++;
			answer = await fetchPage(page);
			snapshot.add(page, answer);
		}
		return snapshot.rows() as T[];
	}

	let stale = snapshot.pagesToRead();
	while (stale.length > 0) {
		if (snapshot.rereadRounds > PageSnapshot.MAX_REREAD_ROUNDS) {
			if (Number.isFinite(limit)) break;
			throw inconsistentListing.call(this, request, snapshot);
		}
		const answers = await mapConcurrent(stale, concurrency, fetchPage);
		stale.forEach((page, index) => snapshot.add(page, answers[index]));
		stale = snapshot.pagesToRead();
	}
	return (stale.length === 0 ? snapshot.rows() : snapshot.consistentPrefix()) as T[];
}
