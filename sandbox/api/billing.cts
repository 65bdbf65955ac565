import { z } from 'zod';
import { hasBillingRole } from '../auth.cts';
import { walletView } from '../domain/wallet.cts';
import { growAfterPage } from '../growth.cts';
import { afterListingPage } from '../pageHooks.cts';
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

type ConsumptionQuery = z.infer<typeof consumptionQuery>;

/** Every line the query's filters and search keep, sorted as it asks. */
function consumptionView(lines: readonly ConsumptionLine[], { pageOptions, filter }: ConsumptionQuery): ConsumptionLine[] {
	const search = pageOptions.search?.trim().toLowerCase();
	const createdBy = filter.createdBy?.toLowerCase();
	const rows = lines.filter((line) => {
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
	return sortBy(rows, sortKey(pageOptions.orderBy), pageOptions.orderDirection);
}

/** The views built for one list of lines, valid while the list has the same length and ends. */
interface ViewCache {
	length: number;
	firstId: string | undefined;
	lastId: string | undefined;
	views: Map<string, ConsumptionLine[]>;
}

/** Distinct queries kept per list; more is a test sweeping filters, where keeping them all buys nothing. */
const MAX_CACHED_VIEWS = 64;
const viewCaches = new WeakMap<readonly ConsumptionLine[], ViewCache>();

/**
 * A real service answers a page from an index; filtering and sorting every line for every page would make each
 * page cost O(all lines). So the view of each (filters, search, sort) is kept until the lines change: lines are
 * only ever appended once seeded (or sorted while seeding), which changes the list's length or its ends.
 */
/** Drops the views of a list whose lines were removed or changed in place (sandbox/listingEdits.cts). */
export function forgetConsumptionViews(lines: readonly ConsumptionLine[]): void {
	viewCaches.delete(lines);
}

function cachedConsumptionView(lines: readonly ConsumptionLine[], query: ConsumptionQuery): ConsumptionLine[] {
	const firstId = lines[0]?.id;
	const lastId = lines.at(-1)?.id;
	let cache = viewCaches.get(lines);
	if (cache === undefined || cache.length !== lines.length || cache.firstId !== firstId || cache.lastId !== lastId) {
		cache = { length: lines.length, firstId, lastId, views: new Map() };
		viewCaches.set(lines, cache);
	}
	const { page: _page, take: _take, ...shape } = query.pageOptions;
	const key = JSON.stringify([shape, query.filter]);
	let view = cache.views.get(key);
	if (view === undefined) {
		view = consumptionView(lines, query);
		if (cache.views.size >= MAX_CACHED_VIEWS) cache.views.clear();
		cache.views.set(key, view);
	}
	return view;
}

function listConsumption(ctx: ApiContext): Reply {
	requireBillingRole(ctx);
	const query = validate(consumptionQuery, ctx.query);
	const view = cachedConsumptionView(ctx.world.state.consumption, query);
	const page = paginate(view, query.pageOptions.page, query.pageOptions.take);
	const reply = json(200, { data: page.data.map((line) => structuredClone(line)), meta: page.meta });
	growAfterPage(ctx.world, 'consumption');
	afterListingPage(ctx.world, 'consumption');
	return reply;
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
