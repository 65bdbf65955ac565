import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { OTHER_SEND_WAIT_MS, READ_BACK_AFTER_MS } from '../../../../shared/waits';

import type { StoreMarkers } from './markers';
import type { ProcessRecords } from './records';
import { idsOf } from './records';
import { alreadyAppliedOutput, mayHaveBeenApplied, sentElsewhere, storeDidNotAnswer } from './stops';
import type { PaidWrite, WriteResult } from './types';

// Decides what an execution does with an attempt another execution claimed: it sends nothing for it, and learns
// how it ended from what the sender recorded in n8n's store:
// - applied: the item is done; its answer is read back from the API (the ids the sender named) with alreadyApplied;
// - released (the API refused it): the next attempt may be sent;
// - not ended yet: another execution's send is waited for (OTHER_SEND_WAIT_MS), then the item stops, saying so. In
//   n8n's Retry the attempt is the retried run's, which is over: its lost answer is settled from the API's state and
//   the baseline the attempt kept.

export interface ItemContext {
	ctx: IExecuteFunctions;
	itemIndex: number;
	key: string;
	/** The Idempotency Key given, if any. */
	keyed: boolean;
	/** n8n's Retry of a failed execution: an attempt of the retried run is over. */
	isRetry: boolean;
	records: ProcessRecords;
	markers: StoreMarkers;
}

/** What the taken attempt leaves this execution: done (the item's output), or the next attempt to send. */
export type AfterTaken = { done: WriteResult } | { next: true; refusalMeansDone: boolean };

export async function readTakenAttempt(item: ItemContext, write: PaidWrite, attempt: number): Promise<AfterTaken> {
	const { ctx, itemIndex, key, markers } = item;
	const deadline = Date.now() + OTHER_SEND_WAIT_MS;
	for (let pause = READ_BACK_AFTER_MS; ; pause = Math.min(pause * 2, 2_000)) {
		const end = await markers.readEnd(key, attempt);
		if (end === undefined) throw storeDidNotAnswer(ctx, itemIndex);
		if (end === 'applied') {
			const answer = await answerOf(item, write, attempt);
			item.records.set(key, { state: 'applied', at: Date.now(), result: answer });
			return { done: alreadyAppliedOutput(answer, undefined) };
		}
		if (end === 'released') return { next: true, refusalMeansDone: false };
		if (item.isRetry) return await settleRetriedRun(item, write, attempt);
		if (Date.now() + pause > deadline) throw sentElsewhere(ctx, itemIndex);
		await sleep(pause);
	}
}

/** The applied attempt's answer, as the API shows it now: the records its sender named, the state it confirms, or the item's identity. */
async function answerOf(item: ItemContext, write: PaidWrite, attempt: number): Promise<WriteResult> {
	const { lostAnswer } = write;
	if (lostAnswer.readFrom === 'state' || lostAnswer.readFrom === 'listing') {
		// Read after the end was recorded: the API showed the effect before its sender recorded it.
		const candidates = await lostAnswer.candidates();
		const made = await item.markers.madeAmong(item.key, attempt, candidates.ids.slice(0, 50));
		if (made === undefined) throw storeDidNotAnswer(item.ctx, item.itemIndex);
		if (made.length > 0) return await candidates.output(made);
	}
	const confirmed = lostAnswer.readFrom === 'refusal' ? await lostAnswer.confirm() : undefined;
	return confirmed ?? write.identity ?? {};
}

/**
 * The retried run sent the attempt and its answer was lost: settled from the API's state and the baseline the
 * attempt kept in n8n's store; the conclusion is recorded for the others.
 */
async function settleRetriedRun(item: ItemContext, write: PaidWrite, attempt: number): Promise<AfterTaken> {
	const { ctx, itemIndex, key, markers, records } = item;
	const { lostAnswer } = write;
	// Sent again: a refusal after this earlier send reads the state (the API keeps the effect).
	if (lostAnswer.readFrom === 'refusal') return { next: true, refusalMeansDone: true };
	if (lostAnswer.readFrom === 'nothing') throw mayHaveBeenApplied(ctx, itemIndex, undefined, false);
	const settled = await lostAnswer.settle({ has: markers.baselineOf(key, attempt), claimed: records.claimedIds() });
	if (settled === undefined) throw mayHaveBeenApplied(ctx, itemIndex, undefined, false);
	if ('applied' in settled) {
		records.set(key, { state: 'applied', at: Date.now(), result: settled.applied });
		await markers.recordEnd(key, attempt, { applied: idsOf(settled.applied) });
		return { done: alreadyAppliedOutput(settled.applied, undefined) };
	}
	await markers.recordEnd(key, attempt, 'released');
	return { next: true, refusalMeansDone: false };
}
