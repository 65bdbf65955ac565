// Scenario 5 of `npm run bench`: what one poll of the Ollang Trigger (Order Delivery Event) costs, in requests and
// time, as a function of what changed and of how many orders the account holds.
//
// It runs in-process: the real trigger code (compiled from source by tsx) through n8n-core's PollContext and
// PollTriggerExecutor (test/harness/poll.cts's createPollRunner, which keeps static data as an active workflow
// does), against an in-process sandbox with the same per-request latency as the n8n scenarios. `n8n execute` does
// not call a trigger's poll(), and a published workflow in `n8n start` polls at most once a minute, so the real
// n8n would give the same requests at far greater cost in time.
//
// Each account is the sandbox's seeded orders plus 100 orders created on their way (ongoing) before the trigger
// starts; measured polls move some of those to delivered, with the simulated clock standing still so nothing else
// changes.
//
// It also reports the size of the static data n8n writes to its database each time a poll emits (the node's
// bucket as saved after an emitting poll, serialized as JSON).
//
// Run by bench/run.mjs on the runtime's Node 24 (`node --require tsx/cjs bench/trigger-poll.cts --latency 25
// --scale full`: under tsx's ESM loader on Node 20, n8n-core fails to load); prints one line `TRIGGER_BENCH {json}`.
// `--scale smoke` measures one small account, for `npm test`'s smoke of the bench.
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import type { IDataObject } from 'n8n-workflow';
import { startSandbox, type Sandbox } from '../sandbox/index.cts';
import { createPollRunner, type PollRunner } from '../test/harness/poll.cts';

const EVENT_TYPES = ['ai_delivered', 'translator_delivered', 'lsp_approved', 'order_delivered'];
/** Changed orders per measured poll. */
const CHANGE_COUNTS = [0, 1, 50];
/** Polls measured per change count (medians are reported); 50 changed is measured once (the pool has 100). */
const REPEATS = 3;

interface PollMeasure {
	ms: number;
	requests: number;
	listRequests: number;
	detailRequests: number;
	otherRequests: number;
	itemsEmitted: number;
	/** Bytes of the static data n8n saved after this poll, when it emitted (JSON); undefined when it emitted nothing. */
	staticDataBytes?: number;
}

