import { pathMatcher } from './http/router.cts';

/** Each API request, so tests can count requests per poll, and how many were open at once. Admin routes are not recorded. */
export interface RequestRecord {
	method: string;
	path: string;
	/** The matched route pattern (/integration/orders/:orderId), or null for an unknown route. */
	route: string | null;
	/** null when the connection was dropped without a response. */
	status: number | null;
	/** Simulated time when the request arrived. */
	at: string;
	/** Wall-clock time (ms since the epoch) when it arrived: how long a client waited between two requests. */
	receivedAtMs: number;
	durationMs: number;
	fault?: 'status' | 'drop' | 'delay';
	/**
	 * The user whose API key made it (fixtures.users), so two clients of one account can be told apart; absent when
	 * no key was accepted (401, unknown route, a route without authentication).
	 */
	userId?: string;
}

export interface RequestFilter {
	method?: string;
	/** RegExp on the path; a string matches the exact path or the route pattern. */
	path?: string | RegExp;
}

const MAX_RECORDS = 200_000;

export class RequestLog {
	readonly log: RequestRecord[] = [];
	private open = 0;
	private mostOpen = 0;

	/** A request's response was sent or its connection dropped: it is no longer open (it opened with `add`). */
	closed(): void {
		this.open--;
	}

	/** API requests open now. */
	get inFlight(): number {
		return this.open;
	}

	/** The most API requests open at once since the last reset: a client's concurrency. */
	get maxInFlight(): number {
		return this.mostOpen;
	}

	/** A request arrived: recorded, and open until `closed`. */
	add(record: RequestRecord): void {
		// A long-running demo must not grow without bound; the oldest half goes.
		if (this.log.length >= MAX_RECORDS) this.log.splice(0, MAX_RECORDS / 2);
		this.log.push(record);
		this.open++;
		this.mostOpen = Math.max(this.mostOpen, this.open);
	}

	count(filter: RequestFilter = {}): number {
		return this.filter(filter).length;
	}

	filter(filter: RequestFilter = {}): RequestRecord[] {
		const method = filter.method?.toUpperCase();
		const pathOk = filter.path === undefined ? () => true : pathMatcher(filter.path);
		const exactRoute = typeof filter.path === 'string' ? filter.path : null;
		return this.log.filter((r) => (method === undefined || r.method === method) && (pathOk(r.path) || (exactRoute !== null && r.route === exactRoute)));
	}

	/** Clears the log; the most open at once starts again from the requests open now. */
	reset(): void {
		this.log.length = 0;
		this.mostOpen = this.open;
	}
}
