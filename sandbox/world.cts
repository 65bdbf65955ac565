import type { SimClock } from './core/clock.cts';
import type { IdFactory } from './core/ids.cts';
import type { Rng } from './core/rng.cts';
import type { CallbackSink } from './callbacks.cts';
import type { FileStorage } from './files/storage.cts';
import type { ListingGrowth } from './growth.cts';
import type { SandboxState, SeededFixtures } from './types.cts';

export interface ProgressionSettings {
	/** 'fixed': every stage takes its base duration; 'random': durations vary (x0.5 to x2) from the seeded RNG. */
	mode: 'fixed' | 'random';
	/** Chance that a finished order gets a later re-delivery (repeated events, status unchanged). */
	redeliveryProbability: number;
}

export interface SimulationSettings {
	progression: ProgressionSettings;
	/** Chance that a memory import job fails while processing. */
	jobFailureRate: number;
	/** Chance that vectorization fails after a job completed. */
	vectorizationFailureRate: number;
}

/** Everything the handlers and the simulation share. */
export interface World {
	seed: number;
	state: SandboxState;
	clock: SimClock;
	ids: IdFactory;
	rng: { data: Rng; life: Rng; faults: Rng; jobs: Rng; callbacks: Rng };
	settings: SimulationSettings;
	/** The canonical address of stored documents; Get order turns it into a signed link to the storage host. */
	fileBaseUrl: string;
	/** The storage host (sandbox/files/): serves the order documents behind signed links. */
	storage?: FileStorage;
	/** While seeding: how many more consumption lines the replayed history may emit; null afterwards. */
	lineBudget: number | null;
	fixtures: SeededFixtures;
	/** Sends the completion callbacks (sandbox/callbacks.cts); absent while seeding: replayed history calls no one back. */
	callbacks?: CallbackSink;
	/** New rows after each answered page of a listing (sandbox/growth.cts); none by default. */
	growth: ListingGrowth;
}
