import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { pathIdProblem } from '../Ollang/transport';

/** What a callback says happened (its body is only a claim until the API confirms it). */
export type Callback =
	| { event: 'orderCompleted'; orderId: string; completedAt: string }
	| { event: 'qcEvaluationCompleted'; orderId: string; evalId: string };

/** A request turned away before the API is asked: the HTTP status to answer and why (for n8n's log). */
export interface Refusal {
	status: number;
	reason: string;
}

/** Far above either callback (an order with its documents is a few kB), far below n8n's own payload limit. */
export const MAX_CALLBACK_BYTES = 256 * 1024;

/** Equal texts, compared in time that does not depend on where they differ. */
function sameText(given: string, expected: string): boolean {
	const length = Math.max(given.length, expected.length);
	let difference = given.length ^ expected.length;
	for (let index = 0; index < length; index++) {
		difference |= (given.charCodeAt(index) || 0) ^ (expected.charCodeAt(index) || 0);
	}
	return difference === 0;
}

function text(body: IDataObject, field: string): string | undefined {
	const value = body[field];
	return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** The reference's shapes: order completion { orderId, status, completedAt, ... }, QC { orderId, evalId, status, ... }. */
function readBody(body: unknown): Callback | string {
	if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body is not a JSON object';
	const record = body as IDataObject;
	const orderId = text(record, 'orderId');
	if (orderId === undefined) return 'orderId is missing';
	const idProblem = pathIdProblem(orderId);
	if (idProblem !== undefined) return `orderId ${idProblem}`;
	if (record.status !== 'completed') return 'status is not "completed"';
	const evalId = text(record, 'evalId');
	if (evalId !== undefined) return { event: 'qcEvaluationCompleted', orderId, evalId };
	const completedAt = text(record, 'completedAt');
	if (completedAt === undefined || Number.isNaN(Date.parse(completedAt))) return 'completedAt is missing or not a date';
	return { event: 'orderCompleted', orderId, completedAt };
}

/**
 * Reads a request as a callback, or says why it is not one. The secret token is checked first, so a caller
 * without it learns nothing else; nothing here calls the API.
 */
export function readCallback(this: IWebhookFunctions, secretToken: string): Callback | Refusal {
	const request = this.getRequestObject();
	if (secretToken !== '') {
		const token = (this.getQueryData() as IDataObject).token;
		if (typeof token !== 'string' || !sameText(token, secretToken)) return { status: 401, reason: 'the secret token is missing or wrong' };
	}
	if (request.method !== 'POST') return { status: 405, reason: `method ${request.method} (callbacks are POST)` };
	const headers = this.getHeaderData();
	const contentType = String(headers['content-type'] ?? '');
	if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType)) {
		return { status: 415, reason: `content type "${contentType}" (callbacks are application/json)` };
	}
	const rawBody = (request as { rawBody?: Buffer }).rawBody;
	const size = Math.max(Number(headers['content-length'] ?? 0) || 0, rawBody?.length ?? 0);
	if (size > MAX_CALLBACK_BYTES) return { status: 413, reason: `a body of ${size} bytes (at most ${MAX_CALLBACK_BYTES})` };
	const callback = readBody(this.getBodyData());
	return typeof callback === 'string' ? { status: 400, reason: `not a callback of the reference's shape: ${callback}` } : callback;
}

export function isRefusal(value: Callback | Refusal): value is Refusal {
	return 'status' in value;
}

/**
 * What the callback claims, as this process remembers it: the order and the instant its body names (any writing of
 * the same instant is the same claim), or the evaluation. Only a memory of answers given: the completion emitted
 * is the one the API shows (confirm.ts), never this.
 */
export function claimKey(callback: Callback): string {
	return callback.event === 'orderCompleted'
		? `order:${callback.orderId}@${new Date(Date.parse(callback.completedAt)).toISOString()}`
		: `qc:${callback.evalId}`;
}
