import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { EXCLUSIVE_LEASE_MS } from './waits';

// Decides which ONE process of all n8n's processes (mains, workers, webhook processes) runs a short section for a
// workflow: the one whose insert of the workflow's deduplication row the database accepted. Nothing here rests on
// how fast another process is.
//
// n8n's DeduplicationHelper (1.123.81 to 2.41.1) keeps two rows per node, the node's (context `n:<node id>`) and
// the workflow's (context ''), primary key (workflowId, context); a call reads its row, then inserts it when missing
// or updates it whole, without a condition; clearAllProcessedItems deletes it. An update can put back an old copy
// at any time; an insert cannot: the database refuses a second insert of a row that exists.
//
// Acquired by the call that inserts the workflow's row (mode latestIncrementalKey: LOW and a stamp), busy while the
// row exists, left by deleting it. A paused process only delays: its late insert is refused, its late update writes
// back a stamp, its late delete ends a section it had left. Two hold it at once only through the lease: a waiter
// that sees one holder keep it for EXCLUSIVE_LEASE_MS (60 s) takes it for dead and deletes the row. Stamps tell a
// waiter whether the holder changed (each waiter raises the row's value to its own stamp, lower the later it
// started waiting). Of the waiters that find a holder dead, the first to raise the value to BROKEN deletes, in the
// same call that checks the row is not a younger holder's; after one more lease the next mark elects again (the
// elected one died too). A waiter stopped or starved for a quarter of the lease counts again. A user sees, after a
// holder died, that items of the workflow wait up to a minute (two if the next one died too), then go on.
//
// A row that is not this section's (a Remove Duplicates node keeping its history in workflow scope): another mode
// is refused by n8n before writing ('foreign'); in this mode its keys are above every mark, so it is never raised,
// deleted or taken for ours: the section stops after two leases.

export type ExclusiveStore = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord' | 'clearAllProcessedItems'>;

const LOCK = { mode: 'latestIncrementalKey' } as const;
/** Below any key another node keeps in the workflow's row: the mark of the section's row. */
const LOW = Number.MIN_SAFE_INTEGER;
/** Above every stamp: the mark of a first lease's break (one more for each lease after). */
const BROKEN = LOW + 2 ** 51;

/**
 * A waiting process's stamp: lower the later it started waiting. The row's value is its holder's stamp (or higher:
 * raised by waiters' stamps that were not below it), so a waiter whose stamp is above the row's value knows the
 * holder changed since it started waiting.
 */
const stampOf = (waitingSince: number): number => LOW + 2 + (2 ** 50 - waitingSince);

/** elected: of the waiters that found one holder keeping the section for a whole lease, this one deletes its row. */
type Acquired = 'held' | 'foreign' | { busy: { holderChanged: boolean; elected: boolean } } | { failed: unknown };

/** The database refused a second insert of the row (SQLite, PostgreSQL): another process inserted it first. */
const REFUSED_INSERT = /unique constraint|duplicate key/i;

/**
 * One attempt: held (this call inserted the row), busy (it existed; whether its holder is another than when this
 * process started waiting), foreign (it is another node's), failed (no answer). `mark` (breaking after a lease): the
 * same call raises the value to it; the first to raise it, on a row whose holder did not change, is elected (a
 * younger holder's row is raised harmlessly: its holder deletes it).
 */
async function tryAcquire(store: ExclusiveStore, waitingSince: number, mark?: number): Promise<Acquired> {
	const stamp = stampOf(waitingSince);
	try {
		const added = (await store.checkProcessedAndRecord(mark === undefined ? [LOW, stamp] : [LOW, stamp, mark], 'workflow', LOCK)).new.map(Number);
		if (added.includes(LOW)) return 'held';
		const holderChanged = added.includes(stamp);
		return { busy: { holderChanged, elected: mark !== undefined && !holderChanged && added.includes(mark) } };
	} catch (error) {
		const message = error instanceof Error ? error.message : String(error);
		// n8n refuses a call whose mode is not the row's ("incompatible setting") before writing.
		if (/incompatible/i.test(message)) return 'foreign';
		return REFUSED_INSERT.test(message) ? { busy: { holderChanged: false, elected: false } } : { failed: error };
	}
}

/** Failed attempts in a row after which the store counts as not answering. */
const FAILURES = 3;

/**
 * Leaves the section (deletes the workflow's row), trying again when the store fails; says whether it did. A row
 * left behind is taken over as a dead holder's after the lease.
 */
export async function release(store: ExclusiveStore): Promise<boolean> {
	for (let attempt = 1; attempt <= 5; attempt++) {
		try {
			await store.clearAllProcessedItems('workflow', LOCK);
			return true;
		} catch {
			await sleep(50 * attempt);
		}
	}
	return false;
}

/**
 * Runs `work` while this process holds the section; waits for it (a few milliseconds to a few seconds under a
 * burst, the lease after a holder died). Throws when the section cannot be had (a foreign row, or the store not
 * answering): nothing of `work` ran then.
 */
export async function exclusively<T>(store: ExclusiveStore, work: () => Promise<T>, leaseMs = EXCLUSIVE_LEASE_MS): Promise<T> {
	const waitingSince = Date.now();
	/** Since when one holder has kept the section, as far as this process can tell. */
	let sameHolderSince = waitingSince;
	let leasesWaited = 0;
	let failures = 0;
	let lastLook = waitingSince;
	for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
		const started = Date.now();
		// Stopped or starved since its last look (in its sleep too): what it saw then is old.
		const away = started - lastLook > leaseMs / 4;
		const breaking = !away && started - sameHolderSince >= leaseMs;
		const attempt = await tryAcquire(store, waitingSince, breaking ? BROKEN + leasesWaited : undefined);
		lastLook = Date.now();
		if (attempt === 'held') break;
		if (attempt === 'foreign') throw new Error("the workflow's deduplication row is kept by another node");
		if ('failed' in attempt) {
			if (++failures >= FAILURES) throw attempt.failed;
		} else failures = 0;
		// A holder that changed, or this process away or its own call long (it was stopped: what it saw is old).
		if (('busy' in attempt && attempt.busy.holderChanged) || away || lastLook - started > leaseMs / 4) sameHolderSince = lastLook;
		else if (breaking && 'busy' in attempt) {
			// Not elected: one more lease for the one elected, whose mark the next lease's raises above (it may have
			// died too); not elected then either, the row is another node's: stop.
			if (attempt.busy.elected) await release(store);
			else if (leasesWaited > 0) throw new Error('another process kept the section for longer than the lease');
			leasesWaited++;
			sameHolderSince = Date.now();
			continue;
		}
		await sleep(wait + Math.floor(Math.random() * wait));
	}
	try {
		return await work();
	} finally {
		await release(store);
	}
}
