import { z } from 'zod';
import { canRead } from '../auth.cts';
import { sourceKindOf } from '../domain/catalog.cts';
import { assignTranslator } from '../domain/orderRequests.cts';
import { attachFolderDoc, folderDocView, removeFolderDoc } from '../domain/projects.cts';
import { generateSegments, type SegmentSheet, uniqueSheetName, writeSegmentSheetsXlsx } from '../domain/segments.cts';
import { readJsonBody } from '../http/body.cts';
import { shapeB } from '../http/errors.cts';
import { parseMultipart, type MultipartForm } from '../http/multipart.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { httpUrl, isoDate, nonEmptyString, validate } from '../http/validation.cts';
import { FOLDER_DOC_TYPES, type FolderRecord, type OrderRecord } from '../types.cts';
import { afterListingPage } from '../pageHooks.cts';
import { findFolder, flatPage, flatPagingSchema, json } from './common.cts';
import { contentDisposition } from './orders.cts';

export const FOLDER_DOC_MAX_BYTES = 50 * 1024 * 1024;

/**
 * Multipart uploads, with a Content-Length or sent chunked without one: the usual multipart middleware (multer,
 * busboy) reads either (issue 18: the public notes' report of a 500 for chunked uploads is not reproduced).
 */
export async function readUpload(ctx: ApiContext, maxFileBytes: number, tooLargeMessage: string): Promise<MultipartForm> {
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
		url: httpUrl,
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

// Language filters are matched, not checked against the catalogue: a language no order has selects nothing.
const unassignBody = z.object({ sourceLanguage: nonEmptyString.optional(), targetLanguage: nonEmptyString.optional() }).strict();

/** Eligible orders: a translator assigned and status ongoing; optional language filters. */
async function unassignTranslator(ctx: ApiContext): Promise<Reply> {
	const folder = findFolder(ctx, 'write');
	const filter = validate(unassignBody, await readJsonBody(ctx.req));
	let unassignedCount = 0;
	for (const order of ctx.world.state.orders.values()) {
		if (order.folderId !== folder.id || !unassignable(order)) continue;
		if (filter.sourceLanguage !== undefined && order.sourceLanguage !== filter.sourceLanguage) continue;
		if (filter.targetLanguage !== undefined && order.targetLanguage !== filter.targetLanguage) continue;
		order.translatorId = null;
		order.translatorDeadline = null;
		unassignedCount += 1;
	}
	return json(200, { unassignedCount });
}

/** GET /integration/folder rows (the docs' `projectCount`, not the TS SDK's `ordersCount`). */
export function folderView(ctx: ApiContext, folder: FolderRecord) {
	let projectCount = 0;
	for (const project of ctx.world.state.projects.values()) if (project.folderId === folder.id) projectCount++;
	return { id: folder.id, name: folder.name, hexColor: folder.hexColor, type: folder.type, createdAt: folder.createdAt, projectCount };
}

const listFoldersQuery = flatPagingSchema(['id', 'name', 'createdAt']);

/** GET /integration/folder: flat paging; the folders the key can read. */
function listFolders(ctx: ApiContext): Reply {
	const query = validate(listFoldersQuery, ctx.query);
	const folders = [...ctx.world.state.folders.values()].filter((folder) => canRead(ctx.user, folder.id));
	const reply = json(200, flatPage(folders, query, (folder, field) => folder[field], (folder) => folderView(ctx, folder)));
	afterListingPage(ctx.world, 'folders');
	return reply;
}

/** Orders assign-translator acts on: completed, no translator. */
function assignable(order: OrderRecord): boolean {
	return order.status === 'completed' && order.translatorId === null;
}

/** Orders unassign-translator acts on: a translator assigned, ongoing. */
function unassignable(order: OrderRecord): boolean {
	return order.status === 'ongoing' && order.translatorId !== null;
}

/** The public guide's values (the skill; the SDKs pass any string): which orders' pairs, by what Assign / Unassign Translator would take. */
const PAIR_STATUSES = ['unassigned', 'assigned'] as const;

const languagePairsQuery = z
	.object({
		status: z
			.string()
			.default('unassigned')
			.refine((status) => (PAIR_STATUSES as readonly string[]).includes(status), {
				message: `must be one of the following values: ${PAIR_STATUSES.join(', ')} (unassigned: completed orders without a translator; assigned: ongoing orders with one)`,
			}),
	})
	.strict();

/**
 * GET /integration/folder/{folderId}/order-language-pairs?status=unassigned|assigned -> { pairs: [{ sourceLanguage,
 * targetLanguage, ordersCount }] }: the language pairs of the orders assign (unassigned) or unassign (assigned)
 * would act on, sorted by source then target language.
 */
function orderLanguagePairs(ctx: ApiContext): Reply {
	const folder = findFolder(ctx, 'read');
	const { status } = validate(languagePairsQuery, ctx.query);
	const eligible = status === 'unassigned' ? assignable : unassignable;
	const counts = new Map<string, { sourceLanguage: string; targetLanguage: string; ordersCount: number }>();
	for (const order of ctx.world.state.orders.values()) {
		if (order.folderId !== folder.id || !eligible(order)) continue;
		const key = `${order.sourceLanguage}\u0000${order.targetLanguage}`;
		const pair = counts.get(key) ?? { sourceLanguage: order.sourceLanguage, targetLanguage: order.targetLanguage, ordersCount: 0 };
		pair.ordersCount += 1;
		counts.set(key, pair);
	}
	const pairs = [...counts.values()].sort(
		(a, b) => a.sourceLanguage.localeCompare(b.sourceLanguage) || a.targetLanguage.localeCompare(b.targetLanguage),
	);
	return json(200, { pairs });
}

const assignBody = z
	.object({
		translatorId: nonEmptyString,
		deadline: isoDate.optional(),
		sourceLanguage: nonEmptyString.optional(),
		targetLanguage: nonEmptyString.optional(),
	})
	.strict();

/**
 * POST /integration/folder/{folderId}/assign-translator-to-orders -> 200 { assignedCount }: every eligible order
 * (completed, no translator) matching the optional language filters gets the translator and goes back to work.
 */
async function assignTranslatorToOrders(ctx: ApiContext): Promise<Reply> {
	const folder = findFolder(ctx, 'write');
	const body = validate(assignBody, await readJsonBody(ctx.req));
	if (!ctx.world.state.translators.some((translator) => translator.id === body.translatorId)) {
		throw shapeB(400, ['translatorId must reference an existing translator'], 'Bad Request');
	}
	const deadline = body.deadline === undefined ? null : new Date(body.deadline).toISOString();
	let assignedCount = 0;
	for (const order of [...ctx.world.state.orders.values()]) {
		if (order.folderId !== folder.id || !assignable(order)) continue;
		if (body.sourceLanguage !== undefined && order.sourceLanguage !== body.sourceLanguage) continue;
		if (body.targetLanguage !== undefined && order.targetLanguage !== body.targetLanguage) continue;
		assignTranslator(ctx.world, order, body.translatorId, deadline);
		assignedCount += 1;
	}
	return json(200, { assignedCount });
}

const exportBody = z
	.object({
		folderIds: z.array(nonEmptyString).min(1),
		targetLanguages: z.array(nonEmptyString),
	})
	.strict();

/**
 * POST /integration/folder/export-xlsx -> one workbook, one sheet per order with segment data in the folders
 * (in the order given; orders oldest first) whose target language is listed (an empty list: every language).
 * Sheets are named `{OrderName} - {lang}` within Excel's 31 characters, unique, the language always kept.
 */
async function exportFoldersXlsx(ctx: ApiContext): Promise<Reply> {
	const body = validate(exportBody, await readJsonBody(ctx.req));
	const folderIds = [...new Set(body.folderIds)];
	for (const folderId of folderIds) findFolder({ ...ctx, params: { folderId } }, 'read');
	const languages = new Set(body.targetLanguages.map((language) => language.toLowerCase()));
	const orders = [...ctx.world.state.orders.values()]
		.filter((order) => folderIds.includes(order.folderId) && order.segmentCount > 0)
		.filter((order) => languages.size === 0 || languages.has(order.targetLanguage.toLowerCase()))
		.sort((a, b) => folderIds.indexOf(a.folderId) - folderIds.indexOf(b.folderId) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	if (orders.length === 0) {
		throw shapeB(500, `No segment data found for folders ${folderIds.join(', ')} and target languages ${body.targetLanguages.join(', ') || '(all)'}`);
	}
	const taken = new Set<string>();
	const seed = ctx.world.seed;
	function* sheets(): Generator<SegmentSheet> {
		for (const order of orders) {
			yield {
				name: uniqueSheetName(order.name, order.targetLanguage, taken),
				targetLanguage: order.targetLanguage,
				segments: generateSegments(seed, order.id, order.segmentCount),
			};
		}
	}
	const fileName = `bulk_export_${ctx.world.clock.nowIso().slice(0, 10)}.xlsx`;
	return {
		status: 200,
		headers: {
			'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
			'content-disposition': contentDisposition(fileName),
		},
		stream: (out) => writeSegmentSheetsXlsx(out, sheets()),
	};
}

export const folderRoutes: ApiRoute[] = [
	{ method: 'GET', pattern: '/integration/folder', auth: 'C', handler: listFolders },
	{ method: 'POST', pattern: '/integration/folder/export-xlsx', auth: 'C', handler: exportFoldersXlsx },
	{ method: 'GET', pattern: '/integration/folder/:folderId/order-language-pairs', auth: 'C', handler: orderLanguagePairs },
	{ method: 'POST', pattern: '/integration/folder/:folderId/assign-translator-to-orders', auth: 'C', handler: assignTranslatorToOrders },
	{ method: 'GET', pattern: '/integration/folder/:folderId/docs', auth: 'C', handler: listFolderDocs },
	{ method: 'POST', pattern: '/integration/folder/:folderId/docs', auth: 'C', handler: attachByUrl },
	{ method: 'POST', pattern: '/integration/folder/:folderId/docs/upload', auth: 'C', handler: uploadFolderDoc },
	{ method: 'DELETE', pattern: '/integration/folder/:folderId/docs/:docId', auth: 'C', handler: removeDoc },
	{ method: 'POST', pattern: '/integration/folder/:folderId/unassign-translator-from-orders', auth: 'C', handler: unassignTranslator },
];
