import type { IncomingMessage } from 'node:http';
import { shapeA, shapeC } from './http/errors.cts';
import type { FolderAccess, UserRecord } from './types.cts';

/**
 * X-Api-Key authentication. The 401 body depends on the endpoint (spec: "shape A or C depending on endpoint"):
 *   'A' { error: 'Unauthorized', message, code: 'UNAUTHORIZED' } on order endpoints, consumption and credits;
 *   'C' { error: 'UNAUTHORIZED', message } everywhere else.
 */
export type AuthShape = 'A' | 'C';

const UNAUTHORIZED_MESSAGE = 'Invalid or missing API key';

export function authenticate(req: IncomingMessage, users: ReadonlyMap<string, UserRecord>, shape: AuthShape): UserRecord {
	const header = req.headers['x-api-key'];
	const key = Array.isArray(header) ? header[0] : header;
	const user = key ? users.get(key) : undefined;
	if (user) return user;
	throw shape === 'A' ? shapeA(401, 'UNAUTHORIZED', UNAUTHORIZED_MESSAGE) : shapeC(401, 'UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
}

export function folderAccess(user: UserRecord, folderId: string): FolderAccess {
	return user.folderRestrictions.get(folderId) ?? 'write';
}

export function canRead(user: UserRecord, folderId: string): boolean {
	return folderAccess(user, folderId) !== 'none';
}

export function canWrite(user: UserRecord, folderId: string): boolean {
	return folderAccess(user, folderId) === 'write';
}

/** Consumption and the credit wallet need one of these roles. */
export function hasBillingRole(user: UserRecord): boolean {
	return user.roles.includes('client_owner') || user.roles.includes('client_accessBillings');
}
