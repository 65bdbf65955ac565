import type { IExecuteFunctions } from 'n8n-workflow';

import { megabytes } from '../../transport';
import { checkText, invalidField } from './parameters';

export interface InputFile {
	data: Buffer;
	fileName?: string;
	mimeType: string;
}

/** The file in the item's binary field named by "Input Binary Field", checked against a size limit. */
export async function readInputFile(
	ctx: IExecuteFunctions,
	itemIndex: number,
	maxBytes?: number,
): Promise<InputFile> {
	const field = 'Input Binary Field';
	const propertyName = checkText(ctx, ctx.getNodeParameter('binaryPropertyName', itemIndex), field, itemIndex, true) as string;
	const binary = ctx.getInputData()[itemIndex]?.binary?.[propertyName];
	if (!binary) {
		const present = Object.keys(ctx.getInputData()[itemIndex]?.binary ?? {});
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`the item has no binary field "${propertyName}" (binary fields present: ${present.length > 0 ? present.join(', ') : 'none'})`,
		);
	}
	const tooBig = (size: number) =>
		invalidField(
			ctx,
			itemIndex,
			field,
			`the file "${binary.fileName ?? propertyName}" is ${megabytes(size)}, over the ${megabytes(maxBytes ?? 0)} limit`,
		);
	// Refuse a known oversize file before reading it into memory.
	if (maxBytes !== undefined && typeof binary.bytes === 'number' && binary.bytes > maxBytes) throw tooBig(binary.bytes);
	const data = await ctx.helpers.getBinaryDataBuffer(itemIndex, propertyName);
	if (maxBytes !== undefined && data.length > maxBytes) throw tooBig(data.length);
	if (data.length === 0) {
		throw invalidField(ctx, itemIndex, field, `the file "${binary.fileName ?? propertyName}" is empty`);
	}
	return { data, fileName: binary.fileName, mimeType: binary.mimeType || 'application/octet-stream' };
}

/** The service decides the stored file type from the extension: a name without one is refused, so check first. */
export function checkFileName(ctx: IExecuteFunctions, value: unknown, field: string, itemIndex: number): string {
	const name = checkText(ctx, value, field, itemIndex, true) as string;
	if (!/\.[A-Za-z0-9]{1,10}$/.test(name)) {
		throw invalidField(ctx, itemIndex, field, `"${name}" has no file extension (such as .mp4 or .docx); the service needs one to know the file type`);
	}
	return name;
}
