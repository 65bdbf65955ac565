import { setMaxListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminRoutes } from './admin.cts';
import { billingRoutes } from './api/billing.cts';
import { contentRoutes } from './api/content.cts';
import { customInstructionRoutes } from './api/customInstructions.cts';
import { figmaRoutes } from './api/figma.cts';
import { folderRoutes } from './api/folders.cts';
import { healthRoutes } from './api/health.cts';
import { localeRoutes } from './api/locales.cts';
import { memoryRoutes } from './api/memories.cts';
import { orderRoutes } from './api/orders.cts';
import { projectRoutes } from './api/projects.cts';
import { revisionRoutes } from './api/revisions.cts';
import { uploadRoutes } from './api/uploads.cts';
import { CallbackDispatcher, type CallbackDelivery, type CallbackSettings, callbackAdminRoutes } from './callbacks.cts';
import { minutesToMs, SimClock } from './core/clock.cts';
import { applyDrift, type DriftMode, driftUsers } from './drift.cts';
import { IdFactory } from './core/ids.cts';
import { type ListingGrowth, NO_GROWTH, setListingGrowth } from './growth.cts';
import { Rng } from './core/rng.cts';
import { FaultInjector, type FaultRule } from './faults.cts';
import { createListingEdits, type ListingEdits } from './listingEdits.cts';
import { FileStorage, type StorageRequest, type StorageSettings, storageAdminRoutes } from './files/storage.cts';
import { Router } from './http/router.cts';
import { type AdminRoute, type ApiRoute, answerClientError, createRequestHandler } from './http/server.cts';
import { RequestLog, type RequestFilter, type RequestRecord } from './requestLog.cts';
import { seedWorld, type VolumeConfig, VOLUMES } from './seed.cts';
import { createSimulate, type Simulate } from './simulate.cts';
import type { SandboxState, SeededFixtures } from './types.cts';
import type { ProgressionSettings, World } from './world.cts';

export type { CallbackAttempt, CallbackDelivery, CallbackSettings, RetryPolicy } from './callbacks.cts';
export type { DriftMode } from './drift.cts';
export { DRIFT_MODES } from './drift.cts';
export type { FaultRule } from './faults.cts';
export type { RequestFilter, RequestRecord } from './requestLog.cts';
export type { VolumeConfig } from './seed.cts';
export type { SimulatedOrderInput, Simulate } from './simulate.cts';
export type { ProgressionSettings } from './world.cts';
export type { ListingGrowth } from './growth.cts';
export type { ListingEdits, NewListingRow } from './listingEdits.cts';
export type { PagedListing } from './pageHooks.cts';
export { PAGED_LISTINGS } from './pageHooks.cts';
export type { StorageRequest, StorageSettings } from './files/storage.cts';
export * from './types.cts';
export { FAIL_IMPORT_MARKER, FAIL_VECTORIZATION_MARKER } from './domain/importJobs.cts';
export { AI_ACTOR_ID, SYSTEM_ACTOR_ID } from './domain/orderLife.cts';

/** Every API route of the sandbox (the spec's endpoints plus the public ones it names). */
export const API_ROUTES: readonly ApiRoute[] = [
	// Figma before the order routes: GET /integration/orders/figma is not GET /integration/orders/:orderId.
	...figmaRoutes,
	...orderRoutes,
	...revisionRoutes,
	...billingRoutes,
	...contentRoutes,
	...memoryRoutes,
	...folderRoutes,
	...projectRoutes,
	...uploadRoutes,
	...customInstructionRoutes,
	...localeRoutes,
	...healthRoutes,
];

export const DEFAULT_START_AT = '2026-11-01T12:00:00.000Z';

