import type { IDataObject } from 'n8n-workflow';

// The write-once protocol's declarations (what each paid write tells it) and the small unions its steps return.

/** An item's output: one object, or several (Order > Create makes one order per target language). */
export type WriteResult = IDataObject | IDataObject[];

/** What the API's state says of a send whose answer was lost: applied (the item's output), not applied, or unknown. */
export type Settled = { applied: WriteResult } | { notApplied: true } | undefined;

/** The baseline read before an earlier send, as far as it was kept. */
export interface Baseline {
	/** Whether the baseline held this token; undefined when it was not kept. */
	has(token: string): Promise<boolean | undefined>;
	/** Ids this node's other records made: never taken for this item's. */
	claimed: Set<string>;
}

/** How a lost answer is read back from the API, declared by each paid write. */
export type LostAnswer =
	/**
	 * A state or a listing read before sending (its tokens) and again after: the difference is this item's, where
	 * nothing else could have made it. `candidates` lists what may now be this item's effect (ids), `output` makes
	 * the item's json of those found to be its own.
	 */
	| {
			readFrom: 'state' | 'listing';
			baseline(): Promise<string[]>;
			settle(baseline: Baseline): Promise<Settled>;
			candidates(): Promise<Candidates>;
	  }
	/** The API refuses a repeat (statuses): sent again, such a refusal after an earlier send reads the state. */
	| { readFrom: 'refusal'; statuses: number[]; confirm(): Promise<IDataObject | undefined> }
	/** The API shows nothing of it: a lost answer stops the item with a way forward. */
	| { readFrom: 'nothing' };

/** Records that may now be a write's effect, by id, and the item's output made of those that are its own. */
export interface Candidates {
	ids: string[];
	output(own: string[]): WriteResult | Promise<WriteResult>;
}

export interface PaidWrite {
	/** The request as sent (method, path, body or fields): the default key is made of it. */
	request: unknown;
	/** Sends it; returns the item's output json. */
	send(): Promise<WriteResult>;
	lostAnswer: LostAnswer;
	/** What the output says of an item known applied only from n8n's store (e.g. { orderId }). */
	identity?: IDataObject;
}

/**
 * 'sent': reserved and sent, the answer not known (it may have been applied). 'applied': the API answered success.
 * 'released': the API refused the attempt (nothing done): the next one may be sent.
 */
export interface WriteRecord {
	state: 'applied' | 'sent' | 'released';
	/** Epoch milliseconds of the send. */
	at: number;
	/** The execution that sent it. */
	execution?: string;
	/** What the API answered (ids, credits): returned again for a repeat. */
	result?: WriteResult;
	/** Tokens of the state read before sending (a listing's ids, the latest evaluation's id). */
	baseline?: string[];
	/** Which send of the item this is (0 first; one more after each send settled as not applied). */
	attempt?: number;
	/** An execution of this process is sending it now. */
	sending?: true;
}
