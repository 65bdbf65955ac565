import { z } from 'zod';
import { readJsonBody } from '../http/body.cts';
import { shapeB } from '../http/errors.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { validate } from '../http/validation.cts';
import { REVISION_TYPES, type OrderRecord, type RevisionRecord } from '../types.cts';
import { findOrder, json, NO_CONTENT } from './common.cts';

/** The spec's Limits table: "revision window, client revision endpoints, 14 days". */
export const REVISION_WINDOW_DAYS = 14;
const REVISION_WINDOW_MS = REVISION_WINDOW_DAYS * 24 * 60 * 60 * 1000;

export function revisionView(revision: RevisionRecord) {
	return {
		id: revision.id,
		createdAt: revision.createdAt,
		type: revision.type,
		time: revision.time,
		description: revision.description,
		orderId: revision.orderId,
	};
}

const createRevisionBody = z
	.object({
		type: z.enum(REVISION_TYPES),
		time: z.string().regex(/^\d{2}:[0-5]\d:[0-5]\d$/, 'must be a time in the format HH:MM:SS'),
		description: z.string().max(2000).optional(),
	})
	.strict();

/** Revisions are requested on delivered work, within the revision window from the latest delivery. */
function checkRevisable(ctx: ApiContext, order: OrderRecord): void {
	if (order.status !== 'completed' && order.status !== 'delivered') {
		throw shapeB(400, `Revisions can only be requested for completed or delivered orders; this order is ${order.status}`, 'Bad Request');
	}
	const deliveredAt = order.deliveredAt ?? order.createdAt;
	if (ctx.world.clock.nowMillis() - Date.parse(deliveredAt) > REVISION_WINDOW_MS) {
		throw shapeB(
			400,
			`The revision window of ${REVISION_WINDOW_DAYS} days after delivery has passed (delivered ${deliveredAt}); revisions can no longer be requested for this order`,
			'Bad Request',
		);
	}
}

/** POST /integration/revision/:orderId -> 201 revision. */
async function createRevision(ctx: ApiContext): Promise<Reply> {
	const body = validate(createRevisionBody, await readJsonBody(ctx.req));
	const order = findOrder(ctx, 'B', 'write');
	checkRevisable(ctx, order);
	const { world } = ctx;
	const description = body.description?.trim() ? body.description.trim() : null;
	const revision: RevisionRecord = {
		id: world.ids.next(world.clock.nowMillis()),
		orderId: order.id,
		createdAt: world.clock.nowIso(),
		type: body.type,
		time: body.time,
		description,
	};
	world.state.revisions.set(revision.id, revision);
	return json(201, revisionView(revision));
}

/** GET /integration/revision/:orderId -> 200 revision[] (plain array, oldest first). */
function listRevisions(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'B', 'read');
	const rows = [...ctx.world.state.revisions.values()].filter((revision) => revision.orderId === order.id);
	return json(200, rows.map(revisionView));
}

/** DELETE /integration/revision/:orderId/:revisionId -> 204; 400 when the revision belongs to another order. */
function deleteRevision(ctx: ApiContext): Reply {
	const order = findOrder(ctx, 'B', 'write');
	const revision = ctx.world.state.revisions.get(ctx.params.revisionId);
	if (!revision) throw shapeB(404, `Revision ${ctx.params.revisionId} not found`);
	if (revision.orderId !== order.id) throw shapeB(400, `Revision ${revision.id} does not belong to order ${order.id}`, 'Bad Request');
	ctx.world.state.revisions.delete(revision.id);
	return NO_CONTENT;
}

export const revisionRoutes: ApiRoute[] = [
	{ method: 'POST', pattern: '/integration/revision/:orderId', auth: 'C', handler: createRevision },
	{ method: 'GET', pattern: '/integration/revision/:orderId', auth: 'C', handler: listRevisions },
	{ method: 'DELETE', pattern: '/integration/revision/:orderId/:revisionId', auth: 'C', handler: deleteRevision },
];
