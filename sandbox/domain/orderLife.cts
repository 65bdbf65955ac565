import type { ActorType, DeliveryEventType, OrderRecord, OrderStatus, OrderType, PlanStep, ProjectRecord, StepKind, UserRecord } from '../types.cts';
import type { World } from '../world.cts';
import { emitStageLines, priceOrder } from './orderBilling.cts';
import { deliverAiOutput, guidanceDocOf, sourceDocOf, touchOutputDocs } from './orderDocs.cts';
import { evaluationOf } from './orderEvaluations.cts';
import { LIFECYCLE_STATUSES, planLifecycle, statusAfter, stepIndexReaching } from './orderPlan.cts';
import { recordLedger, reviewCostCredits } from './wallet.cts';

/**
 * An order living its plan (orderPlan.cts): creation, the steps as they run, delivery events, and moving an order
 * at once (fastForward, freeze). Each step is scheduled on the clock when the previous one ran, so the clock's queue
 * holds one task per live order.
 */

export interface NewOrder {
	project: ProjectRecord;
	type: OrderType;
	level: 0 | 1;
	targetLanguage: string;
	requestor: UserRecord;
	isRush?: boolean;
	orderSubType?: string | null;
	dubbingStyle?: string | null;
	autoQc?: boolean;
	callbackUrl?: string | null;
	selectedMemories?: string[];
	/** A plan drawn earlier (seeding back-dates orders from it); default: a fresh plan. */
	plan?: PlanStep[];
	/** Provider runs billed per AI stage (seeding raises it to reach the volume's consumption lines). */
	linesPerStage?: number;
	logsEvents?: boolean;
	/** false: the order stays where it is until a test moves it. */
	progress?: boolean;
}

export function createOrder(world: World, input: NewOrder): OrderRecord {
	const now = world.clock.nowIso();
	const id = world.ids.next(world.clock.nowMillis());
	const { project } = input;
	const pricing = priceOrder(input.type, project, input.isRush ?? false);
	const order: OrderRecord = {
		id,
		createdAt: now,
		name: `${project.name} - ${input.targetLanguage.toUpperCase()}`,
		sourceLanguage: project.sourceLanguage,
		targetLanguage: input.targetLanguage,
		type: input.type,
		status: 'pending',
		level: input.level,
		projectId: project.id,
		folderId: project.folderId,
		vttUrl: null,
		orderDocs: [sourceDocOf(world, project, id), ...project.docs.map((copy) => guidanceDocOf(world, project, copy))],
		latestEvaluation: null,
		deliveryEvents: [],
		pricing,
		requestorId: input.requestor.id,
		translatorId: null,
		segmentCount: 0,
		logsEvents: input.logsEvents ?? true,
		reviewGateEnteredAt: null,
		options: {
			isRush: input.isRush ?? false,
			orderSubType: input.orderSubType ?? null,
			dubbingStyle: input.dubbingStyle ?? null,
			autoQc: input.autoQc ?? false,
			callbackUrl: input.callbackUrl ?? null,
			selectedMemories: input.selectedMemories ?? [],
		},
		subtitleEmbedding: null,
		deliveredAt: null,
		connectedOrderIds: [],
		reruns: [],
		life: {
			plan: input.plan ?? planLifecycle(world, input.type, input.level),
			next: 0,
			generation: 0,
			linesPerStage: input.linesPerStage ?? 1,
			creditsEmitted: 0,
		},
	};
	world.state.orders.set(id, order);
	// A level-1 order is charged its human-review portion up front; cancelling refunds exactly that.
	if (order.level === 1) recordLedger(world, 'levelOneOrder', id, reviewCostCredits(pricing));
	if (input.progress !== false) scheduleNext(world, order);
	return order;
}

/** Schedules the plan's next step; a step scheduled before the plan was replaced (new generation) does nothing. */
export function scheduleNext(world: World, order: OrderRecord): void {
	const step = order.life.plan[order.life.next];
	if (!step) return;
	const generation = order.life.generation;
	world.clock.scheduleIn(step.afterMinutes, () => {
		if (order.life.generation !== generation) return;
		runNextStep(world, order);
		scheduleNext(world, order);
	});
}

function runNextStep(world: World, order: OrderRecord): void {
	const step = order.life.plan[order.life.next];
	const wasCompleted = order.status === 'completed';
	if (applyStep(world, order, step.kind)) order.life.next += 1;
	// The order-completion callback, once the step has written everything Get Order shows.
	if (order.status === 'completed' && !wasCompleted) world.callbacks?.orderCompleted(order);
}

