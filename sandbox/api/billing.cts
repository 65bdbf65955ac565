import { z } from 'zod';
import { hasBillingRole } from '../auth.cts';
import { walletView } from '../domain/wallet.cts';
import { shapeA } from '../http/errors.cts';
import type { ApiContext, ApiRoute, Reply } from '../http/server.cts';
import { isoDate, optionalGroup, validate } from '../http/validation.cts';
import { type ConsumptionLine, ORDER_TYPES } from '../types.cts';
import { containsIgnoringCase, json, pageOptionsSchema, paginate, sortBy } from './common.cts';

/** Any field of a consumption line can be the sort key (createdBy sorts by name, tags by their joined text). */
const CONSUMPTION_SORT_FIELDS = [
	'id',
	'occurredAt',
	'creditsUsed',
	'usdEquivalent',
	'provider',
	'providerKey',
	'service',
	'orderId',
	'orderName',
	'orderType',
	'projectId',
	'createdBy',
	'tags',
] as const;
type ConsumptionSortField = (typeof CONSUMPTION_SORT_FIELDS)[number];

const consumptionQuery = z
	.object({
		pageOptions: pageOptionsSchema(CONSUMPTION_SORT_FIELDS),
		filter: optionalGroup(
			z.object({
				from: isoDate.optional(),
				to: isoDate.optional(),
				provider: z.string().optional(),
				orderType: z.enum(ORDER_TYPES).optional(),
				createdBy: z.string().optional(),
				tag: z.string().optional(),
				// public notes: order-name contains (case-insensitive) and a single order id
				search: z.string().optional(),
				orderId: z.string().optional(),
			}).strict(),
		),
	})
	.strict();

function sortKey(field: ConsumptionSortField): (line: ConsumptionLine) => string | number {
	if (field === 'createdBy') return (line) => line.createdBy.name;
	if (field === 'tags') return (line) => line.tags.join(',');
	return (line) => line[field];
}

function requireBillingRole(ctx: ApiContext): void {
	if (!hasBillingRole(ctx.user)) {
		throw shapeA(403, 'ACCESS_DENIED', 'This API key needs the client_owner or client_accessBillings role');
	}
}

function listConsumption(ctx: ApiContext): Reply {
	requireBillingRole(ctx);
	const { pageOptions, filter } = validate(consumptionQuery, ctx.query);
	const search = pageOptions.search?.trim().toLowerCase();
	const createdBy = filter.createdBy?.toLowerCase();
	const rows = ctx.world.state.consumption.filter((line) => {
		const at = Date.parse(line.occurredAt);
		if (filter.from !== undefined && at < filter.from) return false;
		if (filter.to !== undefined && at > filter.to) return false;
		if (filter.provider !== undefined && line.providerKey !== filter.provider) return false;
		if (filter.orderType !== undefined && line.orderType !== filter.orderType) return false;
		if (createdBy !== undefined && line.createdBy.id !== filter.createdBy && line.createdBy.email.toLowerCase() !== createdBy) return false;
		if (filter.tag !== undefined && !line.tags.includes(filter.tag)) return false;
		if (filter.search !== undefined && !containsIgnoringCase(line.orderName, filter.search)) return false;
		if (filter.orderId !== undefined && line.orderId !== filter.orderId) return false;
		if (search && !matchesSearch(line, search)) return false;
		return true;
	});
	sortBy(rows, sortKey(pageOptions.orderBy), pageOptions.orderDirection);
	const page = paginate(rows, pageOptions.page, pageOptions.take);
	return json(200, { data: page.data.map((line) => structuredClone(line)), meta: page.meta });
}

/** The free search term: order name and id, provider, service, requestor and tags. */
function matchesSearch(line: ConsumptionLine, term: string): boolean {
	return [line.orderName, line.orderId, line.provider, line.providerKey, line.service, line.createdBy.name, line.createdBy.email, ...line.tags].some((value) =>
		value.toLowerCase().includes(term),
	);
}

function getCredits(ctx: ApiContext): Reply {
	requireBillingRole(ctx);
	return json(200, walletView(ctx.world.state.wallet));
}

export const billingRoutes: ApiRoute[] = [
	{ method: 'GET', pattern: '/integration/consumption', auth: 'A', handler: listConsumption },
	{ method: 'GET', pattern: '/integration/credits', auth: 'A', handler: getCredits },
];
