import { z } from 'zod';
import { canRead } from '../auth.cts';
import { sourceKindOf } from '../domain/catalog.cts';
import { createProject, projectSummary, projectView } from '../domain/projects.cts';
import { readJsonBody } from '../http/body.cts';
import { shapeB } from '../http/errors.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { boundedName, httpUrl, validate } from '../http/validation.cts';
import type { SourceKind } from '../types.cts';
import { afterListingPage } from '../pageHooks.cts';
import { catalogueCode, findProject, flatPage, flatPagingSchema, json } from './common.cts';
import { noteList, targetFolder } from './uploads.cts';

const listProjectsQuery = flatPagingSchema(['id', 'name', 'createdAt', 'sourceLanguage']);

/** GET /integration/project: flat paging, the projects of the folders the key can read. */
function listProjects(ctx: ApiContext): Reply {
	const query = validate(listProjectsQuery, ctx.query);
	const projects = [...ctx.world.state.projects.values()].filter((project) => canRead(ctx.user, project.folderId));
	const reply = json(
		200,
		flatPage(projects, query, (project, field) => project[field], (project) => projectSummary(ctx.world, project)),
	);
	afterListingPage(ctx.world, 'projects');
	return reply;
}

function getProject(ctx: ApiContext): Reply {
	return json(200, projectView(ctx.world, findProject(ctx, ctx.params.projectId, 'read')));
}

const createByUrlBody = z
	.object({
		url: httpUrl,
		name: boundedName,
		sourceLanguage: catalogueCode,
		folderId: z.string().optional(),
		// A JSON array here (the SDKs), not the JSON string of the multipart upload.
		notes: noteList.optional(),
	})
	.strict();

/** The service never sees the remote file's size: an assumed size per kind, so prices and segment counts are plausible. */
const ASSUMED_SIZE: Readonly<Record<SourceKind, number>> = {
	video: 150_000_000,
	audio: 9_600_000,
	document: 60_000,
	subtitle: 30_000,
};

function fileNameOfUrl(url: string): string {
	try {
		const last = new URL(url).pathname.split('/').filter(Boolean).pop();
		return last ? decodeURIComponent(last) : '';
	} catch {
		return '';
	}
}

/**
 * POST /integration/project/create-by-url -> 201, the new project (as Get project) plus `projectId`. The file type
 * comes from the URL's last path segment, as for uploads ("Unsupported file type" without a usable one).
 */
async function createByUrl(ctx: ApiContext): Promise<Reply> {
	const body = validate(createByUrlBody, await readJsonBody(ctx.req));
	const fileName = fileNameOfUrl(body.url);
	const kind = sourceKindOf(fileName);
	if (!kind) throw shapeB(400, 'Unsupported file type');
	const folder = targetFolder(ctx, body.folderId);
	const project = createProject(ctx.world, {
		name: body.name,
		folderId: folder.id,
		sourceLanguage: body.sourceLanguage,
		fileName,
		size: ASSUMED_SIZE[kind],
		notes: body.notes,
	});
	return json(201, { projectId: project.id, ...projectView(ctx.world, project) });
}

export const projectRoutes: ApiRoute[] = [
	{ method: 'GET', pattern: '/integration/project', auth: 'C', handler: listProjects },
	{ method: 'POST', pattern: '/integration/project/create-by-url', auth: 'C', handler: createByUrl },
	{ method: 'GET', pattern: '/integration/project/:projectId', auth: 'C', handler: getProject },
];
