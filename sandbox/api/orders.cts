import { z } from 'zod';
import { canRead, canWrite } from '../auth.cts';
import { isDubbingType } from '../domain/catalog.cts';
import { currentPrice, currentRate } from '../domain/orderBilling.cts';
import { requestSubtitleEmbedding } from '../domain/orderDocs.cts';
import { startQcEvaluation } from '../domain/orderEvaluations.cts';
import { createOrder } from '../domain/orderLife.cts';
import { cancelHumanReview, cancelOrder, isCancellable, isRerunnable, requestHumanReview, rerunOrder } from '../domain/orderRequests.cts';
import { generateSegments, writeSegmentsXlsx } from '../domain/segments.cts';
import { creditsToUsd } from '../domain/wallet.cts';
import { growAfterPage } from '../growth.cts';
import { afterListingPage } from '../pageHooks.cts';
import { readJsonBody } from '../http/body.cts';
import { shapeA, shapeB } from '../http/errors.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { callbackUrl, isoDate, optionalGroup, nonEmptyString, oneOrMany, validate } from '../http/validation.cts';
import { CREATABLE_ORDER_TYPES, LISTED_ORDER_STATUSES, ORDER_TYPES, type OrderRecord, type OrderType } from '../types.cts';
import { catalogueCode, containsIgnoringCase, findOrder, json, NO_CONTENT, pageOptionsSchema, paginate, sortBy } from './common.cts';

/** Get order: the spec's Order object (vttUrl and latestEvaluation only when present); `sign` makes the file links. */
export function orderView(order: OrderRecord, sign: (url: string) => string = (url) => url) {
	return {
		id: order.id,
		createdAt: order.createdAt,
		name: order.name,
		sourceLanguage: order.sourceLanguage,
		targetLanguage: order.targetLanguage,
		type: order.type,
		status: order.status,
		rate: currentRate(order),
		projectId: order.projectId,
		level: order.level,
		folderId: order.folderId,
		...(order.vttUrl ? { vttUrl: sign(order.vttUrl) } : {}),
		orderDocs: order.orderDocs.map((doc) => ({ ...doc, url: sign(doc.url) })),
		finance: { paymentAmount: currentPrice(order) },
		...(order.latestEvaluation ? { latestEvaluation: structuredClone(order.latestEvaluation) } : {}),
		deliveryEvents: order.deliveryEvents.map((event) => ({ ...event })),
	};
}

/** List rows are summaries (public notes); events, docs, finance and evaluation come from Get order only. */
export function orderSummary(order: OrderRecord) {
	return {
		id: order.id,
		name: order.name,
		sourceLanguage: order.sourceLanguage,
		targetLanguage: order.targetLanguage,
		status: order.status,
		type: order.type,
		level: order.level,
		createdAt: order.createdAt,
		projectId: order.projectId,
		folderId: order.folderId,
	};
}

const listOrdersQuery = z
	.object({
		pageOptions: pageOptionsSchema(['id', 'createdAt', 'name', 'status']),
		filter: optionalGroup(
			z.object({
				type: z.enum(ORDER_TYPES).optional(),
				name: z.string().optional(),
				status: oneOrMany(LISTED_ORDER_STATUSES).optional(),
				statuses: oneOrMany(LISTED_ORDER_STATUSES).optional(),
				projectId: z.string().optional(),
				createdAtRange: z.object({ from: isoDate.optional(), to: isoDate.optional() }).strict().optional(),
			}).strict(),
		),
	})
	.strict();

function listOrders(ctx: ApiContext): Reply {
	const { pageOptions, filter } = validate(listOrdersQuery, ctx.query);
	const statuses = [...(filter.status ?? []), ...(filter.statuses ?? [])];
	const from = filter.createdAtRange?.from;
	const to = filter.createdAtRange?.to;
	const search = pageOptions.search?.trim();
	const rows = [...ctx.world.state.orders.values()].filter((order) => {
		if (!canRead(ctx.user, order.folderId)) return false;
		if (filter.type && order.type !== filter.type) return false;
		if (filter.name && !containsIgnoringCase(order.name, filter.name)) return false;
		if (statuses.length > 0 && !statuses.includes(order.status)) return false;
		if (filter.projectId && order.projectId !== filter.projectId) return false;
		const created = Date.parse(order.createdAt);
		if (from !== undefined && created < from) return false;
		if (to !== undefined && created > to) return false;
		if (search && !(containsIgnoringCase(order.name, search) || order.id === search)) return false;
		return true;
	});
	const field = pageOptions.orderBy;
	sortBy(rows, (order) => order[field], pageOptions.orderDirection);
	const page = paginate(rows, pageOptions.page, pageOptions.take);
	const reply = json(200, { data: page.data.map(orderSummary), meta: page.meta });
	growAfterPage(ctx.world, 'orders');
	afterListingPage(ctx.world, 'orders');
	return reply;
}

