// How long the nodes wait for other n8n processes and before sending a request again. Their own module, so that a
// test whose store and API answer in milliseconds can shorten them (jest.config.cjs maps this module to
// test/harness/waits.cts).

/**
 * The pace at which an execution that found an attempt taken by another execution looks again at what that attempt
 * left (nodes/Ollang/actions/common/writeOnce/takenAttempt.ts). Only such an execution waits: a claim itself waits
 * on nothing but the database (nodes/shared/claim.ts).
 */
export const READ_BACK_AFTER_MS = 250;

/**
 * How long a paid item waits, in all, for another execution's send of the same item to end (its answer is then
 * this item's): a paid request's own time at the API, with room.
 */
export const OTHER_SEND_WAIT_MS = 15_000;

/**
 * The first retry's backoff ceiling (nodes/Ollang/transport/request.ts RETRY_POLICY): each retry doubles it, with
 * jitter. Long enough for the API to recover from a brief overload.
 */
export const RETRY_BACKOFF_BASE_MS = 500;

/**
 * How long the callback trigger's sweep waits for n8n to end the execution of what it handed over before sweeping
 * on (nodes/OllangCallbackTrigger/sweep.ts); what has not ended by then is handed over again by a later sweep.
 */
export const SWEEP_HANDOVER_WAIT_MS = 60_000;

/**
 * How long a process waits for another process's exclusive section (nodes/shared/exclusive.ts) before taking the
 * section from it as dead: far longer than any section takes (milliseconds: two store calls).
 */
export const EXCLUSIVE_LEASE_MS = 60_000;
