import { createHash } from 'node:crypto';
import { z } from 'zod';
import { canRead } from '../auth.cts';
import { createOrder } from '../domain/orderLife.cts';
import { createProject } from '../domain/projects.cts';
import { readJsonBody } from '../http/body.cts';
import { shapeA } from '../http/errors.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { nonEmptyString, validate } from '../http/validation.cts';
import type { FigmaImportRecord, OrderRecord } from '../types.cts';
import { catalogueCode, findFolder, findOrder, json } from './common.cts';

/**
 * Figma orders (public reference §3.12). A request imports the file's texts into a new project (a JSON document
 * named after the file) and creates one level-0 document order per target language: Figma orders are orders, so
 * they live, bill and can be reviewed like any other, and the Order resource reads them too.
 */

/** Statuses after which an order no longer blocks a new Figma order for its file and language. */
const FINISHED = new Set<string>(['completed', 'delivered', 'cancelled']);

/** Figma's file keys are short (22 characters today); a limit keeps a runaway value out of names and lookups. */
const MAX_FILE_KEY_LENGTH = 128;

/** An https URL on figma.com or one of its subdomains (www., not evil.example/figma.com or javascript:...figma.com). */
function isFigmaUrl(value: string): boolean {
	try {
		const url = new URL(value);
		const host = url.hostname.toLowerCase();
		return url.protocol === 'https:' && (host === 'figma.com' || host.endsWith('.figma.com'));
	} catch {
		return false;
	}
}

const createBody = z
	.object({
		fileKey: nonEmptyString.pipe(
			z
				.string()
				.max(MAX_FILE_KEY_LENGTH)
				.regex(/^[A-Za-z0-9_-]+$/, 'must be a Figma file key (the part after /file/ or /design/ in the file URL)'),
		),
		fileUrl: nonEmptyString.pipe(z.string().url().refine(isFigmaUrl, { message: 'must be a Figma file URL (figma.com)' })),
		sourceLanguage: catalogueCode,
		targetLanguages: z
			.array(catalogueCode)
			.min(1)
			.refine((languages) => new Set(languages).size === languages.length, { message: 'must contain unique values' }),
		folderId: z.string().optional(),
	})
	.strict();

const listQuery = z.object({ fileKey: nonEmptyString }).strict();

/** The file's name from its URL (figma.com/design/<key>/<Name>), else one made of the key. */
function fileNameOf(fileUrl: string, fileKey: string): string {
	try {
		const segments = new URL(fileUrl).pathname.split('/').filter(Boolean);
		const index = segments.indexOf(fileKey);
		const name = index >= 0 ? segments[index + 1] : undefined;
		if (name) return decodeURIComponent(name).replace(/[-_]+/g, ' ').trim() || `Figma ${fileKey}`;
	} catch {
		// fileUrl was validated as a URL; nothing to do.
	}
	return `Figma ${fileKey}`;
}

/** Words in the file's texts: stable per file key (the sandbox does not read Figma). */
function wordCountOf(fileKey: string): number {
	return 200 + (createHash('sha256').update(fileKey).digest().readUInt32BE(0) % 4800);
}

function figmaImportOf(ctx: ApiContext, orderId: string): FigmaImportRecord | undefined {
	for (const record of ctx.world.state.figmaImports.values()) if (record.orderIds.includes(orderId)) return record;
	return undefined;
}

/** The review-gate tag of an order in review (qualityCheck), as Figma answers carry it; null otherwise. */
function reviewInfoOf(order: OrderRecord) {
	if (order.status !== 'qualityCheck' || order.reviewGateEnteredAt === null) return null;
	return { teamTagName: 'Quality Check', teamTagColor: '#F5A623', reviewType: 'lspReview' };
}

/** When the order was last completed (level 0: the AI delivery; level 1: the LSP approval); null until done. */
function completedAtOf(order: OrderRecord): string | null {
	if (order.status !== 'completed' && order.status !== 'delivered') return null;
	const completing = order.level === 1 ? 'lsp_approved' : 'ai_delivered';
	const events = order.deliveryEvents.filter((event) => event.type === completing);
	return events.length > 0 ? events[events.length - 1].occurredAt : null;
}

