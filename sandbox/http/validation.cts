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

/** Hosts a callback may not point at: localhost names and loopback, private, link-local or unspecified addresses. */
export function isPrivateHost(hostname: string): boolean {
	const host = hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
	if (host === '' || host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return true;
	const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
	const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(mapped ? mapped[1] : host);
	if (v4) {
		const [a, b] = [Number(v4[1]), Number(v4[2])];
		return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
	}
	if (host.includes(':')) return host === '::' || host === '::1' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host);
	return false;
}

/** A callback URL: https only, with a public host (public docs of the QC evaluation). */
export const publicHttpsUrl = z.string().superRefine((value, ctx) => {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		ctx.addIssue({ code: 'custom', message: 'must be a URL address' });
		return;
	}
	if (url.protocol !== 'https:') ctx.addIssue({ code: 'custom', message: 'must use https' });
	else if (isPrivateHost(url.hostname)) ctx.addIssue({ code: 'custom', message: 'must point to a public host (localhost and private addresses are not allowed)' });
});
