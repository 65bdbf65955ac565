import { shapeB } from './errors.cts';

/**
 * Parses a query string with literal bracket keys into nested objects, as the API's query parser does:
 * `pageOptions[page]=2&filter[createdAtRange][from]=...` -> { pageOptions: { page: '2' }, filter: { createdAtRange: { from } } }.
 * A repeated key becomes an array; `key[]=a&key[]=b` too.
 */
export type QueryValue = string | string[] | QueryObject;
export interface QueryObject {
	[key: string]: QueryValue;
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function parseQuery(params: URLSearchParams): QueryObject {
	const root: QueryObject = {};
	for (const [rawKey, value] of params) {
		const segments = splitKey(rawKey);
		if (segments.some((segment) => UNSAFE_KEYS.has(segment))) continue;
		assign(root, segments, value, rawKey);
	}
	return root;
}

function splitKey(key: string): string[] {
	const open = key.indexOf('[');
	if (open <= 0 || !key.endsWith(']')) return [key];
	const segments = [key.slice(0, open)];
	const inner = key.slice(open + 1, -1);
	return segments.concat(inner.split(']['));
}

function assign(target: QueryObject, segments: string[], value: string, rawKey: string): void {
	const [head, ...rest] = segments;
	const existing = target[head];
	if (rest.length === 0 || (rest.length === 1 && rest[0] === '')) {
		if (existing === undefined) target[head] = rest.length === 1 ? [value] : value;
		else if (typeof existing === 'string') target[head] = [existing, value];
		else if (Array.isArray(existing)) existing.push(value);
		else throw malformed(rawKey);
		return;
	}
	if (existing === undefined) {
		const child: QueryObject = {};
		target[head] = child;
		assign(child, rest, value, rawKey);
	} else if (typeof existing === 'object' && !Array.isArray(existing)) {
		assign(existing, rest, value, rawKey);
	} else {
		throw malformed(rawKey);
	}
}

function malformed(key: string) {
	return shapeB(400, [`query parameter ${key} mixes a value and nested keys`], 'Bad Request');
}