/** Both variants of a body schema whose callbackUrl depends on the sandbox's allowLoopbackCallbacks option. */
function byLoopback<T>(build: (allowLoopback: boolean) => T): (ctx: ApiContext) => T {
	const variants = [build(false), build(true)];
	return (ctx) => variants[ctx.world.callbacks?.settings.allowLoopback ? 1 : 0];
}

const createOrderBody = byLoopback((allowLoopback) =>
	z.object({
		orderType: z.enum(CREATABLE_ORDER_TYPES),
		level: z.number().int().refine((value) => value === 0 || value === 1, { message: 'must be one of the following values: 0, 1' }),
		projectId: nonEmptyString,
		targetLanguageConfigs: z.array(z.object({ language: catalogueCode, isRush: z.boolean().optional() }).strict()).min(1),
		orderSubType: z.enum(['closedCaption', 'timecodedTranscription']).optional(),
		dubbingStyle: z.enum(['overdub', 'lipsync', 'audioDescription']).optional(),
		callbackUrl: callbackUrl(['http', 'https'], allowLoopback).optional(),
		autoQc: z.boolean().optional(),
		selectedMemories: z.array(nonEmptyString).max(20).optional(),
	})
	.strict(),
);

/** POST /integration/orders/create -> 201 [{ orderId, orderType }], one per target language; dubbing also creates its subtitle order. */
async function createOrders(ctx: ApiContext): Promise<Reply> {
	const body = validate(createOrderBody(ctx), await readJsonBody(ctx.req));
	const { world } = ctx;
	const project = world.state.projects.get(body.projectId);
	const problems: string[] = [];
	if (!project) problems.push('projectId must reference an existing project');
	(body.selectedMemories ?? []).forEach((memoryId, index) => {
		if (!world.state.memories.has(memoryId)) problems.push(`selectedMemories.${index} must reference an existing translation memory`);
	});
	if (body.orderSubType && body.orderType !== 'cc') problems.push('orderSubType is only allowed for cc orders');
	if (body.dubbingStyle && !isDubbingType(body.orderType)) problems.push('dubbingStyle is only allowed for aiDubbing and studioDubbing orders');
	if (problems.length > 0 || !project) throw shapeB(400, problems, 'Bad Request');
	if (!canWrite(ctx.user, project.folderId)) throw shapeA(403, 'ACCESS_DENIED', 'You do not have permission to create orders in this project');

	const created: Array<{ orderId: string; orderType: OrderType }> = [];
	for (const config of body.targetLanguageConfigs) {
		const types: OrderType[] = isDubbingType(body.orderType) ? [body.orderType, 'subtitle'] : [body.orderType];
		const chain: OrderRecord[] = [];
		for (const type of types) {
			const order = createOrder(world, {
				project,
				type,
				level: body.level as 0 | 1,
				targetLanguage: config.language,
				requestor: ctx.user,
				isRush: config.isRush,
				orderSubType: body.orderSubType,
				dubbingStyle: type === body.orderType ? body.dubbingStyle : undefined,
				autoQc: body.autoQc,
				callbackUrl: body.callbackUrl,
				selectedMemories: body.selectedMemories,
			});
			created.push({ orderId: order.id, orderType: order.type });
			chain.push(order);
		}
		// A dubbing order and the subtitle order it waits on form a chain (rerun's triggerFullChain).
		for (const order of chain) order.connectedOrderIds = chain.filter((other) => other !== order).map((other) => other.id);
	}
	return json(201, created);
}

function getOrder(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'A', 'read');
	// Links signed as the order is read, as the real API signs them: each read hands out fresh ones.
	return json(200, orderView(order, ctx.world.storage?.signerForRead()));
}

