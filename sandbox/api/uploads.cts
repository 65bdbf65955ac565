import { z } from 'zod';
import { canWrite } from '../auth.cts';
import { sourceKindOf } from '../domain/catalog.cts';
import { isCatalogueCode } from '../domain/locales.cts';
import { addProjectSubtitle, createProject } from '../domain/projects.cts';
import { readJsonBody } from '../http/body.cts';
import { shapeB } from '../http/errors.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { boundedName, httpUrl, MAX_NAME_LENGTH, nonEmptyString, validate } from '../http/validation.cts';
import type { FolderRecord } from '../types.cts';
import { CATALOGUE_CODE_WORDS, catalogueCode, findProject, json } from './common.cts';
import { readUpload, textFields, uploadedFile } from './folders.cts';

/** Direct uploads are counted, not stored; the limit only guards against runaway clients. */
const DIRECT_UPLOAD_MAX_BYTES = 5 * 1024 * 1024 * 1024;

export const noteList = z.array(z.object({ details: z.string(), timeStamp: z.string() }).strict());

const directUploadFields = z
	.object({
		name: boundedName,
		sourceLanguage: catalogueCode,
		notes: z
			.string()
			.optional()
			.transform((text, ctx) => {
				if (text === undefined || text.trim() === '') return [];
				try {
					return noteList.parse(JSON.parse(text));
				} catch {
					ctx.addIssue({ code: 'custom', message: 'must be a JSON array of { details, timeStamp }' });
					return z.NEVER;
				}
			}),
		folderId: z.string().optional(),
	})
	.strict();

const directUrlBody = z
	.object({
		url: httpUrl,
		// Any string: a name without a usable file type (an empty one too) is the spec's "Unsupported file type".
		originalname: z.string().max(MAX_NAME_LENGTH),
		size: z.number().positive(),
		sourceLanguage: catalogueCode,
		folderId: z.string().optional(),
	})
	.strict();

/** Uploads without a folder land in the account's first folder (the seeded "General"). */
export function targetFolder(ctx: ApiContext, folderId: string | undefined): FolderRecord {
	const id = folderId === undefined || folderId === '' ? ctx.world.fixtures.folders.writable : folderId;
	const folder = ctx.world.state.folders.get(id);
	if (!folder) throw shapeB(404, 'Folder not found');
	if (!canWrite(ctx.user, folder.id)) throw shapeB(403, 'You do not have write permission on this folder');
	return folder;
}

/** POST /integration/upload/direct (multipart: file, name, sourceLanguage, notes?, folderId?) -> 201 { projectId }. */
async function directUpload(ctx: ApiContext): Promise<Reply> {
	const form = await readUpload(ctx, DIRECT_UPLOAD_MAX_BYTES, 'File too large');
	const fields = validate(directUploadFields, textFields(form));
	const file = uploadedFile(form);
	const folder = targetFolder(ctx, fields.folderId);
	const project = createProject(ctx.world, {
		name: fields.name,
		folderId: folder.id,
		sourceLanguage: fields.sourceLanguage,
		fileName: file.filename,
		size: file.size,
		notes: fields.notes,
	});
	return json(201, { projectId: project.id });
}

/** POST /integration/upload/direct-url ({ url, originalname, size, sourceLanguage, folderId? }) -> 201 { projectId }. */
async function uploadFromUrl(ctx: ApiContext): Promise<Reply> {
	const body = validate(directUrlBody, await readJsonBody(ctx.req));
	if (!sourceKindOf(body.originalname)) throw shapeB(400, 'Unsupported file type');
	const folder = targetFolder(ctx, body.folderId);
	const project = createProject(ctx.world, {
		name: body.originalname.replace(/\.[^.]+$/, ''),
		folderId: folder.id,
		sourceLanguage: body.sourceLanguage,
		fileName: body.originalname,
		size: body.size,
	});
	return json(201, { projectId: project.id });
}

/** The public docs' limit for a VTT upload. */
export const VTT_MAX_BYTES = 1024 * 1024 * 1024;

const vttFields = z
	.object({
		projectId: nonEmptyString,
		name: boundedName,
		// Optional; `all` asks for detection. A catalogue code otherwise, in any case (the docs write es-mx, zh-tw).
		sourceLanguage: z.preprocess(
			(value) => (value === '' ? undefined : value),
			z
				.string()
				.trim()
				.refine((code) => code === 'all' || isCatalogueCode(code), { message: `must be all or ${CATALOGUE_CODE_WORDS}` })
				.optional(),
		),
	})
	.strict();

/**
 * POST /integration/upload/vtt (multipart: file (.vtt), projectId, name, sourceLanguage?) -> 201 { projectId }:
 * the subtitle file is added to the project's documents.
 */
async function vttUpload(ctx: ApiContext): Promise<Reply> {
	const form = await readUpload(ctx, VTT_MAX_BYTES, 'File too large: a VTT file may be at most 1 GB');
	const fields = validate(vttFields, textFields(form));
	const file = form.files.find((part) => part.field === 'file');
	if (!file || !file.filename || !/\.vtt$/i.test(file.filename) || file.filename.length <= 4) {
		throw shapeB(400, 'Unsupported file type: only .vtt files can be uploaded here');
	}
	const project = findProject(ctx, fields.projectId, 'write');
	addProjectSubtitle(ctx.world, project, { name: fields.name, fileName: file.filename, size: file.size, sourceLanguage: fields.sourceLanguage });
	return json(201, { projectId: project.id });
}

export const uploadRoutes: ApiRoute[] = [
	{ method: 'POST', pattern: '/integration/upload/vtt', auth: 'C', handler: vttUpload },
	{ method: 'POST', pattern: '/integration/upload/direct', auth: 'C', handler: directUpload },
	{ method: 'POST', pattern: '/integration/upload/direct-url', auth: 'C', handler: uploadFromUrl },
];
