import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { OllangRequest } from '../../transport';
import { apiDownloadBinary, megabytes } from '../../transport';
import type { OperationResult } from '../node.type';
import { checkText, invalidField } from './parameters';

export interface InputFile {
	data: Buffer;
	fileName?: string;
	mimeType: string;
}

/** The file in the item's binary field named by "Input Binary Field", checked against a size limit. */
export async function readInputFile(ctx: IExecuteFunctions, itemIndex: number, maxBytes?: number): Promise<InputFile> {
	const field = 'Input Binary Field';
	const propertyName = checkText(
		ctx,
		ctx.getNodeParameter('binaryPropertyName', itemIndex),
		field,
		itemIndex,
		true,
	) as string;
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
		throw invalidField(
			ctx,
			itemIndex,
			field,
			`"${name}" has no file extension (such as .mp4 or .docx); the service needs one to know the file type`,
		);
	}
	return name;
}

/** The last segment of a URL's path, decoded: the file name a URL gives (the service reads the file type from it). */
export function lastPathSegment(url: string): string | undefined {
	try {
		const segment = new URL(url).pathname.split('/').filter(Boolean).pop();
		return segment === undefined ? undefined : decodeURIComponent(segment);
	} catch {
		return undefined;
	}
}

export const XLSX_MIME_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Where an operation puts the file it downloads. */
export function binaryOutputField(what: string): INodeProperties {
	return {
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: `The name of the output binary field to put the ${what} in`,
	};
}

/** The output binary field's name, checked (not empty). */
export function readBinaryOutputField(ctx: IExecuteFunctions, itemIndex: number): string {
	return checkText(
		ctx,
		ctx.getNodeParameter('binaryPropertyName', itemIndex),
		'Put Output File in Field',
		itemIndex,
		true,
	) as string;
}

/**
 * Downloads an XLSX export into the item's output binary field; the file name comes from the answer, else
 * `fallbackName`. Returns one output item: `json` plus the file's name, type and size.
 */
export async function downloadXlsx(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: OllangRequest,
	fallbackName: string,
	json: IDataObject,
): Promise<OperationResult[]> {
	const binaryPropertyName = readBinaryOutputField(ctx, itemIndex);
	const file = await apiDownloadBinary.call(ctx, request, (answer) => ({
		fileName: answer.fileName ?? fallbackName,
		mimeType: answer.mimeType && answer.mimeType !== 'application/octet-stream' ? answer.mimeType : XLSX_MIME_TYPE,
	}));
	return [
		{
			json: { ...json, fileName: file.fileName, mimeType: file.mimeType, fileSize: file.fileSize },
			binary: { [binaryPropertyName]: file.binary },
		},
	];
}
