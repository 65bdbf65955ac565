// The claim (nodes/shared/claim.ts) between two processes sharing n8n's store as its database races: each process
// with its own turn-taking and its own record of how long store calls take (its own copy of the modules, as two n8n
// workers have), the store's read and write of the row far apart (a burst's load), one name claimed by both at
// the same moment. Exactly one goes ahead, every time.
import type { ICheckProcessedContextData, ICheckProcessedOptions } from 'n8n-workflow';
import { InMemoryDeduplicator } from '../harness/deduplication.cts';
import { READ_BACK_AFTER_MS } from '../../nodes/shared/waits';
import { Rng } from '../../sandbox/core/rng.cts';

type ClaimModule = typeof import('../../nodes/shared/claim');

/** A process's own copy of the claim and the store module under it. */
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
	} as never;
}

describe('a claim across two processes whose store calls are slow', () => {
	it.each([1, 2, 3])('one name claimed by both at once: exactly one goes ahead (seed %i)', async (seed) => {
		// Seeded, so a failure replays.
		const rng = new Rng(seed);
		const store = new InMemoryDeduplicator();
		store.raceLikeDatabase = true;
		// The read and the write of a row 4 to 6 times the read-back's floor apart: what a burst does to n8n's database.
		store.raceDelayMs = () => READ_BACK_AFTER_MS * (4 + 2 * rng.next());
		const [first, second] = [processCopy(), processCopy()];
		const helpers = helpersOf(store);
		const names = Array.from({ length: 12 }, (_, index) => `order:${seed}-${index}:done`);
		const goneAhead: string[] = [];
		for (const name of names) {
			const offset = Math.round(rng.next() * READ_BACK_AFTER_MS * 3);
			const outcomes = await Promise.all([
				first.claim(helpers, [name], first.newClaimant('a'), OPTIONS),
				new Promise((resolve) => setTimeout(resolve, offset)).then(async () => await second.claim(helpers, [name], second.newClaimant('b'), OPTIONS)),
			]);
			const ahead = outcomes.filter((outcome) => ['won', 'undecided'].includes(outcome.get(name)!)).length;
			goneAhead.push(`${name}: ${ahead} (${outcomes.map((outcome) => outcome.get(name)).join(', ')}, second ${offset} ms later)`);
		}
		expect(goneAhead.filter((line) => !/: 1 \(/.test(line))).toEqual([]);
	});

	it('waits twice the slowest store call of the last minute, never less than its floor', async () => {
		const copy = processCopy();
		expect(copy.readBackWaitMs()).toBe(READ_BACK_AFTER_MS);
		const store = new InMemoryDeduplicator();
		store.raceLikeDatabase = true;
		store.raceDelayMs = () => 5 * READ_BACK_AFTER_MS;
		await copy.claim(helpersOf(store), ['x'], copy.newClaimant('a'), OPTIONS);
		expect(copy.readBackWaitMs()).toBeGreaterThanOrEqual(10 * READ_BACK_AFTER_MS);
		expect(copy.readBackWaitMs(Date.now() + 61_000)).toBe(READ_BACK_AFTER_MS);
	});
});
