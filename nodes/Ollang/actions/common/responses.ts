import type { IDataObject } from 'n8n-workflow';

import type { OllangContext, OllangRequest } from '../../transport';
import { unexpectedResponse } from '../../transport';

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is IDataObject {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A JSON object answer, optionally with some keys that must be present. */
export function requireObject(
	this: OllangContext,
	request: OllangRequest,
	value: unknown,
	requiredKeys: string[] = [],
): IDataObject {
	if (isRecord(value) && requiredKeys.every((key) => value[key] !== undefined && value[key] !== null)) {
		return value;
	}
	const expected = requiredKeys.length > 0 ? `an object with ${requiredKeys.join(', ')}` : 'a JSON object';
	throw unexpectedResponse.call(this, request, expected, value);
}

/** A list answer: a plain array, or the { data: [...] } envelope some endpoints use. Every entry must be an object. */
export function requireList(this: OllangContext, request: OllangRequest, value: unknown): IDataObject[] {
	const list = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.data) ? value.data : undefined;
	if (list !== undefined && list.every(isRecord)) return list as IDataObject[];
	throw unexpectedResponse.call(this, request, 'a list of objects', value);
}
