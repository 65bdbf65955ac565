// The read-back wait of a claim (nodes/shared/readBack.ts) in jest runs (jest.config.cjs maps the module here):
// the harness's store answers within milliseconds (InMemoryDeduplicator, 10 ms between read and write when it races
// like n8n's database), so three times that keeps the claim's guarantee, and the suites do not wait 250 ms a claim.
// Real n8n (the end-to-end suites, the bench) keeps the shipped 250 ms.
export const READ_BACK_AFTER_MS = 30;