export interface SandboxOptions {
	/** 0 (default): a free port on 127.0.0.1. */
	port?: number;
	/** Data is deterministic from the seed (default 42). */
	seed?: number;
	/** 'small' (default, fast tests), 'demo', 'large' (1,000 orders, 10,000 consumption lines), or custom counts over 'small'. */
	volume?: 'small' | 'demo' | 'large' | Partial<VolumeConfig>;
	/** Simulated clock start (default 2026-11-01T12:00:00.000Z). */
	startAt?: string | Date;
	/** The clock follows wall time x speed; default false (tests drive it). */
	realtime?: false | { speed: number };
	/** Added to every API request (benchmarks). */
	latencyMs?: number;
	/** No console output for handler errors. */
	quiet?: boolean;
	/** Order progression (default: fixed durations, 20% of finished orders get a later re-delivery). */
	progression?: Partial<ProgressionSettings>;
	/** Chance that a memory import job fails (default 0); vectorization likewise. */
	jobFailureRate?: number;
	vectorizationFailureRate?: number;
	/** Answer as a changed or hostile service would (sandbox/drift.cts), for the contract check's tests. */
	drift?: DriftMode[];
	/** Completion callbacks (sandbox/callbacks.cts): loopback targets, the repeat chance, the timeout, the retry policy. */
	callbacks?: Partial<CallbackSettings>;
	/** New rows after each answered page of the consumption and orders listings (sandbox/growth.cts); none by default. */
	listingGrowth?: Partial<ListingGrowth>;
	/** The storage host's port (sandbox/files/); 0 (default): a free port. */
	filesPort?: number;
}

export interface Sandbox {
	/** http://127.0.0.1:PORT; API paths are under /integration (and /v1/api/client for review info). */
	baseUrl: string;
	keys: { owner: string; billing: string; member: string };
	fixtures: SeededFixtures;
	/** Live state, for assertions. */
	state: SandboxState;
	clock: { now(): Date; advance(minutes: number): void };
	faults: { add(rule: FaultRule): number; clear(): number; list(): ReadonlyArray<{ id: number; rule: FaultRule; fired: number }> };
	setLatency(ms: number): void;
	/** The request log; maxInFlight: the most API requests open at once since the last reset (a client's concurrency). */
	requests: { count(filter?: RequestFilter): number; reset(): void; readonly log: RequestRecord[]; maxInFlight(): number };
	simulate: Simulate;
	/** Every callback delivery, and a wait until none is in flight. */
	callbacks: { list(): readonly CallbackDelivery[]; settled(): Promise<void>; readonly settings: CallbackSettings };
	/** The storage host serving the order documents (sandbox/files/): its origin, settings and request log. */
	files: { origin: string; readonly settings: StorageSettings; readonly requests: StorageRequest[] };
	/** Changes the listing growth (sandbox/growth.cts); answers the whole setting. */
	setListingGrowth(growth: Partial<ListingGrowth>): ListingGrowth;
	/** Rows added and removed between page reads, and a hook after each answered page (sandbox/listingEdits.cts). */
	listings: ListingEdits;
	close(): Promise<void>;
}

function resolveVolume(volume: SandboxOptions['volume']): VolumeConfig {
	if (volume === undefined) return VOLUMES.small;
	if (typeof volume === 'string') {
		const preset = VOLUMES[volume];
		if (!preset) throw new RangeError(`volume must be small, demo, large or an object of counts; got ${volume}`);
		return preset;
	}
	// Fixture orders are back-dated up to about a day and a half; a shorter history could not hold them.
	const merged = { ...VOLUMES.small, ...volume };
	return { ...merged, historyDays: Math.max(2, merged.historyDays) };
}

