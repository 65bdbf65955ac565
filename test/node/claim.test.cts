// The claim (nodes/shared/claim.ts) between processes sharing n8n's store as its database races: each process with
// its own module copy (its own turn-taking, as two n8n workers have), the store's read and write of a row far apart
// and at random (what a burst, or a stopped process, does), one name claimed by several at the same moment. Exactly
// one goes ahead, every time, however long the gaps: nothing here waits on the store's pace. (OS processes stopped
// and killed on n8n's own store code: claimProcesses.test.cts.)
import type { ICheckProcessedContextData, ICheckProcessedOptions } from 'n8n-workflow';
import { InMemoryDeduplicator } from '../harness/deduplication.cts';
import { Rng } from '../../sandbox/core/rng.cts';

type ClaimModule = typeof import('../../nodes/shared/claim');

/** A process's own copy of the claim and the store modules under it. */
function processCopy(): ClaimModule {
	let copy: ClaimModule | undefined;
	jest.isolateModules(() => {
		copy = jest.requireActual('../../nodes/shared/claim') as ClaimModule;
	});
	return copy!;
}

const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: 1000 };
const CONTEXT = { node: { id: 'node-1', name: 'Trigger' }, workflow: { id: 'wf-1' } } as unknown as ICheckProcessedContextData;

function helpersOf(store: InMemoryDeduplicator) {
	return {
		checkProcessedAndRecord: async (items: string[], scope: 'node' | 'workflow', options: ICheckProcessedOptions) => await store.checkProcessedAndRecord(items, scope, CONTEXT, options),
		removeProcessed: async (items: string[], scope: 'node' | 'workflow') => await store.removeProcessed(items, scope, CONTEXT),
		clearAllProcessedItems: async (scope: 'node' | 'workflow') => await store.clearAllProcessedItems(scope, CONTEXT),
	} as never;
}

describe('a claim across processes whose store calls are slow', () => {
	it.each([1, 2, 3])('one name claimed by three at once, each read and write 0-300 ms apart: exactly one goes ahead (seed %i)', async (seed) => {
		// Seeded, so a failure replays.
		const rng = new Rng(seed);
		const store = new InMemoryDeduplicator();
		store.raceLikeDatabase = true;
		store.raceDelayMs = () => 300 * rng.next();
		const copies = [processCopy(), processCopy(), processCopy()];
		const helpers = helpersOf(store);
		const names = Array.from({ length: 8 }, (_, index) => `order:${seed}-${index}:done`);
		const wrong: string[] = [];
		for (const name of names) {
			const outcomes = await Promise.all(
				copies.map(async (copy) => {
					await new Promise((resolve) => setTimeout(resolve, 100 * rng.next()));
					return (await copy.claim(helpers, [name], OPTIONS)).get(name);
				}),
			);
			if (outcomes.filter((outcome) => outcome === 'won').length !== 1) wrong.push(`${name}: ${outcomes.join(', ')}`);
			// Asked again later: a repeat.
			expect((await copies[0].claim(helpers, [name], OPTIONS)).get(name)).toBe('before');
		}
		expect(wrong).toEqual([]);
	});

	it('names claimed together are decided together; nothing is left of the section after it', async () => {
		const store = new InMemoryDeduplicator();
		const helpers = helpersOf(store);
		const copy = processCopy();
		expect(Object.fromEntries(await copy.claim(helpers, ['a', 'b'], OPTIONS))).toEqual({ a: 'won', b: 'won' });
		expect(Object.fromEntries(await copy.claim(helpers, ['b', 'c', 'c'], OPTIONS))).toEqual({ b: 'before', c: 'won' });
		// The workflow's row is the section's: left empty after each claim (deleted), the node's keeps the names.
		expect(await store.getProcessedDataCount('workflow', CONTEXT)).toBe(0);
		expect(await store.getProcessedDataCount('node', CONTEXT)).toBe(3);
	});

	it("another node's workflow row (Remove Duplicates, workflow scope) is never written: the claim stops at once", async () => {
		const store = new InMemoryDeduplicator();
		await store.checkProcessedAndRecord(['theirs'], 'workflow', CONTEXT, { mode: 'entries' });
		const copy = processCopy();
		await expect(copy.claim(helpersOf(store), ['a'], OPTIONS)).rejects.toThrow(/another node/);
		expect(await store.getProcessedDataCount('workflow', CONTEXT)).toBe(1);
		expect((await store.checkProcessedAndRecord(['theirs'], 'workflow', CONTEXT, { mode: 'entries' })).processed).toEqual(['theirs']);
		// Nothing recorded for the claim either.
		expect(await store.getProcessedDataCount('node', CONTEXT)).toBe(0);
	});

	describe('the section after a holder died (nodes/shared/exclusive.ts, a lease of 1 s here: longer than four of its waits between looks)', () => {
		const LEASE = 1000;
		const LOCK = { mode: 'latestIncrementalKey' } as const;
		const exclusive = () => jest.requireActual('../../nodes/shared/exclusive') as typeof import('../../nodes/shared/exclusive');

		it('its breaker died too (the row left at the first mark): the next lease elects again, and the section goes on', async () => {
			const store = new InMemoryDeduplicator();
			// A holder's row (LOW and its stamp), then raised to the first mark by a breaker that died before deleting it.
			await store.checkProcessedAndRecord([Number.MIN_SAFE_INTEGER, Number.MIN_SAFE_INTEGER + 2], 'workflow', CONTEXT, LOCK);
			await store.checkProcessedAndRecord([Number.MIN_SAFE_INTEGER + 2 ** 51], 'workflow', CONTEXT, LOCK);
			const started = Date.now();
			const ran = await exclusive().exclusively(helpersOf(store), async () => 'ran', LEASE);
			expect(ran).toBe('ran');
			expect(Date.now() - started).toBeGreaterThanOrEqual(2 * LEASE);
			expect(await store.getProcessedDataCount('workflow', CONTEXT)).toBe(0);
		});

		it("another node's row in the same mode (Remove Duplicates keeping incremental keys, workflow scope): never deleted, the section stops after two leases", async () => {
			const store = new InMemoryDeduplicator();
			await store.checkProcessedAndRecord([5], 'workflow', CONTEXT, LOCK);
			await expect(exclusive().exclusively(helpersOf(store), async () => 'ran', LEASE)).rejects.toThrow(/longer than the lease/);
			// Their row is there, its key still the largest (a larger one is new, the same one is not).
			expect((await store.checkProcessedAndRecord([5], 'workflow', CONTEXT, LOCK)).processed).toEqual([5]);
		});
	});
});

