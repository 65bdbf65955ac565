// Base URL and credential: the https-or-loopback rule, resolved once per execution and item (each resolution decrypts).
import type { ICredentialsDecrypted, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { OllangContext } from './request';
import { CREDENTIAL_TYPE } from './request';

// Base URL and credentials

interface OllangCredentials {
	apiKey: string;
	baseUrl: string;
}

function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase();
	return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Why a base URL is refused, or undefined when it is usable: https, or http on loopback only. */
export function baseUrlProblem(raw: string): string | undefined {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return `"${raw}" is not a valid URL`;
	}
	if (url.protocol === 'https:') return undefined;
	if (url.protocol === 'http:') {
		if (isLoopbackHost(url.hostname)) return undefined;
		return `"${url.origin}" uses plain http to a remote host, which would send the API key unencrypted: use https (plain http is allowed only for localhost, 127.x.x.x and [::1])`;
	}
	return `"${raw}" must start with https://`;
}

interface Target {
	/** Origin plus any path prefix, without a trailing slash. */
	base: string;
	origin: string;
	apiKey: string;
	/** The credential as resolved, handed to httpRequestWithAuthentication so it is not decrypted again. */
	credential: ICredentialsDecrypted;
}

async function resolveTarget(this: OllangContext, itemIndex: number | undefined): Promise<Target> {
	const credentials = await this.getCredentials<OllangCredentials>(CREDENTIAL_TYPE, itemIndex);
	const raw = String(credentials.baseUrl ?? '').trim();
	const problem = baseUrlProblem(raw);
	if (problem !== undefined) {
		throw new NodeOperationError(this.getNode(), `Invalid Base URL in the Ollang API credential: ${problem}`, {
			itemIndex,
			description: 'Nothing was sent. Fix the Base URL in the credential.',
		});
	}
	const url = new URL(raw);
	const prefix = url.pathname.replace(/\/+$/, '');
	const reference = this.getNode().credentials?.[CREDENTIAL_TYPE];
	return {
		base: `${url.origin}${prefix}`,
		origin: url.origin,
		apiKey: String(credentials.apiKey ?? ''),
		credential: {
			id: reference?.id ?? '',
			name: reference?.name ?? '',
			type: CREDENTIAL_TYPE,
			data: { ...credentials },
		},
	};
}

/**
 * Targets resolved in an execute context, per item index (a credential may hold expressions that read the item).
 * n8n builds a new execute context for every run of a node, so nothing outlives the execution; a poll context
 * lives as long as the activation, so polls resolve the credential for every request and see a changed key.
 */
const resolvedTargets = new WeakMap<IExecuteFunctions, Map<number | undefined, Promise<Target>>>();

function isExecuteContext(ctx: OllangContext): ctx is IExecuteFunctions {
	return 'getInputData' in ctx;
}

/** The credential and base URL once per execution and item, not once per request (each resolution decrypts). */
export function targetFor(this: OllangContext, itemIndex: number | undefined): Promise<Target> {
	if (!isExecuteContext(this)) return resolveTarget.call(this, itemIndex);
	let targets = resolvedTargets.get(this);
	if (targets === undefined) {
		targets = new Map();
		resolvedTargets.set(this, targets);
	}
	let target = targets.get(itemIndex);
	if (target === undefined) {
		target = resolveTarget.call(this, itemIndex);
		targets.set(itemIndex, target);
		const cached = targets;
		// A failure is not kept: the next request asks again.
		target.catch(() => cached.delete(itemIndex));
	}
	return target;
}
