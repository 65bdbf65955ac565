import { ApplicationError } from 'n8n-workflow';

import type { AppliedState } from './errors';
import { appliedStateOf } from './errors';
import type { OllangContext } from './request';

// What an operation declared its requests do, checked here, where every request passes: a 'read' sends GETs (or a
// POST that only reads, declared safe to repeat: retry 'safe');
// a 'paidWrite' sends its POST, PUT, PATCH or DELETE only from the write-once protocol's send step
// (actions/common/writeOnce), so a paid write cannot reach the API outside it; a 'write' (safe to repeat) sends
// what it needs. Contexts the router did not declare (triggers, list searches) only read.

export type DeclaredKind = 'read' | 'write' | 'paidWrite';

interface Declaration {
	operation: string;
	kind: DeclaredKind;
	/** Inside the write-once protocol's send step. */
	sending: boolean;
	/** Requests the send step has let through. */
	sent: number;
}

const declarations = new WeakMap<object, Declaration>();

/** The router: the operation this context runs and its kind. */
export function declareOperation(ctx: OllangContext, operation: string, kind: DeclaredKind): void {
	declarations.set(ctx, { operation, kind, sending: false, sent: 0 });
}

/** How a paid write's send ended: its answer, or its error and what the service may have done (typed, never read from words). */
export type PaidSend<T> = { answered: T } | { failed: unknown; applied: AppliedState };

/**
 * The write-once protocol's send step: a paid write's requests are allowed while `send` runs. A failure says what
 * the service may have done: the transport's typed state; no request sent at all (a check before it): not applied;
 * anything else: it may have been applied.
 */
export async function sendPaid<T>(ctx: OllangContext, send: () => Promise<T>): Promise<PaidSend<T>> {
	const declaration = declarations.get(ctx);
	const sentBefore = declaration?.sent ?? 0;
	if (declaration !== undefined) declaration.sending = true;
	try {
		return { answered: await send() };
	} catch (failed) {
		const requests = declaration === undefined ? undefined : declaration.sent - sentBefore;
		// A refusal of the second request says nothing of the first, which was answered.
		const typed = requests !== undefined && requests > 1 ? 'mayHaveApplied' : appliedStateOf(failed);
		return { failed, applied: typed ?? (requests === 0 ? 'notApplied' : 'mayHaveApplied') };
	} finally {
		if (declaration !== undefined) declaration.sending = false;
	}
}

/** Throws before a request its operation did not declare. */
export function checkDeclared(ctx: OllangContext, method: string, retry?: 'safe' | 'once'): void {
	if (method === 'GET' || method === 'HEAD') return;
	const declaration = declarations.get(ctx);
	if (declaration === undefined || declaration.kind === 'write') return;
	if (declaration.kind === 'read' && retry === 'safe') return;
	if (declaration.kind === 'paidWrite' && declaration.sending) {
		declaration.sent++;
		return;
	}
	throw new ApplicationError(
		declaration.kind === 'read'
			? `${declaration.operation} is declared a read, but sends ${method}: declare it a paid write or a write safe to repeat`
			: `${declaration.operation} is a paid write: its ${method} must go through the write-once protocol (writeOnce)`,
	);
}
