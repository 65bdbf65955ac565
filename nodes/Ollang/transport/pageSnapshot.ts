// One consistent listing from pages read at different moments: which pages to read (again), and the rows they hold.
import type { IDataObject } from 'n8n-workflow';

import { createApiError } from './errors';
import type { OllangContext, OllangRequest } from './request';

export interface PageAnswer {
	data: IDataObject[];
	meta: { pageCount?: number; hasNextPage?: boolean; itemCount?: number };
	/** The service's time of the answer (its Date header, whole seconds), in ms. */
	servedAt?: number;
}

/** A row's creation time in ms (the listing's row time field), or undefined. */
export type RowTime = (row: IDataObject) => number | undefined;

interface HeldPage {
	rows: IDataObject[];
	/** The listing's size as this answer saw it (itemCount, else pageCount): equal sizes, the same listing. */
	version: number | undefined;
	/** The listing's last page as this answer saw it. */
	lastPage: number | undefined;
	/** Answer order: the last answer shows the listing as it stands now. */
	seq: number;
	servedAt: number | undefined;
}

/** A time from an HTTP Date header, in ms, or undefined. */
export function parseHttpDate(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const time = Date.parse(value);
	return Number.isNaN(time) ? undefined : time;
}

/**
 * The request for the pages after the first: its upper time bound set to the end of the second page 1 was answered
 * in (the Date header has whole seconds, and every row page 1 saw is at or before its answer), unless the request
 * already ends before that. Rows that arrive later enter no page; without a Date header nothing is pinned.
 */
export function pinnedRequest(request: OllangRequest, key: string, date: string | undefined): OllangRequest {
	const served = parseHttpDate(date);
	if (served === undefined) return request;
	const end = served + 999;
	const asked = request.qs?.[key];
	const askedTime = typeof asked === 'string' ? Date.parse(asked) : NaN;
	if (!Number.isNaN(askedTime) && askedTime <= end) return request;
	return { ...request, qs: { ...request.qs, [key]: new Date(end).toISOString() } };
}

