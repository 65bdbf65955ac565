// The transport: the one place that talks HTTP to the Ollang API. Its modules, one concern each:
// - request.ts: The shape of a request to the Ollang API and the policies every request follows (retries, timeout, answer size).
// - paths.ts: Path ids: each interpolated id is checked and URL-encoded, so an id can never leave its path segment.
// - target.ts: Base URL and credential: the https-or-loopback rule, resolved once per execution and item (each resolution decrypts).
// - redaction.ts: Keeps the API key out of anything shown: error texts, echoed answers, stored files.
// - retries.ts: Which failures and statuses are retried for a request's retry policy, and how long to wait before the next try.
// - exchange.ts: One HTTP exchange with the API through n8n's helper: redirects, retries with backoff, failure classification, redaction.
// - jsonRequest.ts: JSON requests (and multipart uploads) returning the parsed answer, with its status and headers when asked.
// - download.ts: File answers streamed into n8n's binary store, named from the answer, scanned for an echoed key.
// - storage.ts: Files behind an order's signed links, streamed from the storage host without the API key (the one request without it).
// - concurrency.ts: Bounded concurrency that keeps input order and can stop starting tasks after a failure.
// - paging.ts: Paging over { data, meta } answers in either query style (nested pageOptions[page] or flat page, take <= 50): page 1, then the rest in parallel.
// - pageSnapshot.ts: One consistent listing from pages read at different moments: the time pin, which pages to read again.
// - declared.ts: What each operation declared its requests do (read, write, paid write), checked before each request.
// - errors.ts: API errors in the API's own words; multipart.ts: multipart/form-data bodies.
export type { ErrorHints, FailureKind } from './errors';
export { failureKind } from './errors';
export type { MultipartPart } from './multipart';
export { filePart, textPart } from './multipart';
export type { OllangContext, OllangRequest } from './request';
export { CREDENTIAL_TYPE, RETRY_POLICY, DEFAULT_TIMEOUT_MS, MAX_JSON_ANSWER_BYTES } from './request';
export { pathIdProblem, apiPath } from './paths';
export { baseUrlProblem } from './target';
export { parseRetryAfter, backoffDelay } from './retries';
export type { ApiResponse } from './jsonRequest';
export { unexpectedResponse, apiRequestWithResponse, apiRequest, megabytes, apiUploadMultipart } from './jsonRequest';
export type { FileAnswer, StoredDownload } from './download';
export { fileNameFromContentDisposition, apiDownloadBinary } from './download';
export type { FileContext, SignedDownload, SignedFile } from './storage';
export { downloadSignedFile, linkWithoutQuery } from './storage';
export type { Settled } from './concurrency';
export { settleConcurrent, mapConcurrent } from './concurrency';
export type { PagingOptions, PagingStyle } from './paging';
export { MAX_PAGE_SIZE, DEFAULT_PAGE_CONCURRENCY, MAX_PAGE_CONCURRENCY, apiRequestAllPages, pagingKey } from './paging';
export { parseHttpDate } from './pageSnapshot';
export type { DeclaredKind } from './declared';
export { declareOperation, sendPaid } from './declared';
export type { PaidSend } from './declared';
