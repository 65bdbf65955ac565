import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { OTHER_SEND_WAIT_MS, READ_BACK_AFTER_MS } from '../../../../shared/waits';

import type { StoreMarkers } from './markers';
import type { StaticRecords } from './records';
import { idsOf } from './records';
import { alreadyAppliedOutput, mayHaveBeenApplied, sentElsewhere, storeDidNotAnswer } from './stops';
import type { Candidates, PaidWrite, WriteResult } from './types';

// An attempt another execution claimed: this execution sends nothing for it, and learns how it ended. It takes a
// reader slot (markers.ts), waits for the attempt's end where the API shows it, and reads the facts the sender left:
// - applied: the item is done; its answer is read back from the API (the ids the sender named) and returned with
//   alreadyApplied;
// - released (the API refused it): the next attempt may be sent;
// - nothing yet: the sender has not finished (or died). In a Retry the attempt is the retried run's, which is over: its
//   lost answer is settled from the baseline it kept (by one execution only). Elsewhere the item stops, saying so.

/**
 * The sender records its facts within a store call and a read-back of the effect showing; with nothing to see (the
 * effect came before this execution's baseline, or the API shows nothing of the action) facts are read after a
 * quiet while, and again, in a second slot, at the end of the wait. Multiples of the claim's read-back: the store's pace.
 */
const FACTS_AFTER_EFFECT_MS = 3 * READ_BACK_AFTER_MS;
const QUIET_MS = 8 * READ_BACK_AFTER_MS;

export interface ItemContext {
	ctx: IExecuteFunctions;
	itemIndex: number;
	key: string;
	/** The Idempotency Key given, if any. */
	keyed: boolean;
	/** n8n's Retry of a failed execution: an attempt of the retried run is over. */
	isRetry: boolean;
	records: StaticRecords;
	markers: StoreMarkers;
}

/** What the taken attempt leaves this execution: done (the item's output), or the next attempt to send. */
export type AfterTaken = { done: WriteResult } | { next: true; refusalMeansDone: boolean };

export async function readTakenAttempt(item: ItemContext, write: PaidWrite, attempt: number, baseline: string[] | undefined): Promise<AfterTaken> {
	const deadline = Date.now() + OTHER_SEND_WAIT_MS;
	// A Retry reads at once (the retried run is over); another execution's send is waited for, in two looks at most.
	for (let look = 0; look < (item.isRetry ? 1 : 2); look++) {
		const seen = item.isRetry ? await lookOnce(write) : await waitForEffect(write, baseline, look === 0 ? Date.now() + QUIET_MS : deadline);
		const facts = await readFacts(item, attempt, seen);
		if ('applied' in facts) {
			const answer = await answerOf(write, seen, facts.made);
			item.records.set(item.key, { state: 'applied', at: Date.now(), result: answer });
			return { done: alreadyAppliedOutput(answer, undefined) };
		}
		if ('released' in facts) return { next: true, refusalMeansDone: false };
	}
	if (!item.isRetry) throw sentElsewhere(item.ctx, item.itemIndex);
	return await settleRetriedRun(item, write, attempt);
}

/** The applied attempt's answer, as the API shows it now: the ids the sender named, the state it confirms, or the item's identity. */
async function answerOf(write: PaidWrite, seen: Seen, made: string[]): Promise<WriteResult> {
	if (seen.candidates !== undefined && made.length > 0) return await seen.candidates.output(made);
	const confirmed = seen.confirmed ?? (write.lostAnswer.readFrom === 'refusal' ? await write.lostAnswer.confirm() : undefined);
	return confirmed ?? write.identity ?? {};
}

/** The facts of the attempt, in a reader slot of this execution's own. */
async function readFacts(item: ItemContext, attempt: number, seen: Seen) {
	const { ctx, itemIndex, key, markers } = item;
	const slot = await markers.claimReader(key, attempt);
	if (slot === 'failed') throw storeDidNotAnswer(ctx, itemIndex);
	if (slot === undefined) throw mayHaveBeenApplied(ctx, itemIndex, undefined, item.keyed && !item.isRetry);
	const facts = await markers.readFacts(key, attempt, slot, seen.candidates?.ids.slice(0, 50) ?? []);
	if (facts === undefined) throw storeDidNotAnswer(ctx, itemIndex);
	return facts;
}

interface Seen {
	candidates?: Candidates;
	/** A refused-on-repeat action's effect, as the API's state shows it. */
	confirmed?: IDataObject;
}

/** What the API shows now (a Retry: the attempt it reads is the retried run's, already over). */
async function lookOnce(write: PaidWrite): Promise<Seen> {
	const { lostAnswer } = write;
	if (lostAnswer.readFrom === 'state' || lostAnswer.readFrom === 'listing') return { candidates: await lostAnswer.candidates() };
	return {};
}

/**
 * Waits, until `until`, for the other execution's send to show in the API: something not in this execution's own
 * baseline (state, listing), or the state a refused repeat would confirm; where the API shows nothing of it, the
 * whole while.
 */
async function waitForEffect(write: PaidWrite, baseline: string[] | undefined, until: number): Promise<Seen> {
	const { lostAnswer } = write;
	if (lostAnswer.readFrom === 'nothing') {
		await sleep(Math.max(0, until - Date.now()));
		return {};
	}
	for (let pause = READ_BACK_AFTER_MS; ; pause = Math.min(pause * 2, 2_000)) {
		const seen: Seen =
			lostAnswer.readFrom === 'refusal' ? { confirmed: await lostAnswer.confirm() } : { candidates: await lostAnswer.candidates() };
		const shows = seen.confirmed !== undefined || (seen.candidates?.ids.some((id) => !(baseline ?? []).includes(id)) ?? false);
		if (shows) {
			await sleep(FACTS_AFTER_EFFECT_MS);
			return lostAnswer.readFrom === 'refusal' ? seen : { candidates: await lostAnswer.candidates() };
		}
		if (Date.now() + pause > until) return seen;
		await sleep(pause);
	}
}

/**
 * The retried run sent the attempt and its answer was lost: settled from the API's state and the baseline the
 * attempt kept in n8n's store, by the one execution that claims it (a second reading would find the first one's
 * questions recorded). Its conclusion is recorded for the other readers.
 */
async function settleRetriedRun(item: ItemContext, write: PaidWrite, attempt: number): Promise<AfterTaken> {
	const { ctx, itemIndex, key, markers, records } = item;
	const { lostAnswer } = write;
	// Sent again: a refusal after this earlier send reads the state (the API keeps the effect).
	if (lostAnswer.readFrom === 'refusal') return { next: true, refusalMeansDone: true };
	if (lostAnswer.readFrom === 'nothing') throw mayHaveBeenApplied(ctx, itemIndex, undefined, false);
	const settling = await markers.claimSettle(key, attempt);
	if (settling === 'failed') throw storeDidNotAnswer(ctx, itemIndex);
	if (settling === 'taken') throw mayHaveBeenApplied(ctx, itemIndex, undefined, false);
	const settled = await lostAnswer.settle({ has: markers.baselineOf(key, attempt), claimed: records.claimedIds() });
	if (settled !== undefined && 'applied' in settled) {
		records.set(key, { state: 'applied', at: Date.now(), result: settled.applied });
		await markers.recordApplied(key, attempt, idsOf(settled.applied));
		return { done: alreadyAppliedOutput(settled.applied, undefined) };
	}
	if (settled === undefined) throw mayHaveBeenApplied(ctx, itemIndex, undefined, false);
	await markers.recordReleased(key, attempt);
	return { next: true, refusalMeansDone: false };
}