function finite(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function rowKey(row: IDataObject, page: number, index: number): string {
	return typeof row.id === 'string' || typeof row.id === 'number' ? `id:${String(row.id)}` : `at:${page}:${index}`;
}

/**
 * The pages of one listing as read so far. Each answer carries the listing's size (itemCount); rows added or removed
 * between two answers change it. The pages form one listing when every page up to the last needed was answered at
 * the size of the latest answer, no row shows twice, and no page predates a row that arrived during the read; until
 * then those pages are read again, at most MAX_REREAD_ROUNDS times.
 */
export class PageSnapshot {
	/** Re-read rounds after the first read of every page; a listing still changing after them fails (or, with a Limit, is cut). */
	static readonly MAX_REREAD_ROUNDS = 3;

	private readonly pages = new Map<number, HeldPage>();

	/** Each row's first answer (its seq). */
	private readonly firstListed = new Map<string, number>();

	private seq = 0;

	private rounds = 0;

	/** The pages a Limit needs (Infinity for Return All). */
	readonly pagesForLimit: number;

	/** Whether the answers say how large the listing is (else hasNextPage is followed, rows de-duplicated). */
	readonly counted: boolean;

	readonly firstVersion: number | undefined;

	/** The service's second of page 1's first answer: rows stamped from then on may have arrived during the read. */
	private readonly firstServedAt: number | undefined;

	constructor(
		private readonly take: number,
		private readonly limit: number,
		first: PageAnswer,
		private readonly rowTime: RowTime = () => undefined,
	) {
		this.pagesForLimit = Number.isFinite(limit) ? Math.ceil(limit / take) : Infinity;
		this.add(1, first);
		this.firstVersion = this.pages.get(1)?.version;
		this.firstServedAt = first.servedAt;
		this.counted = this.pages.get(1)?.lastPage !== undefined;
	}

	get rereadRounds(): number {
		return Math.max(0, this.rounds - 1);
	}

	add(page: number, answer: PageAnswer): void {
		answer.data.forEach((row, index) => {
			const key = rowKey(row, page, index);
			if (!this.firstListed.has(key)) this.firstListed.set(key, this.seq);
		});
		const itemCount = finite(answer.meta.itemCount);
		const pageCount = finite(answer.meta.pageCount);
		this.pages.set(page, {
			rows: answer.data,
			version: itemCount ?? pageCount,
			lastPage: pageCount ?? (itemCount === undefined ? undefined : Math.ceil(itemCount / this.take)),
			seq: this.seq++,
			servedAt: answer.servedAt,
		});
	}

	/** The listing as the latest answer saw it. */
	private latest(): HeldPage {
		let latest: HeldPage | undefined;
		for (const held of this.pages.values()) if (latest === undefined || held.seq > latest.seq) latest = held;
		return latest as HeldPage;
	}

	/** The last page the result needs, by the latest answer. */
	private lastPage(): number {
		return Math.min(this.latest().lastPage ?? 1, this.pagesForLimit);
	}

	/**
	 * The pages to read (again) before the rows form one listing; none when they do. Each non-empty answer after
	 * the first counts as a re-read round.
	 */
	pagesToRead(): number[] {
		const { version } = this.latest();
		const last = this.lastPage();
		const stale = new Set<number>();
		for (let page = 1; page <= last; page++) {
			if (this.pages.get(page)?.version !== version) stale.add(page);
		}
		if (stale.size === 0) {
			for (const page of this.pagesWithRepeats(last)) stale.add(page);
			for (const page of this.pagesBeforeArrivals(last)) stale.add(page);
		}
		if (stale.size > 0) this.rounds++;
		return [...stale].sort((a, b) => a - b);
	}

	/**
	 * Both pages of each pair that hold the same row: the listing moved between their answers (the one answered
	 * first is stale), or the service orders tied rows differently on each request (the other is).
	 */
	private pagesWithRepeats(last: number): number[] {
		const firstPageOf = new Map<string, number>();
		const repeats = new Set<number>();
		for (let page = 1; page <= last; page++) {
			(this.pages.get(page)?.rows ?? []).forEach((row, index) => {
				const key = rowKey(row, page, index);
				const earlier = firstPageOf.get(key);
				if (earlier !== undefined && earlier !== page) repeats.add(earlier).add(page);
				if (earlier === undefined) firstPageOf.set(key, page);
			});
		}
		return [...repeats];
	}

	/**
	 * Pages answered before a row that arrived during the read was listed. A row added and one removed elsewhere
	 * leave every count equal, yet the rows between them moved a place, and one can slip past a page boundary
	 * unseen; re-read after the arrival, those pages show where it went. A row may have arrived during the read
	 * when it is stamped in or after page 1's second (the Date header's resolution), and a page may predate it when
	 * it was answered in or before the row's second and before the page that lists it.
	 */
	private pagesBeforeArrivals(last: number): number[] {
		if (this.firstServedAt === undefined) return [];
		const since = this.firstServedAt;
		const held = Array.from({ length: last }, (_, index) => this.pages.get(index + 1) as HeldPage);
		const stale = new Set<number>();
		held.forEach((listing, pageIndex) => {
			listing.rows.forEach((row, index) => {
				const arrivedAt = this.rowTime(row);
				if (arrivedAt === undefined || arrivedAt < since) return;
				// The first answer that listed the row: every later answer was given after it arrived.
				const listedAt = this.firstListed.get(rowKey(row, pageIndex + 1, index)) ?? listing.seq;
				held.forEach((before, page) => {
					if (before.seq < listedAt && (before.servedAt ?? -Infinity) <= arrivedAt) stale.add(page + 1);
				});
			});
		});
		return [...stale];
	}

	/** Whether a page lists a row stamped after the end of its answer's second: the service stamps ahead of its Date. */
	stampedAhead(): boolean {
		for (const held of this.pages.values()) {
			if (held.servedAt === undefined) continue;
			const end = held.servedAt + 999;
			if (held.rows.some((row) => (this.rowTime(row) ?? -Infinity) > end)) return true;
		}
		return false;
	}

	/** The rows of pages 1 to `last` in page order, each row once (by id), cut to the limit. */
	private collect(last: number): IDataObject[] {
		const seen = new Set<string>();
		const rows: IDataObject[] = [];
		for (let page = 1; page <= last; page++) {
			(this.pages.get(page)?.rows ?? []).forEach((row, index) => {
				const key = rowKey(row, page, index);
				if (seen.has(key)) return;
				seen.add(key);
				rows.push(row);
			});
		}
		return Number.isFinite(this.limit) ? rows.slice(0, this.limit) : rows;
	}

	/** Every row of the listing (or the first `limit`), each once. */
	rows(): IDataObject[] {
		const held = [...this.pages.keys()];
		return this.collect(this.counted ? this.lastPage() : Math.max(...held));
	}

	/**
	 * With a Limit, when the listing kept changing: the leading pages answered at page 1's last size, up to the first
	 * that repeats a row (the listing moved there, so a row is missing next to it).
	 */
	consistentPrefix(): IDataObject[] {
		const version = this.pages.get(1)?.version;
		const seen = new Set<string>();
		let last = 0;
		while (last < this.lastPage()) {
			const page = last + 1;
			const held = this.pages.get(page);
			if (held === undefined || held.version !== version) break;
			const keys = held.rows.map((row, index) => rowKey(row, page, index));
			if (keys.some((key) => seen.has(key))) break;
			for (const key of keys) seen.add(key);
			last = page;
		}
		return this.collect(last);
	}

	/** The latest size seen, for the error. */
	latestVersion(): number | undefined {
		return this.latest().version;
	}
}

/** The listing kept changing under every re-read: a clear error, not a report with lines doubled or missing. */
export function inconsistentListing(this: OllangContext, request: OllangRequest, snapshot: PageSnapshot) {
	return createApiError(
		this.getNode(),
		`The listing ${request.method} ${request.path} kept changing while its pages were read (${String(snapshot.firstVersion)} rows at page 1, ${String(snapshot.latestVersion())} at the last answer; read again ${PageSnapshot.MAX_REREAD_ROUNDS} times)`,
		'Rows were added or removed faster than the pages could be read, so Return All could not return each row exactly once. Set a To (end time) in the past so the range no longer changes, use a Limit, or run the node again.',
		{ itemIndex: request.itemIndex },
	);
}