/** 204; only level-0 orders in completed or delivered. The review cost is charged to the wallet. */
function postHumanReview(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'A', 'write');
	if (order.status !== 'completed' && order.status !== 'delivered') {
		throw shapeA(400, 'ORDER_NOT_ELIGIBLE', `Human review can only be requested for completed or delivered orders; this order is ${order.status}`);
	}
	if (order.level !== 0) throw shapeA(400, 'ORDER_NOT_ELIGIBLE', 'This order already includes human review (level 1)');
	requestHumanReview(ctx.world, order);
	return NO_CONTENT;
}

/** 200 { success, message, orderId }; shape B errors (spec's Errors table). */
function postCancelHumanReview(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'B', 'write');
	if (order.level !== 1) throw shapeB(400, 'Order is not Level 1: there is no human review to cancel');
	if (order.status !== 'ongoing') throw shapeB(400, `Order is no longer in progress (status ${order.status}); human review can no longer be cancelled`);
	const refunded = cancelHumanReview(ctx.world, order);
	return json(200, { success: true, message: `Human review cancelled; ${creditsToUsd(refunded)} USD refunded to the credit balance`, orderId: order.id });
}

/** Public notes: 200 { success, message, orderId }; 400 unless a completed video order with subtitles. */
function postSubtitleEmbedding(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'A', 'write');
	const hasSubtitles = order.vttUrl !== null && (order.type === 'subtitle' || order.type === 'cc');
	const video = order.orderDocs[0]?.type === 'sourceVideo';
	if (!hasSubtitles || !video || (order.status !== 'completed' && order.status !== 'delivered')) {
		throw shapeB(400, 'Subtitle embedding needs a completed video order with subtitles');
	}
	requestSubtitleEmbedding(ctx.world, order);
	return json(200, { success: true, message: 'Subtitle embedding requested; the embedded video will be added to the order documents', orderId: order.id });
}

/**
 * Cancel order (public docs): 204; only pending orders and ongoing ones whose AI pipeline has not delivered
 * ("early ongoing"). 409 once cancelled, 400 otherwise. Shape A like the other order actions.
 */
function postCancelOrder(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'A', 'write');
	if (order.status === 'cancelled') throw shapeA(409, 'ORDER_ALREADY_CANCELLED', `Order ${order.id} is already cancelled`);
	if (!isCancellable(order)) {
		throw shapeA(
			400,
			'ORDER_NOT_ELIGIBLE',
			`Only pending orders and ongoing orders whose AI processing has not finished can be cancelled; this order is ${order.status}` +
				(order.status === 'ongoing' ? ' and its AI output is already delivered' : ''),
		);
	}
	cancelOrder(ctx.world, order);
	return NO_CONTENT;
}

const rerunBody = z.object({ freeReRun: z.boolean().optional(), triggerFullChain: z.boolean().optional() }).strict();

/**
 * Rerun (public docs): 200 { success, message, orderId } (+ triggerFullChain, triggeredOrderIds when the chain was
 * asked for); completed or delivered orders only (400 ORDER_NOT_ELIGIBLE).
 */
async function postRerun(ctx: ApiContext): Promise<Reply> {
	const body = validate(rerunBody, await readJsonBody(ctx.req));
	const order = findOrder(ctx, 'A', 'write');
	if (!isRerunnable(order)) {
		throw shapeA(400, 'ORDER_NOT_ELIGIBLE', `Only completed or delivered orders can be rerun; this order is ${order.status}`);
	}
	const options = { freeReRun: body.freeReRun ?? false, triggerFullChain: body.triggerFullChain ?? false };
	const triggered = [order];
	if (options.triggerFullChain) {
		for (const id of order.connectedOrderIds) {
			const other = ctx.world.state.orders.get(id);
			if (other && isRerunnable(other) && canWrite(ctx.user, other.folderId)) triggered.push(other);
		}
	}
	for (const each of triggered) rerunOrder(ctx.world, each, options);
	return json(200, {
		success: true,
		message: 'Order rerun initiated successfully',
		orderId: order.id,
		...(options.triggerFullChain ? { triggerFullChain: true, triggeredOrderIds: triggered.map((each) => each.id) } : {}),
	});
}

const qcBody = byLoopback((allowLoopback) =>
	z.object({
		accuracy: z.boolean().optional(),
		fluency: z.boolean().optional(),
		tone: z.boolean().optional(),
		culturalFit: z.boolean().optional(),
		customPrompt: z.string().max(4000).optional(),
		callbackUrl: callbackUrl(['https'], allowLoopback).optional(),
	})
	.strict(),
);