function emptyState(): SandboxState {
	return {
		users: new Map(),
		translators: [],
		lspManager: { id: '', name: '', email: '' },
		folders: new Map(),
		projects: new Map(),
		folderDocs: new Map(),
		orders: new Map(),
		consumption: [],
		wallet: { totalCredits: 0, usedCredits: 0, lastSyncAt: null, ledger: [] },
		memories: new Map(),
		importJobs: new Map(),
		content: new Map(),
		revisions: new Map(),
		customInstructions: new Map(),
		figmaImports: new Map(),
	};
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
	const seed = options.seed ?? 42;
	const volume = resolveVolume(options.volume);
	const startMs = new Date(options.startAt ?? DEFAULT_START_AT).getTime();
	if (Number.isNaN(startMs)) throw new RangeError(`startAt is not a valid date: ${String(options.startAt)}`);
	const root = new Rng(seed);
	const world: World = {
		seed,
		state: emptyState(),
		clock: new SimClock(startMs - minutesToMs(volume.historyDays * 24 * 60)),
		ids: new IdFactory(seed),
		rng: { data: root.fork('data'), life: root.fork('life'), faults: root.fork('faults'), jobs: root.fork('jobs'), callbacks: root.fork('callbacks') },
		settings: {
			progression: { mode: 'fixed', redeliveryProbability: 0.2, ...options.progression },
			jobFailureRate: options.jobFailureRate ?? 0,
			vectorizationFailureRate: options.vectorizationFailureRate ?? 0,
		},
		fileBaseUrl: 'https://files.sandbox.ollang.test',
		lineBudget: null,
		growth: { ...NO_GROWTH },
		// Filled in by seeding below; nothing reads it before.
		fixtures: undefined as unknown as SeededFixtures,
	};
	const seeded = seedWorld(world, volume, startMs);
	world.fixtures = seeded.fixtures;
	if (options.listingGrowth) setListingGrowth(world, options.listingGrowth);

	const faults = new FaultInjector(world.rng.faults);
	const requests = new RequestLog();
	const simulate = createSimulate(world);
	let latencyMs = options.latencyMs ?? 0;
	const setLatency = (ms: number) => {
		if (!(ms >= 0)) throw new RangeError(`latency must be >= 0 ms, got ${ms}`);
		latencyMs = ms;
	};
	const closing = new AbortController();
	// Every API request waiting out the latency or a delay fault listens on it: clients keep dozens open at once.
	setMaxListeners(0, closing.signal);
	const drift = options.drift ?? [];
	// After seeding: the replayed history calls no one back.
	const callbacks = new CallbackDispatcher(world, closing.signal, options.callbacks);
	world.callbacks = callbacks;
	const storage = new FileStorage(world, [...seeded.usersByKey.keys()]);
	world.storage = storage;

	const api = new Router<ApiRoute>();
	for (const route of API_ROUTES) api.add(route);
	const admin = new Router<AdminRoute>();
	let baseUrl = '';
	const info = () => ({
		baseUrl,
		keys: seeded.keys,
		fixtures: seeded.fixtures,
		clock: { now: world.clock.nowIso(), realtimeSpeed: world.clock.speed },
		seed,
		volume,
		latencyMs,
		listingGrowth: world.growth,
		filesOrigin: storage.origin,
	});
	for (const route of adminRoutes({ world, faults, requests, simulate, info, setLatency, latencyMs: () => latencyMs })) admin.add(route);
	for (const route of callbackAdminRoutes(callbacks)) admin.add(route);
	for (const route of storageAdminRoutes(storage)) admin.add(route);

	const server: Server = createServer(
		createRequestHandler({
			world,
			api,
			admin,
			faults,
			requests,
			keys: driftUsers(drift, seeded.usersByKey),
			latencyMs: () => latencyMs,
			signal: closing.signal,
			quiet: options.quiet ?? false,
			drift: drift.length > 0 ? (method, pattern, pathname, reply) => applyDrift(drift, method, pattern, pathname, reply) : undefined,
		}),
	);
	// Idle connections stay open longer than clients keep them (undici and n8n's HTTP client close theirs after a
	// few seconds): a server closing first races a client reusing the socket, seen as "other side closed" on a busy
	// machine. Hosted APIs behind load balancers hold idle connections for about a minute too.
	server.keepAliveTimeout = 65_000;
	server.headersTimeout = 66_000;
	server.on('clientError', answerClientError);
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, '127.0.0.1', () => {
			server.off('error', reject);
			resolve();
		});
	});
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	try {
		await storage.listen(options.filesPort ?? 0);
	} catch (error) {
		server.close();
		throw error;
	}
	if (options.realtime) world.clock.startRealtime(options.realtime.speed);

	return {
		baseUrl,
		keys: seeded.keys,
		fixtures: seeded.fixtures,
		state: world.state,
		clock: { now: () => world.clock.now(), advance: (minutes) => world.clock.advance(minutes) },
		faults: { add: (rule) => faults.add(rule), clear: () => faults.clear(), list: () => faults.list() },
		setLatency,
		requests: {
			count: (filter) => requests.count(filter),
			reset: () => requests.reset(),
			get log() {
				return requests.log;
			},
			maxInFlight: () => requests.maxInFlight,
		},
		simulate,
		callbacks: { list: () => callbacks.list(), settled: () => callbacks.settled(), settings: callbacks.settings },
		files: { origin: storage.origin, settings: storage.settings, requests: storage.requests },
		setListingGrowth: (growth) => setListingGrowth(world, growth),
		listings: createListingEdits(world),
		close: async () => {
			await storage.close();
			world.clock.stopRealtime();
			closing.abort();
			const closed = new Promise<void>((resolve) => server.close(() => resolve()));
			server.closeAllConnections();
			await closed;
		},
	};
}
