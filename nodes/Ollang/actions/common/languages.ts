import type { IExecuteFunctions } from 'n8n-workflow';

import { checkText, describeType, invalidField } from './parameters';

/** A language code as the API writes them: en, de, pt-PT, zh-Hant, es-419. */
const LANGUAGE_CODE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

const notACode = (code: string) => `"${code}" is not a language code (e.g. en, de, pt-PT, zh-Hant)`;

/**
 * A language code, refused before any request when it cannot be one ("English", "en_US"). Whether the catalogue
 * has it is the service's to say (Locale > Get Languages lists them; its 400 names the catalogue).
 */
export function checkLanguageCode(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): string {
	const code = checkText(ctx, value, field, itemIndex, true) as string;
	if (!LANGUAGE_CODE.test(code)) throw invalidField(ctx, itemIndex, field, notACode(code));
	return code;
}

/** An optional language code, or `all` (the service detects the language): Upload VTT's source language. */
export function checkOptionalLanguageOrAll(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
): string | undefined {
	const code = checkText(ctx, value, field, itemIndex, false);
	if (code === undefined || code === 'all' || LANGUAGE_CODE.test(code)) return code;
	throw invalidField(ctx, itemIndex, field, `${notACode(code)} or all`);
}

/**
 * Language codes from a list or from comma-separated text ("de, fr, pt-PT"), each checked, none twice; at least
 * one.
 */
export function checkLanguageList(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): string[] {
	let entries: unknown[];
	if (Array.isArray(value)) entries = value;
	else if (typeof value === 'string') entries = value.split(',').filter((entry) => entry.trim() !== '');
	else if (value === undefined || value === null) entries = [];
	else throw invalidField(ctx, itemIndex, field, `must be language codes, got ${describeType(value)}`);
	if (entries.length === 0) throw invalidField(ctx, itemIndex, field, 'add at least one language code');
	const codes = entries.map((entry) => checkLanguageCode(ctx, entry, field, itemIndex));
	const seen = new Set<string>();
	for (const code of codes) {
		if (seen.has(code.toLowerCase())) throw invalidField(ctx, itemIndex, field, `"${code}" is listed twice`);
		seen.add(code.toLowerCase());
	}
	return codes;
}

/** Comma-separated text or a list, trimmed, empty entries dropped (tags, IDs). */
export function checkTextList(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): string[] {
	if (value === undefined || value === null || value === '') return [];
	const entries: unknown[] = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
	return entries
		.map((entry) => checkText(ctx, entry, field, itemIndex, false))
		.filter((entry): entry is string => entry !== undefined);
}