/**
 * Run QC evaluation (public docs): 200 { success, message, evalId, creditsUsed, isProcessing: true }; completed or
 * delivered orders only. The result appears in the order's latestEvaluation a few simulated minutes later.
 */
async function postQc(ctx: ApiContext): Promise<Reply> {
	const body = validate(qcBody(ctx), await readJsonBody(ctx.req));
	const criteria = { accuracy: body.accuracy ?? true, fluency: body.fluency ?? true, tone: body.tone ?? true, culturalFit: body.culturalFit ?? true };
	if (!Object.values(criteria).some(Boolean)) throw shapeB(400, ['at least one of accuracy, fluency, tone, culturalFit must be true'], 'Bad Request');
	const order = findOrder(ctx, 'A', 'write');
	if (order.status !== 'completed' && order.status !== 'delivered') {
		throw shapeA(400, 'ORDER_NOT_ELIGIBLE', `QC evaluation can only be run on completed or delivered orders; this order is ${order.status}`);
	}
	const customPrompt = body.customPrompt?.trim() ? body.customPrompt.trim() : null;
	const { evalId, creditsUsed } = startQcEvaluation(ctx.world, order, criteria, customPrompt, body.callbackUrl ?? null);
	return json(200, { success: true, message: "QC evaluation started. You will be notified when it's completed.", evalId, creditsUsed, isProcessing: true });
}

/** Review-gate info, served at the spec's path and the SDK's, same answer. */
function getReviewInfo(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'A', 'read');
	const inReview = order.status === 'qualityCheck' && order.reviewGateEnteredAt !== null;
	const reviewer = ctx.world.state.lspManager;
	return json(200, {
		inReview,
		tagName: inReview ? 'Quality Check' : null,
		reviewType: inReview ? 'lspReview' : null,
		tagColor: inReview ? '#F5A623' : null,
		enteredReviewAt: inReview ? order.reviewGateEnteredAt : null,
		reviewers: inReview ? [{ id: reviewer.id, name: reviewer.name, email: reviewer.email }] : [],
	});
}

function exportXlsx(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'A', 'read');
	if (order.segmentCount === 0) {
		throw shapeB(500, `No segment data found for order ${order.id} and target language ${order.targetLanguage}`);
	}
	const fileName = `${order.name}_${order.targetLanguage}.xlsx`;
	return {
		status: 200,
		headers: {
			'content-type': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
			'content-disposition': contentDisposition(fileName),
		},
		stream: (out) => writeSegmentsXlsx(out, order.targetLanguage, generateSegments(ctx.world.seed, order.id, order.segmentCount)),
	};
}

/** A quoted ASCII filename plus the exact UTF-8 one (RFC 6266), so any order name survives. */
export function contentDisposition(fileName: string): string {
	const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
	return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export const orderRoutes: ApiRoute[] = [
	{ method: 'GET', pattern: '/integration/orders', auth: 'A', handler: listOrders },
	{ method: 'POST', pattern: '/integration/orders/create', auth: 'A', handler: createOrders },
	{ method: 'GET', pattern: '/integration/orders/:orderId', auth: 'A', handler: getOrder },
	{ method: 'POST', pattern: '/integration/orders/:orderId/human-review', auth: 'A', handler: postHumanReview },
	{ method: 'POST', pattern: '/integration/orders/:orderId/cancel-human-review', auth: 'A', handler: postCancelHumanReview },
	{ method: 'POST', pattern: '/integration/orders/:orderId/subtitle-embedding', auth: 'A', handler: postSubtitleEmbedding },
	{ method: 'GET', pattern: '/integration/orders/:orderId/export-xlsx', auth: 'A', handler: exportXlsx },
	{ method: 'POST', pattern: '/integration/orders/cancel/:orderId', auth: 'A', handler: postCancelOrder },
	{ method: 'POST', pattern: '/integration/orders/:orderId/rerun', auth: 'A', handler: postRerun },
	{ method: 'POST', pattern: '/integration/orders/:orderId/qc', auth: 'A', handler: postQc },
	{ method: 'GET', pattern: '/integration/orders/:orderId/review/info', auth: 'A', handler: getReviewInfo },
	{ method: 'GET', pattern: '/v1/api/client/orders/:orderId/review/info', auth: 'A', handler: getReviewInfo },
];
