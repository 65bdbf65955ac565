// Scenario 9's figures (bench/push.mjs): latency per order and per trigger, requests per hour, the callbacks sent;
// its section of the report, its run details, and what the smoke checks.
import { smokeChecks } from './smoke-checks.mjs';

const HOUR_MS = 3_600_000;

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const seconds = (ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(ms < 10_000 ? 2 : 1) : 'n/a');
const ratio = (value) => (Number.isFinite(value) ? `${value >= 10 ? value.toFixed(0) : value.toFixed(1)}x` : 'n/a');

/**
 * One trigger's figures. `starts`: orderId -> the trigger node's start times of the executions that emitted it;
 * `requests`: the sandbox's records made with that trigger's key during the window.
 */
function triggerFigures(completions, starts, requests, windowMs) {
	const latenciesMs = [];
	let missed = 0;
	let duplicated = 0;
	for (const { orderId, completedAt } of completions) {
		const times = starts.get(orderId) ?? [];
		if (times.length === 0) missed++;
		if (times.length > 1) duplicated += times.length - 1;
		if (times.length > 0) latenciesMs.push(Math.min(...times) - completedAt);
	}
	const byRoute = {};
	for (const record of requests) byRoute[`${record.method} ${record.route ?? record.path}`] = (byRoute[`${record.method} ${record.route ?? record.path}`] ?? 0) + 1;
	const medianMs = median(latenciesMs);
	const worstMs = latenciesMs.length > 0 ? Math.max(...latenciesMs) : NaN;
	return {
		emitted: completions.length - missed,
		missed,
		duplicated,
		latenciesMs,
		medianMs,
		worstMs,
		bestMs: latenciesMs.length > 0 ? Math.min(...latenciesMs) : NaN,
		medianS: seconds(medianMs),
		worstS: seconds(worstMs),
		requests: requests.length,
		failedRequests: requests.filter((record) => record.status === null || record.status >= 400).length,
		byRoute,
		perHour: Math.round((requests.length / windowMs) * HOUR_MS),
	};
}

/** Everything the scenario reports, from what bench/push.mjs collected. */
export function pushFigures({ scenario, completions, seen, windowMs, requests, deliveries, n8nLog }) {
	const push = triggerFigures(completions, seen.push, requests.push, windowMs);
	const poll = triggerFigures(completions, seen.poll, requests.poll, windowMs);
	const attempts = deliveries.flatMap((delivery) => delivery.attempts);
	return {
		orders: completions.length,
		gapSeconds: scenario.gapSeconds,
		windowMs,
		completionsPerHour: Math.round((completions.length / windowMs) * HOUR_MS),
		push,
		poll,
		driverRequests: requests.driver.length,
		perOrder: completions.map(({ orderId, completedAt }) => ({
			orderId,
			pushMs: (seen.push.get(orderId) ?? []).map((start) => start - completedAt),
			pollMs: (seen.poll.get(orderId) ?? []).map((start) => start - completedAt),
		})),
		callbacks: {
			deliveries: deliveries.length,
			repeats: deliveries.filter((delivery) => delivery.repeatOf !== null).length,
			attempts: attempts.length,
			notAnswered2xx: attempts.filter((attempt) => !(attempt.statusCode >= 200 && attempt.statusCode < 300)).length,
		},
		n8nLog,
	};
}

