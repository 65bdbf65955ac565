import { z } from 'zod';
import { validationError } from './errors.cts';

/**
 * zod schemas validate bodies and query strings; failures become 400 shape B whose `message` lists every
 * violated field in class-validator's words (the API is NestJS): "targetLanguage should not be empty",
 * "pageOptions.take must not be greater than 50".
 */
export function validate<S extends z.ZodTypeAny>(schema: S, input: unknown): z.output<S> {
	const result = schema.safeParse(input);
	if (!result.success) throw validationError(issueMessages(result.error.issues));
	return result.data;
}

export function issueMessages(issues: readonly z.ZodIssue[]): string[] {
	const messages: string[] = [];
	for (const issue of issues) {
		for (const message of issueToMessages(issue)) {
			if (!messages.includes(message)) messages.push(message);
		}
	}
	return messages;
}

function issueToMessages(issue: z.ZodIssue): string[] {
	const field = issue.path.join('.');
	const subject = field || 'body';
	switch (issue.code) {
		case 'invalid_type':
			if (issue.received === 'undefined' || issue.received === 'null') return [`${subject} should not be empty`];
			if (issue.expected === 'integer') return [`${subject} must be an integer number`];
			return [`${subject} ${typeWords(issue.expected)}`];
		case 'too_small':
			if (issue.type === 'string') {
				return [Number(issue.minimum) <= 1 ? `${subject} should not be empty` : `${subject} must be longer than or equal to ${issue.minimum} characters`];
			}
			if (issue.type === 'array') {
				return [Number(issue.minimum) <= 1 ? `${subject} should not be empty` : `${subject} must contain at least ${issue.minimum} elements`];
			}
			if (!issue.inclusive) return [Number(issue.minimum) === 0 ? `${subject} must be a positive number` : `${subject} must be greater than ${issue.minimum}`];
			return [`${subject} must not be less than ${issue.minimum}`];
		case 'too_big':
			if (issue.type === 'string') return [`${subject} must be shorter than or equal to ${issue.maximum} characters`];
			if (issue.type === 'array') return [`${subject} must contain no more than ${issue.maximum} elements`];
			return [`${subject} must not be greater than ${issue.maximum}`];
		case 'invalid_enum_value':
			return [`${subject} must be one of the following values: ${issue.options.join(', ')}`];
		case 'invalid_literal':
			return [`${subject} must be equal to ${String(issue.expected)}`];
		case 'invalid_string':
			if (issue.validation === 'url') return [`${subject} must be a URL address`];
			if (issue.validation === 'datetime') return [`${subject} must be a valid ISO 8601 date string`];
			return [`${subject} ${issue.message}`];
		case 'unrecognized_keys':
			return issue.keys.map((key) => `property ${field ? `${field}.` : ''}${key} should not exist`);
		case 'custom':
			if (issue.params?.eachOf) return [`each value in ${subject} must be one of the following values: ${issue.params.eachOf.join(', ')}`];
			// Our refinements write the rule only ("must reference an existing project"); the field is prefixed here.
			return [field ? `${field} ${issue.message}` : issue.message];
		default:
			return [`${subject} ${issue.message}`];
	}
}

function typeWords(expected: string): string {
	switch (expected) {
		case 'string':
			return 'must be a string';
		case 'number':
			return 'must be a number conforming to the specified constraints';
		case 'boolean':
			return 'must be a boolean value';
		case 'array':
			return 'must be an array';
		case 'object':
			return 'must be an object';
		default:
			return `must be a ${expected}`;
	}
}

/** Query values arrive as strings; numeric ones become numbers, anything else is left for zod to reject. */
export function numberFromQuery(value: unknown): unknown {
	if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
	return value;
}

export function queryInt(rules: { min: number; max?: number; default: number }) {
	let inner = z.number().int().min(rules.min);
	if (rules.max !== undefined) inner = inner.max(rules.max);
	return z.preprocess(numberFromQuery, inner.default(rules.default));
}

/** ISO 8601 timestamps or dates; returned as epoch milliseconds. */
export const isoDate = z
	.string()
	.refine((value) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) && !Number.isNaN(Date.parse(value)), {
		message: 'must be a valid ISO 8601 date string',
	})
	.transform((value) => Date.parse(value));

export const nonEmptyString = z.string().trim().min(1);

