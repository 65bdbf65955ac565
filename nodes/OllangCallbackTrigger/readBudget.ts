import { sleep } from 'n8n-workflow';

/**
 * What forged callbacks may cost: a bound on reads, a concern apart from how reads are shared (sharedReads.ts in
 * nodes/shared). Whoever has the URL (and the token) can send callbacks, and each is confirmed with a Get Order on
 * the user's key. Real completions are read as fast as they come; what is bounded is reads of orders the API refuses
 * (unknown, another account's): at most REFUSED_READS_PER_MINUTE a minute per trigger and n8n process. A read under
 * way counts until its answer (it may be refused), so a flood sent at once cannot start more. Past the bound, push
 * callbacks are not read: they are left to the sweep, which finds real completions in the API's own listing at no
 * cost per callback.
 */
export const REFUSED_READS_PER_MINUTE = 60;

const MINUTE_MS = 60_000;
/** How long an execution waits for reads under way to answer before leaving its callback to the sweep. */
const WAIT_AT_MOST_MS = 20_000;
const WAIT_STEP_MS = 20;

/** Per trigger: when each refused read of the last minute answered (oldest first), and the reads under way. */
const budgets = new Map<string, { refusedAt: number[]; underWay: number }>();

function budgetOf(scope: string): { refusedAt: number[]; underWay: number } {
	const budget = budgets.get(scope) ?? { refusedAt: [], underWay: 0 };
	budgets.set(scope, budget);
	while (budget.refusedAt.length > 0 && budget.refusedAt[0] <= Date.now() - MINUTE_MS) budget.refusedAt.shift();
	return budget;
}

/** Runs `read` when the trigger's refused reads and reads under way leave room; undefined when they do not in time. */
export async function withinRefusalBudget<T>(scope: string, read: () => Promise<T>, wasRefused: (result: T) => boolean): Promise<T | undefined> {
	const waitUntil = Date.now() + WAIT_AT_MOST_MS;
	for (;;) {
		const budget = budgetOf(scope);
		if (budget.refusedAt.length >= REFUSED_READS_PER_MINUTE) return undefined;
		if (budget.refusedAt.length + budget.underWay < REFUSED_READS_PER_MINUTE) break;
		if (Date.now() >= waitUntil) return undefined;
		await sleep(WAIT_STEP_MS);
	}
	budgetOf(scope).underWay++;
	let refused = false;
	try {
		const result = await read();
		refused = wasRefused(result);
		return result;
	} finally {
		const budget = budgetOf(scope);
		budget.underWay--;
		if (refused) budget.refusedAt.push(Date.now());
	}
}