/** The report's section: the table push against poll, and how it was measured. */
export function pushSection(result) {
	const { push, poll } = result;
	const row = (label, figures) => [
		label,
		`${figures.emitted} of ${result.orders}${figures.duplicated ? ` (${figures.duplicated} twice)` : ''}`,
		seconds(figures.medianMs),
		seconds(figures.worstMs),
		seconds(figures.bestMs),
		`${figures.requests}${figures.failedRequests ? ` (${figures.failedRequests} failed)` : ''}`,
		String(figures.perHour),
	];
	const rows = [
		row('push: Ollang Callback Trigger', push),
		row('poll: Ollang Trigger, every minute (n8n\'s default)', poll),
		['poll / push', '', ratio(poll.medianMs / push.medianMs), ratio(poll.worstMs / push.worstMs), '', ratio(poll.requests / push.requests), ratio(poll.perHour / push.perHour)],
	];
	const routes = (figures) => Object.entries(figures.byRoute).map(([route, count]) => `${count} ${route}`).join(', ') || 'none';
	const notes = [
		`${result.orders} level-0 document orders with the Callback Trigger's production URL as their Callback URL, completed one at a time by moving the sandbox's clock after a seeded pause of ${result.gapSeconds[0]}-${result.gapSeconds[1]} s (${result.completionsPerHour} completions an hour over the ${(result.windowMs / 60_000).toFixed(1)}-minute window). Both workflows published in one \`n8n start\` on the same account, every API request delayed ${result.latencyMs} ms.`,
		'Latency: from the wall time the sandbox sent an order\'s completion callback (the moment it completed) to the trigger node\'s start time in the run data of the execution that emitted it (n8n\'s REST API). Push includes the callback\'s POST and the node\'s confirming Get Order; poll waits for the next poll (n8n polls at a random second of every minute) and its listing and detail reads. The window starts just after a poll, so the seeded pauses put each completion at the same point of the poll\'s minute in every run: the poll\'s figures are reproducible samples of that minute (over all its points the median would be about 30 s and the worst about 60 s, plus a poll\'s own time).',
		`Requests: the sandbox's request log over the window, from just after a scheduled poll (before the orders are created) to just after the poll that emitted the last completion, so it holds whole minutes of n8n's schedule; told apart by API key: each workflow has its own credential (owner key for push, billing key for poll; the bench creates orders with the member key). Per hour = requests / window. Push: ${routes(push)}. Poll: ${routes(poll)}. The poll's cost is there whether or not anything completes; the push's follows the completions (one confirming read each, none for a repeated callback).`,
		`Callbacks: ${result.callbacks.deliveries} deliveries (${result.callbacks.repeats} repeats, as the API may send), ${result.callbacks.attempts} attempts, ${result.callbacks.notAnswered2xx} not answered 2xx.`,
	];
	if (result.n8nLog.length > 0) notes.push(`n8n's log in the window (its last lines about Ollang or errors): ${result.n8nLog.map((line) => `\`${line.slice(0, 200)}\``).join('; ')}`);
	return { rows, header: ['trigger', 'orders emitted once', 'latency median (s)', 'worst (s)', 'best (s)', 'API requests', 'requests per hour'], goals: [], notes };
}

/** Every order's latencies, for the report's details. */
export function pushDetails(result) {
	const list = (values) => (values.length > 0 ? values.map((ms) => seconds(ms)).join(' and ') : 'none');
	return result.perOrder.map((order) => `- ${order.orderId}: push ${list(order.pushMs)} s, poll ${list(order.pollMs)} s`).join('\n');
}

/** What the smoke fails on: an order either trigger missed or emitted twice, a latency that is not one, failed requests. */
export function pushSmokeProblems(result) {
	const { check, result: checked } = smokeChecks('push');
	check(result.orders > 0, 'no order completed');
	for (const [side, figures] of [['push', result.push], ['poll', result.poll]]) {
		check(figures.missed === 0 && figures.duplicated === 0, `${side}: ${result.orders} orders completed, ${figures.missed} missed, ${figures.duplicated} emitted twice`);
		// An execution cannot start before its order completed: a negative figure means the measurement is wrong.
		check(figures.latenciesMs.length === result.orders && figures.latenciesMs.every((ms) => Number.isFinite(ms) && ms >= 0), `${side}: latencies ${figures.latenciesMs.join(', ')} ms`);
		check(figures.requests > 0 && figures.failedRequests === 0, `${side}: ${figures.requests} API requests, ${figures.failedRequests} failed`);
	}
	// One confirming Get Order per completion: the callbacks were confirmed, not emitted unread.
	check(result.push.byRoute['GET /integration/orders/:orderId'] >= result.orders, `push: ${JSON.stringify(result.push.byRoute)} for ${result.orders} completions`);
	check(result.poll.byRoute['GET /integration/orders'] > 0, `poll: no listing read (${JSON.stringify(result.poll.byRoute)})`);
	return checked();
}