/** Stops whatever is scheduled for the order and puts `plan` (default: none) in its place. */
export function cancelPlan(order: OrderRecord, plan: PlanStep[] = []): void {
	order.life.generation += 1;
	order.life.plan = plan;
	order.life.next = 0;
}

/** Applies one step. Returns false when the step must be tried again later (delivery without a translator). */
function applyStep(world: World, order: OrderRecord, kind: StepKind): boolean {
	switch (kind) {
		case 'start':
			order.status = 'ongoing';
			emitStageLines(world, order, 'start');
			return true;
		case 'waitForInput':
			order.status = statusAfter(order, kind, order.status);
			return true;
		case 'resume':
			order.status = 'ongoing';
			emitStageLines(world, order, 'resume');
			return true;
		case 'aiDelivered':
			deliverAiOutput(world, order);
			emitStageLines(world, order, 'aiDelivered');
			appendEvent(world, order, 'ai_delivered', 'ai', AI_ACTOR_ID);
			order.status = statusAfter(order, kind, order.status);
			if (order.status === 'completed') order.deliveredAt = world.clock.nowIso();
			if (order.options.autoQc) order.latestEvaluation = evaluationOf(world, order, false);
			return true;
		case 'assignTranslator':
			order.translatorId = world.rng.life.pick(world.state.translators).id;
			return true;
		case 'translatorDelivered':
			if (!order.translatorId) {
				// Unassigned meanwhile: the LSP assigns someone new, whose delivery comes a full stage later.
				order.translatorId = world.rng.life.pick(world.state.translators).id;
				return false;
			}
			appendEvent(world, order, 'translator_delivered', 'translator', order.translatorId ?? SYSTEM_ACTOR_ID);
			touchOutputDocs(world, order);
			order.status = 'qualityCheck';
			order.reviewGateEnteredAt = world.clock.nowIso();
			order.latestEvaluation = evaluationOf(world, order, true);
			return true;
		case 'lspApproved':
			appendEvent(world, order, 'lsp_approved', 'lsp', world.state.lspManager.id);
			order.status = 'completed';
			order.deliveredAt = world.clock.nowIso();
			order.reviewGateEnteredAt = null;
			order.latestEvaluation = evaluationOf(world, order, false);
			return true;
		case 'orderDelivered':
			appendEvent(world, order, 'order_delivered', 'system', SYSTEM_ACTOR_ID);
			order.status = 'delivered';
			order.deliveredAt = world.clock.nowIso();
			return true;
		case 'redeliver':
			if (order.level === 1) appendEvent(world, order, 'translator_delivered', 'translator', order.translatorId ?? SYSTEM_ACTOR_ID);
			appendEvent(world, order, 'order_delivered', 'system', SYSTEM_ACTOR_ID);
			order.deliveredAt = world.clock.nowIso();
			return true;
	}
}

/** The spec types actorId as a string: the AI pipeline and the system have ids of their own. */
export const AI_ACTOR_ID = 'ollang-ai-pipeline';
export const SYSTEM_ACTOR_ID = 'ollang-system';

/** Logs a delivery event unless the order logs none; `force` logs it anyway (events a test appends on purpose). */
export function appendEvent(
	world: World,
	order: OrderRecord,
	type: DeliveryEventType,
	actorType: ActorType,
	actorId: string,
	force = false,
): void {
	if (!order.logsEvents && !force) return;
	order.deliveryEvents.push({ type, occurredAt: world.clock.nowIso(), actorType, actorId });
}

/** Runs the order's plan at once (events stamped now) until it reaches `status`; other statuses are set directly. */
export function fastForward(world: World, order: OrderRecord, status: OrderStatus): void {
	if (order.status === status) return;
	if (!LIFECYCLE_STATUSES.includes(status)) {
		freeze(order, status);
		return;
	}
	const target = stepIndexReaching(order, order.life.plan, status);
	if (target === null || target < order.life.next - 1) {
		throw new Error(`order ${order.id} (${order.type}, level ${order.level}) cannot move forward to ${status}`);
	}
	order.life.generation += 1;
	while (order.life.next <= target) runNextStep(world, order);
	scheduleNext(world, order);
}

/** Puts an order in a status the simulated life never reaches (revision, delayed, readyToSent) and stops it there. */
export function freeze(order: OrderRecord, status: OrderStatus): void {
	cancelPlan(order);
	order.status = status;
}
