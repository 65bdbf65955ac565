import type { OrderRecord, StepKind } from '../types.cts';
import type { World } from '../world.cts';
import { cancelPlan, scheduleNext } from './orderLife.cts';
import { planOf, reviewPlan } from './orderPlan.cts';
import { recordLedger, reviewCostCredits, usdToCredits } from './wallet.cts';

/**
 * What a client asks of a live order: human review (request, cancel, assign a translator), cancel, rerun.
 * Each request replaces what remains of the order's plan. Cancel and rerun follow the public docs; the sandbox's reading is in
 * sandbox/README.md.
 */

/** Level 1 from now: charges the human-review portion and assigns a translator at once, then the review steps run. */
export function requestHumanReview(world: World, order: OrderRecord): void {
	order.level = 1;
	order.status = 'ongoing';
	order.translatorId = world.rng.life.pick(world.state.translators).id;
	order.reviewGateEnteredAt = null;
	recordLedger(world, 'humanReview', order.id, reviewCostCredits(order.pricing));
	cancelPlan(order, reviewPlan(world));
	scheduleNext(world, order);
}

/**
 * assign-translator-to-orders: a completed order without a translator goes back to work with the client's chosen
 * translator (ongoing, so unassign-translator can take it back), then follows the review steps: translator
 * delivery (qualityCheck), LSP approval (completed), delivery. The level and the price do not change.
 */
export function assignTranslator(world: World, order: OrderRecord, translatorId: string, deadline: string | null): void {
	order.translatorId = translatorId;
	order.translatorDeadline = deadline;
	order.status = 'ongoing';
	order.reviewGateEnteredAt = null;
	cancelPlan(order, reviewPlan(world));
	scheduleNext(world, order);
}

/** Back to a completed level-0 order, the human-review portion refunded. Returns the refund in credits. */
export function cancelHumanReview(world: World, order: OrderRecord): number {
	const refund = reviewCostCredits(order.pricing);
	order.level = 0;
	order.status = 'completed';
	order.translatorId = null;
	order.reviewGateEnteredAt = null;
	cancelPlan(order);
	recordLedger(world, 'humanReviewRefund', order.id, -refund);
	return refund;
}

/** The AI pipeline of the order's current run has not delivered yet (early ongoing). */
function aiStillRunning(order: OrderRecord): boolean {
	const { plan, next } = order.life;
	if (plan.length === 0) return order.segmentCount === 0;
	return plan.slice(next).some((step) => step.kind === 'aiDelivered');
}

/** Cancel order: only pending orders and ongoing ones whose AI pipeline has not delivered yet. */
export function isCancellable(order: OrderRecord): boolean {
	return order.status === 'pending' || (order.status === 'ongoing' && aiStillRunning(order));
}

/**
 * Cancels the order: status `cancelled`, nothing more runs. A level-1 order gets its human-review portion back
 * (charged when it was created); provider runs already made stay billed. Returns the refund in credits.
 */
export function cancelOrder(world: World, order: OrderRecord): number {
	cancelPlan(order);
	order.status = 'cancelled';
	order.translatorId = null;
	order.reviewGateEnteredAt = null;
	if (order.level !== 1) return 0;
	const refund = reviewCostCredits(order.pricing);
	recordLedger(world, 'orderCancelRefund', order.id, -refund);
	return refund;
}

/** Rerun: completed or delivered orders only. */
export function isRerunnable(order: OrderRecord): boolean {
	return order.status === 'completed' || order.status === 'delivered';
}

/**
 * Reruns the AI pipeline: the order is ongoing again at once, a new ai_delivered event (and fresh output) comes
 * when the pipeline finishes, then a level-1 order goes through its human review again, and the order is delivered
 * again. The AI run is charged (the order's level-0 price) unless `freeReRun`. Returns the credits charged.
 */
export function rerunOrder(world: World, order: OrderRecord, options: { freeReRun: boolean; triggerFullChain: boolean }): number {
	order.reruns.push({ at: world.clock.nowIso(), ...options });
	const kinds: StepKind[] = ['aiDelivered'];
	if (order.level === 1) kinds.push('assignTranslator', 'translatorDelivered', 'lspApproved');
	kinds.push('orderDelivered');
	cancelPlan(order, planOf(world, kinds));
	order.status = 'ongoing';
	order.translatorId = null;
	order.reviewGateEnteredAt = null;
	// The run is charged here, so the pipeline's own billing at ai_delivered adds nothing more.
	const price = usdToCredits(order.pricing.level0Usd);
	order.life.creditsEmitted = price;
	const charged = options.freeReRun ? 0 : price;
	if (charged > 0) recordLedger(world, 'rerun', order.id, charged);
	scheduleNext(world, order);
	return charged;
}
