// File answers streamed into n8n's binary store, named from the answer, scanned for an echoed key.
import type { IBinaryData, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { BINARY_ENCODING, NodeOperationError, sleep } from 'n8n-workflow';

import type { BodyStream } from './exchange';
import { connectionError, exchange, jsonPayload, readStream, toBuffer } from './exchange';
import { unexpectedResponse } from './jsonRequest';
import { redactBody, redactor } from './redaction';
import type { OllangRequest } from './request';
import { RETRY_POLICY } from './request';
import { backoffDelay, classifyFailure, failureRetryable } from './retries';
import { targetFor } from './target';

/** File name from a Content-Disposition header (filename*=UTF-8'' preferred over filename=). */
export function fileNameFromContentDisposition(header: string | undefined): string | undefined {
	if (!header) return undefined;
	const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
	if (extended) {
		try {
			return decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ''));
		} catch {
			// A malformed percent-encoding: fall back to the plain filename parameter below.
		}
	}
	const plain = /filename\s*=\s*("([^"]*)"|[^;]+)/i.exec(header);
	if (!plain) return undefined;
	const name = (plain[2] ?? plain[1]).trim();
	return name === '' ? undefined : name;
}

/** What a file answer says about itself (Content-Disposition, Content-Type), for the caller to complete. */
export interface FileAnswer {
	fileName?: string;
	mimeType?: string;
}

/** A downloaded file in n8n's binary data store, with the name and type it was stored under and its size. */
export interface StoredDownload {
	binary: IBinaryData;
	fileName: string;
	mimeType: string;
	fileSize: number;
}

const SCAN_CHUNK_BYTES = 64 * 1024;

/**
 * The size of a stored file in bytes. n8n 2.x gives it as `bytes`; n8n 1.x does not for a stream, so it is read from
 * the store's metadata, or from the base64 length of a file kept in memory: never by reading the file again.
 */
export async function storedSize(ctx: IExecuteFunctions | IWebhookFunctions, binary: IBinaryData): Promise<number> {
	if (typeof binary.bytes === 'number') return binary.bytes;
	if (binary.id !== undefined) return (await ctx.helpers.getBinaryMetadata(binary.id)).fileSize;
	const padding = binary.data.endsWith('==') ? 2 : binary.data.endsWith('=') ? 1 : 0;
	return (binary.data.length * 3) / 4 - padding;
}

/** The bytes of a stored file; only for the rare file that must be rewritten. */
async function storedBytes(ctx: IExecuteFunctions, binary: IBinaryData): Promise<Buffer> {
	if (binary.id === undefined) return Buffer.from(binary.data, BINARY_ENCODING);
	return await ctx.helpers.binaryToBuffer(await ctx.helpers.getBinaryStream(binary.id));
}

/**
 * Whether a stored file holds the text, read a chunk at a time. Each chunk is searched where it lies; only the
 * few bytes around a chunk boundary (where a match may straddle two chunks) are copied, so the scan adds no
 * copy of the file to the peak memory of a large export.
 */
async function storedFileIncludes(ctx: IExecuteFunctions, binary: IBinaryData, text: string): Promise<boolean> {
	const needle = Buffer.from(text, 'utf8');
	if (binary.id === undefined) return Buffer.from(binary.data, BINARY_ENCODING).includes(needle);
	const overlap = needle.length - 1;
	let tail = Buffer.alloc(0);
	for await (const raw of await ctx.helpers.getBinaryStream(binary.id, SCAN_CHUNK_BYTES)) {
		const chunk = toBuffer(raw);
		if (chunk.includes(needle)) return true;
		if (Buffer.concat([tail, chunk.subarray(0, overlap)]).includes(needle)) return true;
		tail =
			chunk.length >= overlap
				? Buffer.from(chunk.subarray(chunk.length - overlap))
				: Buffer.concat([tail, chunk]).subarray(-overlap);
	}
	return false;
}

/** Whether a file type is readable text (where an echoed key would be plain bytes). */
function isTextLike(mimeType: string): boolean {
	return /^text\/|[/+](json|xml|csv)$|^application\/(x-)?(subrip|vtt)/i.test(mimeType);
}

/**
 * Downloads a file answer (e.g. an XLSX export) straight into n8n's binary data store: the body streams to the
 * store and is never held whole in memory. Status and headers are checked first; an error answer is read and
 * shaped as for any request. A connection lost while the body streams is retried like any other for a safe
 * request. `name` gives the stored file its name and type from what the answer says.
 */
export async function apiDownloadBinary(
	this: IExecuteFunctions,
	request: OllangRequest,
	name: (answer: FileAnswer) => { fileName: string; mimeType: string },
): Promise<StoredDownload> {
	const target = await targetFor.call(this, request.itemIndex);
	const redact = redactor(target.apiKey);
	for (let attempt = 1; ; attempt++) {
		// A JSON body when the request has one (the folder export is a POST).
		const response = await exchange.call(this, request, '*/*', jsonPayload(request), true);
		const stream = response.stream as BodyStream;
		const answer: FileAnswer = {
			fileName: fileNameFromContentDisposition(response.headers['content-disposition']),
			mimeType: response.headers['content-type']?.split(';')[0].trim() || undefined,
		};
		if (answer.mimeType === 'application/json') {
			const text = redact((await readStream(stream)).toString('utf8'));
			throw unexpectedResponse.call(this, request, 'a file', text);
		}
		const { fileName, mimeType } = name(answer);
		let binary: IBinaryData;
		try {
			binary = await this.helpers.prepareBinaryData(stream, fileName, mimeType);
		} catch (error) {
			const failure = classifyFailure(error);
			// Not the connection (the store could not write, say): that error, tied to the item.
			if (failure.kind === 'other') {
				throw new NodeOperationError(this.getNode(), error as Error, {
					itemIndex: request.itemIndex,
				});
			}
			const retriesLeft = attempt <= RETRY_POLICY.maxRetries;
			if (failure.kind !== 'cancelled' && failureRetryable(failure, request.retry) && retriesLeft) {
				await sleep(backoffDelay(attempt));
				continue;
			}
			throw connectionError.call(this, failure, request, request.method, target.origin, attempt, redact);
		}
		const fileSize = await storedSize(this, binary);
		if (fileSize === 0) throw unexpectedResponse.call(this, request, 'a file, got an empty answer', undefined);
		// As for every answer, the key does not pass on (a careless service may echo it): a text file holding it is
		// stored again without it. Checked in the store, a chunk at a time, so the file is not held whole. Compressed
		// formats (an XLSX is a zip) are not searched: an echoed key inside them is not readable bytes, so a byte
		// scan would find nothing and only cost a second pass over the file.
		if (target.apiKey.length >= 4 && isTextLike(mimeType) && (await storedFileIncludes(this, binary, target.apiKey))) {
			const cleaned = redactBody(await storedBytes(this, binary), target.apiKey, redact);
			binary = await this.helpers.prepareBinaryData(cleaned, fileName, mimeType);
			return { binary, fileName, mimeType, fileSize: cleaned.length };
		}
		return { binary, fileName, mimeType, fileSize };
	}
}