interface AccountResult {
	account: string;
	ordersInAccount: number;
	watchedOrders: number;
	lookbackDays: number;
	byChange: Array<{ changed: number; polls: PollMeasure[] }>;
	/** Median bytes of static data saved per emitting poll. */
	staticDataBytes?: number;
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

async function measuredPoll(sandbox: Sandbox, runner: PollRunner): Promise<PollMeasure> {
	sandbox.requests.reset();
	const started = performance.now();
	const result = await runner.poll();
	const ms = performance.now() - started;
	const requests = sandbox.requests.count();
	const listRequests = sandbox.requests.count({ path: '/integration/orders' });
	const detailRequests = sandbox.requests.count({ path: '/integration/orders/:orderId' });
	const itemsEmitted = result === null ? 0 : result[0].length;
	return {
		ms,
		requests,
		listRequests,
		detailRequests,
		otherRequests: requests - listRequests - detailRequests,
		itemsEmitted,
		staticDataBytes: itemsEmitted > 0 ? Buffer.byteLength(JSON.stringify(runner.savedStaticData)) : undefined,
	};
}

/** Orders created on their way (ongoing) before the trigger starts, so that measured polls can change some. */
const CHANGEABLE_POOL = 100;

/** Moves `count` pool orders to delivered: their listed status changes and they gain delivery events. */
function deliverOrders(sandbox: Sandbox, pool: string[], count: number): void {
	if (pool.length < count) throw new Error(`only ${pool.length} changeable orders left, ${count} needed`);
	for (const orderId of pool.splice(0, count)) sandbox.simulate.advanceOrderTo(orderId, 'delivered');
}

async function measureAccount(options: {
	account: string;
	latencyMs: number;
	orders: number;
	lookbackDays: number;
}): Promise<AccountResult> {
	// The 'large' volume's shape (folders, projects, requestors, 120 days of history) at the chosen size.
	const sandbox = await startSandbox({
		seed: 42,
		quiet: true,
		volume: { orders: options.orders - CHANGEABLE_POOL, folders: 12, projectsPerFolder: 6, requestors: 20, historyDays: 120 },
	});
	try {
		// Document orders have no waiting stage; the clock stands still during the measured polls, so only the
		// orders this script moves change.
		const pool = sandbox.simulate
			.createOrders(CHANGEABLE_POOL, { type: 'document', level: 0, status: 'ongoing' })
			.map((order) => order.id);
		const runner = createPollRunner({
			parameters: { event: 'orderDeliveryEvent', eventTypes: EVENT_TYPES, watch: 'recentOrders', lookbackDays: options.lookbackDays },
			credentials: { baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.owner },
		});
		// Activation poll (sets the baseline), then one poll a minute later, as n8n's schedule would run them; events
		// stamped after that minute are new. Latency is switched on after set-up so only measured polls wait for it.
		await runner.poll();
		sandbox.clock.advance(1);
		await runner.poll();
		sandbox.setLatency(options.latencyMs);
		const watched = Object.keys(runner.staticData.orders as IDataObject).length;
		const byChange: AccountResult['byChange'] = [];
		for (const changed of CHANGE_COUNTS) {
			const polls: PollMeasure[] = [];
			for (let repeat = 0; repeat < (changed >= 50 ? 1 : REPEATS); repeat++) {
				deliverOrders(sandbox, pool, changed);
				polls.push(await measuredPoll(sandbox, runner));
			}
			byChange.push({ changed, polls });
		}
		const savedSizes = byChange.flatMap(({ polls }) => polls.map((poll) => poll.staticDataBytes)).filter((bytes): bytes is number => bytes !== undefined);
		return {
			account: options.account,
			ordersInAccount: sandbox.state.orders.size,
			watchedOrders: watched,
			lookbackDays: options.lookbackDays,
			byChange,
			staticDataBytes: savedSizes.length > 0 ? median(savedSizes) : undefined,
		};
	} finally {
		await sandbox.close();
	}
}

async function main(): Promise<void> {
	const { values } = parseArgs({ options: { latency: { type: 'string', default: '25' }, scale: { type: 'string', default: 'full' } } });
	const latencyMs = Number(values.latency);
	if (values.scale !== 'full' && values.scale !== 'smoke') throw new Error(`--scale must be full or smoke, got "${values.scale}"`);
	const accounts: AccountResult[] = [];
	if (values.scale === 'smoke') {
		accounts.push(await measureAccount({ account: '200 orders, all watched (365-day window)', latencyMs, orders: 200, lookbackDays: 365 }));
	} else {
		// Every order watched (365-day window), at three account sizes; then the default 14-day window.
		for (const orders of [1000, 2000, 10_000]) {
			accounts.push(await measureAccount({ account: `${orders.toLocaleString('en-US')} orders, all watched (365-day window)`, latencyMs, orders, lookbackDays: 365 }));
		}
		accounts.push(await measureAccount({ account: '1,000 orders, default 14-day window', latencyMs, orders: 1000, lookbackDays: 14 }));
	}
	const summary = accounts.map((account) => ({
		...account,
		medians: account.byChange.filter(({ polls }) => polls.length > 0).map(({ changed, polls }) => ({
			polls: polls.length,
			changed,
			ms: median(polls.map((poll) => poll.ms)),
			requests: median(polls.map((poll) => poll.requests)),
			listRequests: median(polls.map((poll) => poll.listRequests)),
			detailRequests: median(polls.map((poll) => poll.detailRequests)),
			otherRequests: median(polls.map((poll) => poll.otherRequests)),
			itemsEmitted: median(polls.map((poll) => poll.itemsEmitted)),
		})),
	}));
	process.stdout.write(`TRIGGER_BENCH ${JSON.stringify({ latencyMs, repeats: REPEATS, accounts: summary })}\n`);
}

main().catch((error: unknown) => {
	console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
	process.exitCode = 1;
});
