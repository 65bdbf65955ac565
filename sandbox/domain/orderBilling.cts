import type { OrderPricing, OrderRecord, OrderType, ProjectRecord, UserRecord } from '../types.cts';
import type { World } from '../world.cts';
import { type AiStage, PROVIDERS, RATES, type ProviderRun, stageRuns } from './catalog.cts';
import { creditsToUsd, spendCredits, usdToCredits } from './wallet.cts';

/** What an order costs (by level, rush and size) and the consumption lines it bills as its AI stages run. */

export function priceOrder(type: OrderType, project: ProjectRecord, isRush: boolean): OrderPricing {
	const rate = RATES[type];
	const source = project.source;
	const minutes = source.durationSec !== undefined ? source.durationSec / 60 : (source.wordCount ?? 0) / 150;
	const words = source.wordCount !== undefined ? source.wordCount : Math.round((source.durationSec ?? 0) * 2.5);
	const unitCount = rate.unit === 'minute' ? Math.round(minutes * 100) / 100 : words;
	const rush = isRush ? 1.5 : 1;
	const level0Rate = round(rate.level0 * rush, 4);
	const level1Rate = round(rate.level1 * rush, 4);
	return {
		unit: rate.unit,
		unitCount,
		level0Rate,
		level1Rate,
		level0Usd: Math.max(1, round(level0Rate * unitCount, 2)),
		level1Usd: Math.max(2, round(level1Rate * unitCount, 2)),
	};
}

function round(value: number, digits: number): number {
	const factor = 10 ** digits;
	return Math.round(value * factor) / factor;
}

/** Order summary fields and prices depend on the level. */
export function currentRate(order: OrderRecord): number {
	return order.level === 1 ? order.pricing.level1Rate : order.pricing.level0Rate;
}

export function currentPrice(order: OrderRecord): number {
	return order.level === 1 ? order.pricing.level1Usd : order.pricing.level0Usd;
}

// --- consumption lines, billed as the AI stages run ---

/** Share of the level-0 price billed at each AI stage; aiDelivered bills the rest. */
const STAGE_SHARE: Readonly<Record<Exclude<AiStage, 'aiDelivered'>, number>> = { start: 0.25, resume: 0.1 };

/** Bills an AI stage's share of the level-0 price as provider runs of that stage. */
export function emitStageLines(world: World, order: OrderRecord, stage: AiStage): void {
	const total = usdToCredits(order.pricing.level0Usd);
	const credits =
		stage === 'aiDelivered' ? total - order.life.creditsEmitted : Math.min(total - order.life.creditsEmitted, Math.round(total * STAGE_SHARE[stage]));
	order.life.creditsEmitted += Math.max(0, credits);
	const runs = stageRuns(stage, order.type);
	const first = world.rng.life.int(0, runs.length - 1);
	emitLines(world, order, credits, order.life.linesPerStage, (index) => runs[(first + index) % runs.length]);
}

/** Splits `credits` over `count` provider runs (at least one credit each) and bills them. */
export function emitLines(world: World, order: OrderRecord, credits: number, count: number, runOf: (index: number) => ProviderRun): void {
	if (credits <= 0) return;
	let lines = Math.max(1, Math.min(count, credits));
	if (world.lineBudget !== null) {
		lines = Math.min(lines, world.lineBudget);
		if (lines <= 0) return;
		world.lineBudget -= lines;
	}
	const requestor = world.state.users.get(order.requestorId) as UserRecord;
	const base = Math.floor(credits / lines);
	let remainder = credits - base * lines;
	for (let index = 0; index < lines; index++) {
		const creditsUsed = base + (remainder > 0 ? 1 : 0);
		if (remainder > 0) remainder -= 1;
		addConsumptionLine(world, order, requestor, creditsUsed, runOf(index));
	}
}

/** One provider run: a consumption line and its credits spent (seeding passes `atMs` to back-date it). */
export function addConsumptionLine(
	world: World,
	order: OrderRecord,
	requestor: UserRecord,
	creditsUsed: number,
	[providerKey, service]: ProviderRun,
	atMs = world.clock.nowMillis(),
): void {
	world.state.consumption.push({
		id: world.ids.next(atMs),
		orderId: order.id,
		orderName: order.name,
		createdBy: { id: requestor.id, name: requestor.name, email: requestor.email },
		orderType: order.type,
		creditsUsed,
		usdEquivalent: creditsToUsd(creditsUsed),
		provider: PROVIDERS[providerKey],
		providerKey,
		service,
		tags: [...requestor.tags],
		occurredAt: new Date(atMs).toISOString(),
		projectId: order.projectId,
	});
	spendCredits(world, creditsUsed);
}
