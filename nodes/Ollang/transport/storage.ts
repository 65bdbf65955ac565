// Files behind the signed links an order lists, streamed from the storage host into n8n's binary store, without the API key.
import type { IBinaryData, IExecuteFunctions, IHttpRequestOptions, IWebhookFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { storedSize } from './download';
import type { BodyStream } from './exchange';
import { readStream, snippet } from './exchange';
import { RETRY_POLICY } from './request';
import { backoffDelay, classifyFailure } from './retries';
import { baseUrlProblem } from './target';

/** Where a file is stored from: an operation, or a waiting node's webhook (Order > Create and Wait). */
export type FileContext = IExecuteFunctions | IWebhookFunctions;

/** A file behind a signed link, and the name and type to store it under. */
export interface SignedFile {
	url: string;
	fileName: string;
	/** The type to store it under; undefined: what the storage host says it is. */
	mimeType?: string;
	itemIndex: number;
}

/** A downloaded file, or the storage host's refusal of the link (403 or 400: expired or no longer valid). */
export type SignedDownload =
	| { stored: true; binary: IBinaryData; mimeType: string; fileSize: number }
	| { stored: false; status: number; reason: string };

const STORAGE_TIMEOUT_MS = 300_000;

/** The link without its query: the signature in it is a credential of its own, so it is never shown. */
export function linkWithoutQuery(url: string): string {
	try {
		const parsed = new URL(url);
		return `${parsed.origin}${parsed.pathname}`;
	} catch {
		return '(not a URL)';
	}
}

/** Why a signed link is not fetched: https, or plain http on loopback only (the sandbox), as for the API. */
export function signedLinkProblem(url: string): string | undefined {
	return baseUrlProblem(url)?.replace(/ which would send the API key unencrypted/, ' which would send the file unencrypted');
}

/** What an S3 or GCS error answer says (its XML Message, or a JSON message), as one line. */
function storageReason(body: Buffer): string {
	const text = body.toString('utf8');
	const xml = /<Message>([^<]*)<\/Message>/i.exec(text);
	if (xml) return xml[1].trim();
	return snippet(text);
}

function storageError(ctx: FileContext, file: SignedFile, message: string, description: string, status?: number) {
	return new NodeApiError(
		ctx.getNode(),
		{},
		{ message, description, itemIndex: file.itemIndex, ...(status === undefined ? {} : { httpCode: String(status) }) },
	);
}

/**
 * Downloads a file from the storage host a signed link points at, straight into n8n's binary store: the body is a
 * stream handed to prepareBinaryData, never held whole. 429 and 5xx answers and a connection lost before or while
 * the body streams are retried (a GET of a stored file is safe to repeat). A 403 or 400 (an expired or revoked
 * link) is returned, not thrown: the caller reads the order again for fresh links.
 */
export async function downloadSignedFile(this: FileContext, file: SignedFile): Promise<SignedDownload> {
	const problem = signedLinkProblem(file.url);
	const shown = linkWithoutQuery(file.url);
	if (problem !== undefined) {
		throw new NodeOperationError(this.getNode(), `The order lists a file link that is not fetched: ${problem}`, {
			itemIndex: file.itemIndex,
			description: `The link of ${file.fileName} points at ${shown}.`,
		});
	}
	for (let attempt = 1; ; attempt++) {
		const retriesLeft = attempt <= RETRY_POLICY.maxRetries;
		const options: IHttpRequestOptions = {
			method: 'GET',
			url: file.url,
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: STORAGE_TIMEOUT_MS,
			json: false,
		};
		let response: { statusCode: number; headers: Record<string, string | string[] | undefined>; body: BodyStream } | undefined;
		let thrown: unknown;
		try {
			// The one request that must not carry the credential: a signed link goes to the storage host, another
			// host than the API, and authorizes itself. So n8n's plain helper (SSRF protection and proxy settings
			// still apply), never httpRequestWithAuthentication: the API key never leaves for a third party.
			response = await this.helpers.httpRequest(options);
		} catch (error) {
			thrown = error;
		}
		if (response && response.statusCode >= 200 && response.statusCode < 300) {
			const given = String(response.headers['content-type'] ?? '').split(';')[0].trim();
			const mimeType = file.mimeType ?? (given !== '' ? given : 'application/octet-stream');
			try {
				const binary = await this.helpers.prepareBinaryData(response.body, file.fileName, mimeType);
				return { stored: true, binary, mimeType, fileSize: await storedSize(this, binary) };
			} catch (error) {
				thrown = error;
			}
		} else if (response) {
			const status = response.statusCode;
			const reason = storageReason(await readStream(response.body));
			if (status === 403 || status === 400) return { stored: false, status, reason };
			if ((status === 429 || status >= 500) && retriesLeft) {
				await sleep(backoffDelay(attempt));
				continue;
			}
			throw storageError(
				this,
				file,
				`The storage host answered ${status} for ${file.fileName}${reason ? `: ${reason}` : ''}`,
				status === 404
					? 'The file is no longer where the order says. Read the order again (Order > Get) to see its current documents.'
					: `GET ${shown} failed${attempt > 1 ? ` after ${attempt} attempts` : ''}.`,
				status,
			);
		}
		const failure = classifyFailure(thrown);
		if (failure.kind === 'other') {
			// Not the connection (n8n's binary store could not write the file, say): that error, tied to the item.
			throw new NodeOperationError(this.getNode(), thrown as Error, { itemIndex: file.itemIndex });
		}
		const transient = failure.kind === 'refused' || failure.kind === 'timeout' || failure.kind === 'dropped';
		if (transient && retriesLeft) {
			await sleep(backoffDelay(attempt));
			continue;
		}
		throw storageError(
			this,
			file,
			`Could not download ${file.fileName} from ${new URL(file.url).origin}: ${failure.text.split(file.url).join(shown).replace(/\.$/, '')}`,
			failure.kind === 'blocked'
				? "n8n's SSRF protection blocked the storage host. To allow it, your n8n administrator adds it to N8N_SSRF_ALLOWED_HOSTNAMES (or its addresses to N8N_SSRF_ALLOWED_IP_RANGES)."
				: `GET ${shown} failed${attempt > 1 ? ` after ${attempt} attempts` : ''}.`,
		);
	}
}