/** POST /integration/orders/figma/create -> 201 { projectId, importId, orders: [{ orderId, targetLanguage, status }] }. */
async function createFigmaOrders(ctx: ApiContext): Promise<Reply> {
	const body = validate(createBody, await readJsonBody(ctx.req));
	const { world } = ctx;
	const folderId = body.folderId === undefined || body.folderId === '' ? world.fixtures.folders.writable : body.folderId;
	const folder = findFolder({ ...ctx, params: { folderId } }, 'write');
	// Nothing is created when any language already has an active order for the file.
	for (const record of world.state.figmaImports.values()) {
		if (record.fileKey !== body.fileKey) continue;
		for (const orderId of record.orderIds) {
			const order = world.state.orders.get(orderId);
			if (order && body.targetLanguages.includes(order.targetLanguage) && !FINISHED.has(order.status)) {
				throw shapeA(
					409,
					'FIGMA_ORDER_EXISTS',
					`An active Figma order for file ${body.fileKey} and language ${order.targetLanguage} already exists (order ${order.id}, ${order.status})`,
				);
			}
		}
	}
	const project = createProject(
		world,
		{ name: fileNameOf(body.fileUrl, body.fileKey), folderId: folder.id, sourceLanguage: body.sourceLanguage, fileName: `${body.fileKey}.json`, size: 0 },
		{ wordCount: wordCountOf(body.fileKey) },
	);
	const orders = body.targetLanguages.map((targetLanguage) =>
		createOrder(world, { project, type: 'document', level: 0, targetLanguage, requestor: ctx.user }),
	);
	const record: FigmaImportRecord = {
		importId: world.ids.next(world.clock.nowMillis()),
		fileKey: body.fileKey,
		fileUrl: body.fileUrl,
		projectId: project.id,
		orderIds: orders.map((order) => order.id),
		createdAt: world.clock.nowIso(),
	};
	world.state.figmaImports.set(record.importId, record);
	return json(201, {
		projectId: project.id,
		importId: record.importId,
		orders: orders.map((order) => ({ orderId: order.id, targetLanguage: order.targetLanguage, status: order.status })),
	});
}

/** GET /integration/orders/figma?fileKey= -> the file's orders the key may read, newest first. */
function listFigmaOrders(ctx: ApiContext): Reply {
	const { fileKey } = validate(listQuery, ctx.query);
	const orders: OrderRecord[] = [];
	for (const record of ctx.world.state.figmaImports.values()) {
		if (record.fileKey !== fileKey) continue;
		for (const orderId of record.orderIds) {
			const order = ctx.world.state.orders.get(orderId);
			if (order && canRead(ctx.user, order.folderId)) orders.push(order);
		}
	}
	orders.sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1));
	return json(
		200,
		orders.map((order) => ({
			id: order.id,
			status: order.status,
			targetLanguage: order.targetLanguage,
			createdAt: order.createdAt,
			orderName: order.name,
			reviewInfo: reviewInfoOf(order),
		})),
	);
}

/** GET /integration/orders/figma/{orderId}/status: 404 for an order that is not a Figma order. */
function getFigmaOrderStatus(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'A', 'read');
	const record = figmaImportOf(ctx, order.id);
	if (!record) throw shapeA(404, 'ORDER_NOT_FOUND', `Order ${order.id} is not a Figma order`);
	return json(200, {
		orderId: order.id,
		status: order.status,
		targetLanguage: order.targetLanguage,
		orderName: order.name,
		createdAt: order.createdAt,
		completedAt: completedAtOf(order),
		reviewInfo: reviewInfoOf(order),
		fileKey: record.fileKey,
		projectId: record.projectId,
		importId: record.importId,
	});
}

/** Listed before the order routes, so that /integration/orders/figma is never read as an order id. */
export const figmaRoutes: ApiRoute[] = [
	{ method: 'POST', pattern: '/integration/orders/figma/create', auth: 'A', handler: createFigmaOrders },
	{ method: 'GET', pattern: '/integration/orders/figma', auth: 'A', handler: listFigmaOrders },
	{ method: 'GET', pattern: '/integration/orders/figma/:orderId/status', auth: 'A', handler: getFigmaOrderStatus },
];
