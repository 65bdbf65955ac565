import { z } from 'zod';
import { sourceKindOf } from '../domain/catalog.cts';
import { attachFolderDoc, folderDocView, removeFolderDoc } from '../domain/projects.cts';
import { isChunkedWithoutLength, readJsonBody } from '../http/body.cts';
import { internalServerError, shapeB } from '../http/errors.cts';
import { parseMultipart, type MultipartForm } from '../http/multipart.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { nonEmptyString, validate } from '../http/validation.cts';
import { FOLDER_DOC_TYPES } from '../types.cts';
import { findFolder, json } from './common.cts';

export const FOLDER_DOC_MAX_BYTES = 50 * 1024 * 1024;

/** Multipart uploads: the real service fails chunked ones with 500 (public notes); we do the same. */
export async function readUpload(ctx: ApiContext, maxFileBytes: number, tooLargeMessage: string): Promise<MultipartForm> {
	if (isChunkedWithoutLength(ctx.req)) throw internalServerError();
	return parseMultipart(ctx.req, { maxFileBytes, tooLarge: () => shapeB(413, tooLargeMessage) });
}

/** The uploaded file, or 400 "Unsupported file type" when there is none with a usable name (base name and known extension). */
export function uploadedFile(form: MultipartForm) {
	const file = form.files.find((part) => part.field === 'file');
	if (!file || !sourceKindOf(file.filename)) throw shapeB(400, 'Unsupported file type');
	return { ...file, filename: file.filename as string };
}

/** Multipart text fields without the `file` part (which may arrive as a text field when sent without a filename). */
export function textFields(form: MultipartForm): Record<string, string> {
	const { file: _file, ...rest } = form.fields;
	return rest;
}

const optionalText = z.preprocess((value) => (value === '' ? undefined : value), z.string().trim().min(1).optional());

const attachByUrlBody = z
	.object({
		url: z.string().url(),
		type: z.enum(FOLDER_DOC_TYPES),
		name: optionalText,
		language: optionalText,
	})
	.strict();

const uploadDocFields = z
	.object({
		type: z.enum(FOLDER_DOC_TYPES),
		name: optionalText,
		language: optionalText,
	})
	.strict();

function listFolderDocs(ctx: ApiContext): Reply {
	const folder = findFolder(ctx, 'read');
	const docs = [...ctx.world.state.folderDocs.values()].filter((doc) => doc.folderId === folder.id);
	return json(200, docs.map(folderDocView));
}

async function attachByUrl(ctx: ApiContext): Promise<Reply> {
	const folder = findFolder(ctx, 'write');
	const body = validate(attachByUrlBody, await readJsonBody(ctx.req));
	return json(201, folderDocView(attachFolderDoc(ctx.world, folder, body)));
}

async function uploadFolderDoc(ctx: ApiContext): Promise<Reply> {
	const folder = findFolder(ctx, 'write');
	const form = await readUpload(ctx, FOLDER_DOC_MAX_BYTES, 'File too large: folder documents may be at most 50 MB');
	const fields = validate(uploadDocFields, textFields(form));
	const file = uploadedFile(form);
	const doc = attachFolderDoc(ctx.world, folder, { ...fields, fileName: file.filename, size: file.size });
	return json(201, folderDocView(doc));
}

function removeDoc(ctx: ApiContext): Reply {
	const folder = findFolder(ctx, 'write');
	const doc = ctx.world.state.folderDocs.get(ctx.params.docId);
	if (!doc || doc.folderId !== folder.id) throw shapeB(404, 'Folder document not found', 'Not Found');
	removeFolderDoc(ctx.world, doc);
	return json(200, {});
}

const unassignBody = z.object({ sourceLanguage: nonEmptyString.optional(), targetLanguage: nonEmptyString.optional() }).strict();

/** Eligible orders: a translator assigned and status ongoing; optional language filters. */
async function unassignTranslator(ctx: ApiContext): Promise<Reply> {
	const folder = findFolder(ctx, 'write');
	const filter = validate(unassignBody, await readJsonBody(ctx.req));
	let unassignedCount = 0;
	for (const order of ctx.world.state.orders.values()) {
		if (order.folderId !== folder.id || order.translatorId === null || order.status !== 'ongoing') continue;
		if (filter.sourceLanguage !== undefined && order.sourceLanguage !== filter.sourceLanguage) continue;
		if (filter.targetLanguage !== undefined && order.targetLanguage !== filter.targetLanguage) continue;
		order.translatorId = null;
		unassignedCount += 1;
	}
	return json(200, { unassignedCount });
}

export const folderRoutes: ApiRoute[] = [
	{ method: 'GET', pattern: '/integration/folder/:folderId/docs', auth: 'C', handler: listFolderDocs },
	{ method: 'POST', pattern: '/integration/folder/:folderId/docs', auth: 'C', handler: attachByUrl },
	{ method: 'POST', pattern: '/integration/folder/:folderId/docs/upload', auth: 'C', handler: uploadFolderDoc },
	{ method: 'DELETE', pattern: '/integration/folder/:folderId/docs/:docId', auth: 'C', handler: removeDoc },
	{ method: 'POST', pattern: '/integration/folder/:folderId/unassign-translator-from-orders', auth: 'C', handler: unassignTranslator },
];
