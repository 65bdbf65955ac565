import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { isLoopbackHost, isPrivateHost } from './validation.cts';

/** One callback delivery attempt over HTTP (sandbox/callbacks.cts): where it may go, and the POST itself. */

/** Names reserved for documentation and tests (RFC 2606, RFC 6761): no receiver lives there, so nothing is sent. */
function isReservedExampleHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/\.$/, '');
	return /(^|\.)example\.(com|net|org)$/.test(host) || /(^|\.)(example|test|invalid)$/.test(host);
}

function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
	return !isPrivateHost(address) || (allowLoopback && isLoopbackHost(address));
}

/**
 * dns.lookup that refuses a name resolving to a private address (a public name pointing inside, or re-pointed after
 * the URL was accepted): checked on the address the connection will use.
 */
function guardedLookup(allowLoopback: boolean) {
	return (hostname: string, options: LookupOptions, callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
		dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
			if (error) return callback(error, '');
			const refused = addresses.find((entry) => !isAllowedAddress(entry.address, allowLoopback));
			if (refused) return callback(new Error(`refused: ${hostname} resolves to ${refused.address}, not a public address`), '');
			if (options.all) return callback(null, addresses);
			return callback(null, addresses[0].address, addresses[0].family);
		});
	};
}

/**
 * One POST of `body` as JSON; resolves with the receiver's status (the answer's body is read and dropped). The
 * request sits in `open` while it runs.
 */
export function postJson(
	target: string,
	body: unknown,
	options: { allowLoopback: boolean; timeoutMs: number },
	open: Set<ClientRequest>,
): Promise<number> {
	const url = new URL(target);
	const host = url.hostname.replace(/^\[|\]$/g, '');
	if (isReservedExampleHost(host)) return Promise.reject(new Error(`not sent: ${host} is a reserved example name (RFC 2606)`));
	if (isIP(host) && !isAllowedAddress(host, options.allowLoopback)) return Promise.reject(new Error(`refused: ${host} is not a public address`));
	const payload = Buffer.from(JSON.stringify(body));
	return new Promise<number>((resolve, reject) => {
		const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
			url,
			{
				method: 'POST',
				headers: { 'content-type': 'application/json', 'content-length': payload.length, 'user-agent': 'Ollang-Sandbox-Callbacks/1.0' },
				// A fresh connection each time (no pooled socket outliving the sandbox), never a redirect followed.
				agent: false,
				lookup: guardedLookup(options.allowLoopback),
			},
			(response) => {
				clearTimeout(timer);
				response.resume();
				resolve(response.statusCode ?? 0);
			},
		);
		const timer = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
		open.add(request);
		request.once('close', () => open.delete(request));
		request.once('error', (error) => {
			clearTimeout(timer);
			reject(error);
		});
		request.end(payload);
	});
}
