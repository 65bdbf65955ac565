import { z } from 'zod';
import { canRead, canWrite } from '../auth.cts';
import { isCatalogueCode } from '../domain/locales.cts';
import { shapeA, shapeB } from '../http/errors.cts';
import type { ApiContext, Reply } from '../http/server.cts';
import { nonEmptyString, optionalGroup, queryInt } from '../http/validation.cts';
import type { FolderRecord, OrderRecord, ProjectRecord } from '../types.cts';

export function json(status: number, body: unknown): Reply {
	return { status, body };
}

export const NO_CONTENT: Reply = { status: 204 };

export const CATALOGUE_CODE_WORDS = 'a language code of the catalogue (GET /integration/locales/languages)';

/**
 * A language code the service takes: one of the catalogue the locale endpoints serve (public reference §3.11:
 * order and project creation reject codes that are not in it), in any letter case; 400 naming the field otherwise.
 */
// pipe: an empty value gets "should not be empty" alone.
export const catalogueCode = nonEmptyString.pipe(z.string().refine(isCatalogueCode, { message: `must be ${CATALOGUE_CODE_WORDS}` }));

/**
 * Order lookups for the two error styles: 'A' (spec: get order, human review: ORDER_NOT_FOUND / ACCESS_DENIED
 * codes) and 'B' (cancel human review: NestJS bodies). Ids that are not ObjectIds are simply not found.
 */
export function findOrder(ctx: ApiContext, style: 'A' | 'B', need: 'read' | 'write'): OrderRecord {
	const order = ctx.world.state.orders.get(ctx.params.orderId);
	if (!order) throw style === 'A' ? shapeA(404, 'ORDER_NOT_FOUND', `Order ${ctx.params.orderId} not found`) : shapeB(404, 'Order not found');
	const allowed = need === 'read' ? canRead(ctx.user, order.folderId) : canWrite(ctx.user, order.folderId);
	if (!allowed) {
		throw style === 'A'
			? shapeA(403, 'ACCESS_DENIED', 'You do not have permission to access this order')
			: shapeB(403, 'You do not have permission to access this order');
	}
	return order;
}

/** Folder endpoints answer in shape B: 404 Not Found, 403 Forbidden. */
export function findFolder(ctx: ApiContext, need: 'read' | 'write'): FolderRecord {
	const folder = ctx.world.state.folders.get(ctx.params.folderId);
	if (!folder) throw shapeB(404, 'Folder not found');
	if (!canRead(ctx.user, folder.id)) throw shapeB(403, 'You do not have access to this folder');
	if (need === 'write' && !canWrite(ctx.user, folder.id)) throw shapeB(403, 'You do not have write permission on this folder');
	return folder;
}

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/**
 * A project by id, for reading or writing (its folder's access). The public docs: a malformed id is 400
 * ("valid MongoDB ObjectId"), an unknown one 404; shape B like the folder routes.
 */
export function findProject(ctx: ApiContext, projectId: string, need: 'read' | 'write', field = 'projectId'): ProjectRecord {
	if (!OBJECT_ID.test(projectId)) throw shapeB(400, [`${field} must be a mongodb id`], 'Bad Request');
	const project = ctx.world.state.projects.get(projectId);
	if (!project) throw shapeB(404, 'Project not found');
	if (!canRead(ctx.user, project.folderId)) throw shapeB(403, 'You do not have access to this project');
	if (need === 'write' && !canWrite(ctx.user, project.folderId)) throw shapeB(403, 'You do not have write permission on this folder');
	return project;
}

const direction = z.preprocess((value) => (typeof value === 'string' ? value.toLowerCase() : value), z.enum(['asc', 'desc']).default('desc'));

/** The paging fields, the same in both query styles: page, take (1 to 50), orderBy (first = default), orderDirection, search. */
function pagingFields<F extends string>(orderByFields: readonly [F, ...F[]]) {
	return {
		page: queryInt({ min: 1, default: 1 }),
		take: queryInt({ min: 1, max: 50, default: 10 }),
		orderBy: z.enum(orderByFields).default(orderByFields[0] as never),
		orderDirection: direction,
		search: z.string().optional(),
	};
}

/** The nested paging query shared by the orders list and consumption (`pageOptions[...]`). */
export function pageOptionsSchema<F extends string>(orderByFields: readonly [F, ...F[]]) {
	return optionalGroup(z.object(pagingFields(orderByFields)).strict());
}

/** The flat paging query of the folder and project lists (`page`, `take`, `search`, `orderBy`, `orderDirection`); other keys are refused. */
export function flatPagingSchema<F extends string>(orderByFields: readonly [F, ...F[]]) {
	return z.object(pagingFields(orderByFields)).strict();
}

/** One page of a flat-paged list: rows filtered by a case-insensitive partial `search` on the name, sorted and cut. */
export function flatPage<T extends { id: string; name: string }, F extends string, R>(
	rows: T[],
	query: { page: number; take: number; orderBy: F; orderDirection: 'asc' | 'desc'; search?: string },
	sortKey: (row: T, field: F) => Sortable,
	view: (row: T) => R,
): { data: R[]; meta: PageMeta } {
	const search = query.search?.trim();
	const matching = search ? rows.filter((row) => containsIgnoringCase(row.name, search)) : rows;
	sortBy(matching, (row) => sortKey(row, query.orderBy), query.orderDirection);
	const page = paginate(matching, query.page, query.take);
	return { data: page.data.map(view), meta: page.meta };
}

export interface PageMeta {
	page: number;
	take: number;
	itemCount: number;
	pageCount: number;
	hasPreviousPage: boolean;
	hasNextPage: boolean;
}

export function paginate<T>(items: readonly T[], page: number, take: number): { data: T[]; meta: PageMeta } {
	const itemCount = items.length;
	const pageCount = Math.ceil(itemCount / take);
	return {
		data: items.slice((page - 1) * take, page * take),
		meta: { page, take, itemCount, pageCount, hasPreviousPage: page > 1, hasNextPage: page < pageCount },
	};
}

export type Sortable = string | number | boolean | null | undefined;

/** Sorts by one key in either direction; ties fall back to the id in the same direction, so pages are stable. */
export function sortBy<T extends { id: string }>(items: T[], key: (item: T) => Sortable, order: 'asc' | 'desc'): T[] {
	const sign = order === 'asc' ? 1 : -1;
	return items.sort((a, b) => sign * (compare(key(a), key(b)) || compare(a.id, b.id)));
}

function compare(a: Sortable, b: Sortable): number {
	if (a === b) return 0;
	if (a === null || a === undefined) return -1;
	if (b === null || b === undefined) return 1;
	if (typeof a === 'number' && typeof b === 'number') return a - b;
	const x = String(a);
	const y = String(b);
	return x < y ? -1 : x > y ? 1 : 0;
}

export function containsIgnoringCase(haystack: string | null | undefined, needle: string): boolean {
	return (haystack ?? '').toLowerCase().includes(needle.toLowerCase());
}
