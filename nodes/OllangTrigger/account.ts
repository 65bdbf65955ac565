import { createHash } from 'crypto';
import type { IPollFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../Ollang/transport';

/**
 * Which account the trigger's cursors belong to. The API has no route that names the account, so the credential's
 * base URL and key stand for it. Only a one-way digest is kept: SHA-256, salted with the node's id (so the same
 * key gives unrelated values in different triggers; the id stays when the workflow is exported and imported again)
 * and cut to 128 bits. An API key is long and random,
 * so the digest cannot be turned back into it; it is never logged. A new key of the same account also counts as
 * another account (nothing tells them apart).
 */
export async function accountDigest(this: IPollFunctions): Promise<string> {
	const credentials = await this.getCredentials<{ baseUrl?: string; apiKey?: string }>(CREDENTIAL_TYPE);
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const salt = this.getNode().id;
	return createHash('sha256')
		.update(`${salt}\n${baseUrl}\n${String(credentials.apiKey ?? '')}`)
		.digest('hex')
		.slice(0, 32);
}
