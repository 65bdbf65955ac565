import type { World } from './world.cts';

/** The paged listings of the API (page/take with a count), as the generated listing tests name them. */
export type PagedListing = 'consumption' | 'orders' | 'projects' | 'folders';

export const PAGED_LISTINGS: readonly PagedListing[] = ['consumption', 'orders', 'projects', 'folders'];

/** Called with the count of pages of the listing answered since the hook was set (1: page 1). */
export type PageHook = (answered: number) => void;

interface HookState {
	hook: PageHook;
	answered: number;
}

// Per sandbox: a test's hook must not fire for another sandbox in the same process.
const hooksOf = new WeakMap<World, Map<PagedListing, HookState>>();

/** Sets the hook run after each answered page of `listing` (one per listing); answers a function that removes it. */
export function onListingPage(world: World, listing: PagedListing, hook: PageHook): () => void {
	let hooks = hooksOf.get(world);
	if (hooks === undefined) hooksOf.set(world, (hooks = new Map()));
	const state: HookState = { hook, answered: 0 };
	hooks.set(listing, state);
	return () => {
		if (hooks?.get(listing) === state) hooks.delete(listing);
	};
}

/**
 * Called by a listing's handler once its page is built: the hook's edits land before the client's next request,
 * as edits by the account's other users land between two page reads.
 */
export function afterListingPage(world: World, listing: PagedListing): void {
	const state = hooksOf.get(world)?.get(listing);
	if (state === undefined) return;
	state.answered++;
	state.hook(state.answered);
}
