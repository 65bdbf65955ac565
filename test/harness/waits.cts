// The waits for other processes (nodes/shared/waits.ts) in jest runs (jest.config.cjs maps the module here): the
// harness's store answers within milliseconds (InMemoryDeduplicator), so an execution that found an attempt taken
// looks again every 30 ms, and the in-process sandbox answers a paid request in
// about a millisecond, so a retry needs no backoff for it to recover (the fault tests retry thousands of times).
// Real n8n (the end-to-end suites, the bench) keeps the shipped waits.
export const READ_BACK_AFTER_MS = 30;
export const OTHER_SEND_WAIT_MS = 1_800;
export const RETRY_BACKOFF_BASE_MS = 20;
export const SWEEP_HANDOVER_WAIT_MS = 150;
// The exclusive section's lease: jest's own processes keep the shipped minute (a fault test that kills a holder
// passes its own, shorter lease to its child processes).
export const EXCLUSIVE_LEASE_MS = 60_000;