/** Query values that may be given once, comma-separated, or repeated: always an array of non-empty strings. */
export function listFromQuery(value: unknown): unknown {
	const parts = Array.isArray(value) ? value : [value];
	if (!parts.every((part) => typeof part === 'string')) return value;
	return (parts as string[]).flatMap((part) => part.split(',')).map((part) => part.trim()).filter((part) => part !== '');
}

export function oneOrMany<T extends string>(values: readonly T[]) {
	return z.preprocess(
		listFromQuery,
		z.array(z.string()).superRefine((items, ctx) => {
			if (items.some((item) => !(values as readonly string[]).includes(item))) {
				ctx.addIssue({ code: 'custom', message: 'invalid value', params: { eachOf: values } });
			}
		}),
	) as unknown as z.ZodType<T[], z.ZodTypeDef, unknown>;
}

/** A nested query object that may be absent entirely (then its fields take their defaults). */
export function optionalGroup<S extends z.ZodTypeAny>(schema: S) {
	return z.preprocess((value) => (value === undefined ? {} : value), schema);
}

/** Host names that resolve inside a network: localhost, mDNS, the internal and home zones, and single labels (search domains). */
function isLocalName(host: string): boolean {
	if (host === 'localhost' || !host.includes('.')) return true;
	return ['.localhost', '.local', '.internal', '.home.arpa', '.localdomain'].some((suffix) => host.endsWith(suffix));
}

/**
 * IPv4 ranges that are not the public internet (RFC 6890 special-purpose registry): "this network", private,
 * shared (CGNAT), loopback, link-local, IETF protocol assignments, documentation, the old 6to4 relay, benchmark
 * (198.18/15), multicast, reserved and broadcast.
 */
const NON_PUBLIC_V4: ReadonlyArray<readonly [number, number]> = [
	[0x00000000, 8],
	[0x0a000000, 8],
	[0x64400000, 10],
	[0x7f000000, 8],
	[0xa9fe0000, 16],
	[0xac100000, 12],
	[0xc0000000, 24],
	[0xc0000200, 24],
	[0xc0586300, 24],
	[0xc0a80000, 16],
	[0xc6120000, 15],
	[0xc6336400, 24],
	[0xcb007100, 24],
	[0xe0000000, 4],
	[0xf0000000, 4],
];

function isNonPublicV4(address: number): boolean {
	return NON_PUBLIC_V4.some(([network, bits]) => (address >>> (32 - bits)) === (network >>> (32 - bits)));
}

/** Dotted IPv4 (the URL parser has already turned 2130706433 or 0x7f.1 into 127.0.0.1) as a 32-bit number. */
function parseV4(host: string): number | null {
	const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
	if (!parts) return null;
	const octets = parts.slice(1).map(Number);
	if (octets.some((octet) => octet > 255)) return null;
	return ((octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]) >>> 0;
}

