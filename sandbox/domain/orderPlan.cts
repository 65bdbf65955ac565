import type { OrderRecord, OrderStatus, OrderType, PlanStep, StepKind } from '../types.cts';
import type { World } from '../world.cts';
import { isDubbingType } from './catalog.cts';

/**
 * The plan of an order's life: its steps, their timing and the status each step leaves
 * (the spec shows only the cancel-human-review transition; the rest is ours):
 *   level 0: pending -> ongoing [-> waitingForCC | waitingForSubtitle -> ongoing] -> completed (ai_delivered)
 *            -> delivered (order_delivered) [-> later re-delivery: order_delivered again, status unchanged]
 *   level 1: pending -> ongoing [-> waiting -> ongoing] -> ai_delivered (still ongoing) -> translator assigned
 *            -> qualityCheck (translator_delivered) -> completed (lsp_approved) -> delivered (order_delivered)
 *            [-> re-delivery: translator_delivered and order_delivered again]
 */

/** Minutes from the previous step to each step in 'fixed' progression; 'random' scales them (x0.5 to x2). */
const BASE_MINUTES: Readonly<Record<StepKind, number>> = {
	start: 1,
	waitForInput: 3,
	resume: 5,
	aiDelivered: 10,
	assignTranslator: 5,
	translatorDelivered: 120,
	lspApproved: 30,
	orderDelivered: 15,
	redeliver: 1440,
};

/** Statuses an order reaches by living; the others (revision, delayed, readyToSent) are only seeded. */
export const LIFECYCLE_STATUSES: readonly OrderStatus[] = ['pending', 'ongoing', 'waitingForCC', 'waitingForSubtitle', 'qualityCheck', 'completed', 'delivered'];

/** Subtitles wait for closed captions; dubbing waits for subtitles. */
export function waitingStatusFor(type: OrderType): 'waitingForCC' | 'waitingForSubtitle' | null {
	if (type === 'subtitle') return 'waitingForCC';
	if (isDubbingType(type)) return 'waitingForSubtitle';
	return null;
}

function stepMinutes(world: World, kind: StepKind): number {
	const base = BASE_MINUTES[kind];
	if (world.settings.progression.mode === 'fixed') return base;
	return Math.max(1, Math.round(base * world.rng.life.float(0.5, 2)));
}

export function planOf(world: World, kinds: StepKind[]): PlanStep[] {
	return kinds.map((kind) => ({ kind, afterMinutes: stepMinutes(world, kind) }));
}

export function planLifecycle(world: World, type: OrderType, level: 0 | 1): PlanStep[] {
	return buildPlan(world, type, level, world.rng.life.chance(world.settings.progression.redeliveryProbability));
}

export function buildPlan(world: World, type: OrderType, level: 0 | 1, redeliver: boolean): PlanStep[] {
	const kinds: StepKind[] = ['start'];
	if (waitingStatusFor(type)) kinds.push('waitForInput', 'resume');
	kinds.push('aiDelivered');
	if (level === 1) kinds.push('assignTranslator', 'translatorDelivered', 'lspApproved');
	kinds.push('orderDelivered');
	if (redeliver) kinds.push('redeliver');
	return planOf(world, kinds);
}

/** After a human review is requested (the translator is assigned at once). */
export function reviewPlan(world: World): PlanStep[] {
	return planOf(world, ['translatorDelivered', 'lspApproved', 'orderDelivered']);
}

/** The status an order has right after a step of its plan ran. */
export function statusAfter(order: Pick<OrderRecord, 'type' | 'level'>, kind: StepKind, current: OrderStatus): OrderStatus {
	switch (kind) {
		case 'start':
		case 'resume':
			return 'ongoing';
		case 'waitForInput':
			return waitingStatusFor(order.type) ?? current;
		case 'aiDelivered':
			return order.level === 0 ? 'completed' : 'ongoing';
		case 'translatorDelivered':
			return 'qualityCheck';
		case 'lspApproved':
			return 'completed';
		case 'orderDelivered':
			return 'delivered';
		default:
			return current;
	}
}

/**
 * Minutes after creation at which an order following `plan` sits in the middle of the state reached after
 * step `index` (index -1: still pending). Seeding uses it to back-date fixture orders into a chosen state.
 */
export function minutesToLandAfter(plan: PlanStep[], index: number): number {
	let minutes = 0;
	for (let i = 0; i <= index; i++) minutes += plan[i].afterMinutes;
	const next = plan[index + 1];
	return minutes + (next ? next.afterMinutes / 2 : 60);
}

/** The index of the step after which an order is in `status`, or null when the plan never gets there. */
export function stepIndexReaching(order: Pick<OrderRecord, 'type' | 'level'>, plan: PlanStep[], status: OrderStatus): number | null {
	if (status === 'pending') return -1;
	let current: OrderStatus = 'pending';
	for (let i = 0; i < plan.length; i++) {
		current = statusAfter(order, plan[i].kind, current);
		if (current === status) return i;
	}
	return null;
}
