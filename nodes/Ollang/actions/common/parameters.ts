import type { IDataObject, IExecuteFunctions, INodePropertyOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PagingOptions } from '../../transport';
import { MAX_PAGE_CONCURRENCY, MAX_PAGE_SIZE, pathIdProblem } from '../../transport';
import { readLocatorId } from './itemParameters';

/** A local validation error: names the field, the item and the rule; nothing has been sent. */
export function invalidField(
	ctx: IExecuteFunctions,
	itemIndex: number,
	field: string,
	rule: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Invalid ${field} (item ${itemIndex}): ${rule}`, {
		itemIndex,
		description: 'Nothing was sent to Ollang for this item. Correct the field and run the node again.',
	});
}

/** An id from a resource locator or a plain field, checked with the transport's path-id rule. */
export function readId(ctx: IExecuteFunctions, name: string, field: string, itemIndex: number): string {
	return checkId(ctx, readLocatorId(ctx, name, itemIndex), field, itemIndex);
}

export function checkId(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): string {
	const problem = pathIdProblem(value);
	if (problem !== undefined) throw invalidField(ctx, itemIndex, field, `the ID ${problem}`);
	return String(value).trim();
}

/**
 * An optional resource locator inside a collection (a filter, an additional field), at `path` such as
 * 'filters.projectId': undefined when the collection does not hold it or it is left empty, else a valid path id.
 */
export function readOptionalId(
	ctx: IExecuteFunctions,
	collection: IDataObject,
	path: string,
	field: string,
	itemIndex: number,
): string | undefined {
	const name = path.slice(path.lastIndexOf('.') + 1);
	if (collection[name] === undefined) return undefined;
	return checkOptionalId(ctx, readLocatorId(ctx, path, itemIndex), field, itemIndex);
}

/** An optional id field: empty gives undefined, anything else must be a valid path id. */
export function checkOptionalId(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
): string | undefined {
	const text = checkText(ctx, value, field, itemIndex, false);
	return text === undefined ? undefined : checkId(ctx, text, field, itemIndex);
}

export function checkText(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	required: boolean,
	options: { trim?: boolean } = {},
): string | undefined {
	if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
		if (required) throw invalidField(ctx, itemIndex, field, 'must not be empty');
		return undefined;
	}
	if (typeof value !== 'string' && typeof value !== 'number') {
		throw invalidField(ctx, itemIndex, field, `must be text, got ${describeType(value)}`);
	}
	return options.trim === false ? String(value) : String(value).trim();
}

/**
 * A value of an options field, checked against the values the field offers: set by an expression, it can be
 * anything. Empty gives undefined.
 */
export function checkOption(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	options: INodePropertyOptions[],
): string | undefined {
	const text = checkText(ctx, value, field, itemIndex, false);
	if (text === undefined) return undefined;
	const allowed = options.map((option) => String(option.value));
	if (!allowed.includes(text)) {
		throw invalidField(ctx, itemIndex, field, `"${text}" is not one of: ${allowed.join(', ')}`);
	}
	return text;
}

/** A required options parameter, checked as by checkOption. */
export function readOption(
	ctx: IExecuteFunctions,
	name: string,
	field: string,
	itemIndex: number,
	options: INodePropertyOptions[],
): string {
	const value = checkOption(ctx, ctx.getNodeParameter(name, itemIndex, ''), field, itemIndex, options);
	if (value === undefined) throw invalidField(ctx, itemIndex, field, 'must not be empty');
	return value;
}

/** The values of a multi-options field (a list, or comma-separated text), each checked as by checkOption. */
export function checkOptions(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	options: INodePropertyOptions[],
): string[] {
	if (value === undefined || value === null || value === '') return [];
	const list: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
	return list
		.map((entry) => checkOption(ctx, entry, field, itemIndex, options))
		.filter((entry): entry is string => entry !== undefined);
}

export function readText(ctx: IExecuteFunctions, name: string, field: string, itemIndex: number): string {
	return checkText(ctx, ctx.getNodeParameter(name, itemIndex, ''), field, itemIndex, true) as string;
}

/**
 * A boolean parameter: true or false (an expression may give 'true' or 'false'); empty gives `fallback`. The one
 * reader of every boolean field, so each says the same about a wrong value.
 */
export function checkBoolean<T extends boolean | undefined>(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	fallback: T,
): boolean | T {
	if (value === undefined || value === null || value === '') return fallback;
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	throw invalidField(ctx, itemIndex, field, `must be true or false, got ${describeType(value)}`);
}

export function describeType(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'a list';
	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Date.parse rolls a day its month does not have over (February 30 becomes March 2): refuse it instead. */
function dayExists(match: RegExpExecArray): boolean {
	const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
	return day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * An ISO 8601 date or date-time, returned as a UTC ISO string. n8n's date pickers give no offset: such
 * values are read as UTC.
 */
export function checkDate(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const text = value instanceof Date ? value.toISOString() : String(value).trim();
	if (text === '') return undefined;
	const match = ISO_DATE.exec(text);
	const needsZone = match !== null && match[4] !== undefined && match[7] === undefined;
	const normalized = `${text.replace(' ', 'T')}${needsZone ? 'Z' : ''}`;
	const time = match && dayExists(match) ? Date.parse(normalized) : NaN;
	if (Number.isNaN(time)) {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`"${text}" is not a valid ISO 8601 date (e.g. 2026-01-31 or 2026-01-31T12:00:00Z)`,
		);
	}
	return new Date(time).toISOString();
}

/** Both dates valid and the first not after the second. */
export function checkDateRange(
	ctx: IExecuteFunctions,
	itemIndex: number,
	from: { field: string; value: unknown },
	to: { field: string; value: unknown },
): { from?: string; to?: string } {
	const fromIso = checkDate(ctx, from.value, from.field, itemIndex);
	const toIso = checkDate(ctx, to.value, to.field, itemIndex);
	if (fromIso !== undefined && toIso !== undefined && Date.parse(fromIso) > Date.parse(toIso)) {
		throw invalidField(ctx, itemIndex, from.field, `must not be after ${to.field} (${fromIso} > ${toIso})`);
	}
	return { from: fromIso, to: toIso };
}

function checkWholeNumber(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	min: number,
	max: number,
): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number) || number < min || number > max) {
		const range = max === Infinity ? `at least ${min}` : `from ${min} to ${max}`;
		throw invalidField(ctx, itemIndex, field, `must be a whole number ${range}, got ${JSON.stringify(value)}`);
	}
	return number;
}

export function checkNumberInRange(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	range: { min: number; max?: number },
): number {
	return checkWholeNumber(ctx, value, field, itemIndex, range.min, range.max ?? Infinity);
}

/** Return All / Limit plus the paging options (Page Size = pageOptions[take], 1 to 50). */
export function readPaging(ctx: IExecuteFunctions, itemIndex: number, options: IDataObject): PagingOptions {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const paging: PagingOptions = { returnAll };
	if (!returnAll) {
		paging.limit = checkWholeNumber(ctx, ctx.getNodeParameter('limit', itemIndex, 50), 'Limit', itemIndex, 1, Infinity);
	}
	if (options.pageSize !== undefined) {
		paging.pageSize = checkWholeNumber(ctx, options.pageSize, 'Page Size', itemIndex, 1, MAX_PAGE_SIZE);
	}
	if (options.pageConcurrency !== undefined) {
		paging.concurrency = checkWholeNumber(
			ctx,
			options.pageConcurrency,
			'Parallel Page Requests',
			itemIndex,
			1,
			MAX_PAGE_CONCURRENCY,
		);
	}
	return paging;
}

/** Limit for listings the API returns whole (memories, folder documents): applied locally. */
export function readLocalLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	if (returnAll) return undefined;
	return checkWholeNumber(ctx, ctx.getNodeParameter('limit', itemIndex, 50), 'Limit', itemIndex, 1, Infinity);
}

/** A URL the service can fetch: http or https, with a host. */
export function checkUrl(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): string {
	const text = checkText(ctx, value, field, itemIndex, true) as string;
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw invalidField(ctx, itemIndex, field, `"${text}" is not a valid URL`);
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		throw invalidField(ctx, itemIndex, field, `"${text}" must start with http:// or https://`);
	}
	return text;
}