/** An IPv6 address as eight 16-bit groups (an embedded dotted IPv4 tail included), or null. */
function parseV6(host: string): number[] | null {
	let text = host;
	const tail = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
	if (tail) {
		const v4 = parseV4(tail[2]);
		if (v4 === null) return null;
		text = `${tail[1]}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
	}
	const halves = text.split('::');
	if (halves.length > 2) return null;
	const groups = (half: string) => (half === '' ? [] : half.split(':'));
	const head = groups(halves[0]);
	const rest = halves.length === 2 ? groups(halves[1]) : [];
	const missing = 8 - head.length - rest.length;
	if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return null;
	const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
	if (!all.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return null;
	return all.map((group) => parseInt(group, 16));
}

const v4Of = (high: number, low: number) => ((high << 16) | low) >>> 0;

/**
 * IPv6 that is not a public unicast address, or that reaches IPv4 through a non-public IPv4 address: unspecified,
 * loopback, IPv4-compatible (::/96) and IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96) forms,
 * NAT64 (64:ff9b::/96 by its IPv4, 64:ff9b:1::/48 local use), discard-only (100::/64), Teredo (2001::/32), ORCHID and
 * benchmarking (2001:2::/48, 2001:10::/28, 2001:20::/28), documentation (2001:db8::/32), 6to4 (2002::/16 by its IPv4),
 * unique-local (fc00::/7), link-local (fe80::/10), site-local (fec0::/10) and multicast (ff00::/8).
 */
function isNonPublicV6(g: number[]): boolean {
	const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
	if (zeros(0, 6)) return true; // ::, ::1 and the IPv4-compatible ::a.b.c.d
	if (zeros(0, 5) && g[5] === 0xffff) return isNonPublicV4(v4Of(g[6], g[7]));
	if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return isNonPublicV4(v4Of(g[6], g[7]));
	if (g[0] === 0x64 && g[1] === 0xff9b) return zeros(2, 6) ? isNonPublicV4(v4Of(g[6], g[7])) : g[2] === 1;
	if (g[0] === 0x100 && zeros(1, 4)) return true;
	if (g[0] === 0x2001 && (g[1] === 0 || g[1] === 0xdb8 || (g[1] === 2 && g[2] === 0) || (g[1] >= 0x10 && g[1] <= 0x2f))) return true;
	if (g[0] === 0x2002) return isNonPublicV4(v4Of(g[1], g[2]));
	return (g[0] & 0xfe00) === 0xfc00 || (g[0] & 0xffc0) === 0xfe80 || (g[0] & 0xffc0) === 0xfec0 || (g[0] & 0xff00) === 0xff00;
}

/**
 * Hosts a callback may not point at: local names, and every address form that reaches a private, loopback,
 * link-local, benchmark, multicast, broadcast or otherwise reserved range (IPv4, or IPv6 embedding one). Takes a
 * URL's hostname, which the WHATWG parser has already normalised (IPv4 numbers dotted, IPv6 compressed hex).
 */
export function isPrivateHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
	if (host === '') return true;
	if (host.includes(':')) {
		const groups = parseV6(host);
		return groups === null || isNonPublicV6(groups);
	}
	const v4 = parseV4(host);
	if (v4 !== null) return isNonPublicV4(v4);
	return isLocalName(host);
}

/** A URL of one of the given schemes (`must use https`, `must use http or https`), as one message per problem. */
function urlWithScheme(schemes: readonly string[], ctx: z.RefinementCtx, value: string): URL | null {
	const url = parseUrl(ctx, value);
	return url && hasScheme(url, schemes, ctx) ? url : null;
}

function parseUrl(ctx: z.RefinementCtx, value: string): URL | null {
	try {
		return new URL(value);
	} catch {
		ctx.addIssue({ code: 'custom', message: 'must be a URL address' });
		return null;
	}
}

function hasScheme(url: URL, schemes: readonly string[], ctx: z.RefinementCtx): boolean {
	if (schemes.includes(url.protocol.slice(0, -1))) return true;
	ctx.addIssue({ code: 'custom', message: `must use ${schemes.join(' or ')}` });
	return false;
}

/** A source the service downloads from: http or https only (file:, javascript:, ftp: ... are refused). */
export const httpUrl = z.string().superRefine((value, ctx) => {
	urlWithScheme(['http', 'https'], ctx, value);
});

/**
 * Loopback only: localhost and *.localhost, 127.0.0.0/8, ::1 and IPv4-mapped 127.x. The sandbox's
 * allowLoopbackCallbacks option lets callbacks reach these (a local n8n); private networks stay refused.
 */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
	if (host === 'localhost' || host.endsWith('.localhost')) return true;
	if (host.includes(':')) {
		const g = parseV6(host);
		if (g === null || !g.slice(0, 5).every((group) => group === 0)) return false;
		if (g[5] === 0 && g[6] === 0) return g[7] === 1;
		return g[5] === 0xffff && g[6] >>> 8 === 127;
	}
	const v4 = parseV4(host);
	return v4 !== null && v4 >>> 24 === 127;
}

/**
 * A callback URL: the given schemes, with a public host. With `allowLoopback` (a sandbox option for local use; the
 * real API refuses them) a loopback host is accepted too, over http as well: a local n8n listens on plain http, and
 * loopback traffic never crosses a network https would protect.
 */
export function callbackUrl(schemes: readonly string[], allowLoopback = false) {
	return z.string().superRefine((value, ctx) => {
		const url = parseUrl(ctx, value);
		if (!url) return;
		const loopback = allowLoopback && isLoopbackHost(url.hostname);
		if (!hasScheme(url, loopback ? ['http', 'https'] : schemes, ctx)) return;
		if (!loopback && isPrivateHost(url.hostname)) {
			ctx.addIssue({ code: 'custom', message: 'must point to a public host (localhost and private addresses are not allowed)' });
		}
	});
}

/** Names the service stores (projects, uploads): a database column's usual limit. */
export const MAX_NAME_LENGTH = 255;

export const boundedName = z.string().trim().min(1).max(MAX_NAME_LENGTH);
