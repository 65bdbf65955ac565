/**
 * How long a claim's read-back waits (nodes/shared/claim.ts): longer than one store call of another process takes,
 * on a loaded machine (a worker's copy of the row was seen landing a few hundred milliseconds after it was read).
 * Every claim and lasting fact waits this long once: it delays a paid item, and the workflow after the callback
 * trigger, by about this much. Its own module, so that a test whose store answers in milliseconds can shorten it.
 */
export const READ_BACK_AFTER_MS = 250;
