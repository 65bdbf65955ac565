import type { IExecuteFunctions } from 'n8n-workflow';

import { checkText, invalidField } from '../common/parameters';

/** figma.com/file/<key>/…, /design/<key>/…, /proto/<key>/…, /board/<key>/… (and /file/<key> alone). */
const KEY_IN_URL = /figma\.com\/(?:file|design|proto|board|slides)\/([A-Za-z0-9_-]+)/;
const FILE_KEY = /^[A-Za-z0-9_-]+$/;

/** A Figma file URL: http(s) and on figma.com, as the API requires. */
export function checkFigmaUrl(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): string {
	const text = checkText(ctx, value, field, itemIndex, true) as string;
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw invalidField(ctx, itemIndex, field, `"${text}" is not a valid URL`);
	}
	if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !text.includes('figma.com')) {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`"${text}" is not a Figma file URL (https://www.figma.com/design/<file key>/…)`,
		);
	}
	return text;
}

export function fileKeyFromUrl(url: string): string | undefined {
	return KEY_IN_URL.exec(url)?.[1];
}

/**
 * A file key given as itself or as the file's URL (its key is taken from it); `fallbackUrl`, when the field is
 * empty, is where the key is taken from instead.
 */
export function checkFileKey(
	ctx: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
	fallbackUrl?: string,
): string {
	const text = checkText(ctx, value, field, itemIndex, fallbackUrl === undefined);
	const source = text ?? fallbackUrl ?? '';
	const key = source.includes('figma.com') ? fileKeyFromUrl(source) : source;
	if (key === undefined) {
		throw invalidField(
			ctx,
			itemIndex,
			field,
			text === undefined
				? `could not be read from the File URL "${source}"; give the file key (the part after /design/ or /file/)`
				: `no file key in the URL "${source}" (expected …figma.com/design/<file key>/…)`,
		);
	}
	if (!FILE_KEY.test(key)) {
		throw invalidField(ctx, itemIndex, field, `"${key}" is not a Figma file key: only letters, digits, "-" and "_"`);
	}
	return key;
}
