import type { IncomingMessage } from 'node:http';
import { shapeB } from './errors.cts';

const JSON_BODY_LIMIT_BYTES = 10 * 1024 * 1024;
/** How much of a refused body is still read, so that its answer reaches the client (see consumeBody). */
const DRAIN_LIMIT_BYTES = 8 * 1024 * 1024;

/**
 * Feeds the request body to `onChunk`. When `onChunk` throws (a limit passed), the rest of the body is read and
 * discarded before the error is answered: a response sent while the client is still uploading makes node close the
 * connection under the upload, and the client may then see a reset instead of the answer (a race that failed CI for
 * a file one byte over its limit). A body that goes on for more than DRAIN_LIMIT_BYTES after the refusal is answered
 * at once, while the client is still sending, as a service does not read a huge upload it has refused.
 * (Leaving a `for await` loop early would destroy the request and its socket instead.)
 */
export function consumeBody(req: IncomingMessage, onChunk: (chunk: Buffer) => void): Promise<void> {
	return new Promise((resolve, reject) => {
		let settled = false;
		const finish = (error?: unknown) => {
			if (settled) return;
			settled = true;
			req.off('data', onData);
			req.off('end', onEnd);
			req.off('error', onError);
			req.off('close', onClose);
			// Whatever is left of the body is discarded unread.
			req.resume();
			if (error) reject(error);
			else resolve();
		};
		let refusal: unknown;
		let drained = 0;
		const onData = (chunk: Buffer) => {
			if (refusal !== undefined) {
				drained += chunk.length;
				if (drained > DRAIN_LIMIT_BYTES) finish(refusal);
				return;
			}
			try {
				onChunk(chunk);
			} catch (error) {
				refusal = error;
			}
		};
		const onEnd = () => finish(refusal);
		const onError = (error: Error) => finish(error);
		const onClose = () => finish(refusal ?? new Error('the client closed the connection before the body was complete'));
		req.on('data', onData);
		req.on('end', onEnd);
		req.on('error', onError);
		req.on('close', onClose);
	});
}

/** Reads a JSON body. An empty body reads as {} so that missing fields are reported one by one. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
	const chunks: Buffer[] = [];
	let total = 0;
	await consumeBody(req, (chunk) => {
		total += chunk.length;
		if (total > JSON_BODY_LIMIT_BYTES) throw shapeB(413, 'request entity too large', 'Payload Too Large');
		chunks.push(chunk);
	});
	const text = Buffer.concat(chunks).toString('utf8').trim();
	if (text === '') return {};
	try {
		return JSON.parse(text) as unknown;
	} catch (error) {
		throw shapeB(400, `Unexpected token in JSON body: ${(error as Error).message}`, 'Bad Request');
	}
}
