import { AI_ACTOR_ID, appendEvent, createOrder, fastForward, freeze, SYSTEM_ACTOR_ID } from './domain/orderLife.cts';
import { LIFECYCLE_STATUSES } from './domain/orderPlan.cts';
import { projectFor } from './seed.cts';
import {
	type ActorType,
	CREATABLE_ORDER_TYPES,
	type DeliveryEvent,
	type DeliveryEventType,
	type OrderRecord,
	type OrderStatus,
	type OrderType,
	type UserRecord,
} from './types.cts';
import type { ProgressionSettings, World } from './world.cts';

/** Test helpers that drive the simulated service directly (no HTTP). */
export interface SimulatedOrderInput {
	/** Default: one of the creatable types, from the seeded RNG. */
	type?: OrderType;
	/** Default 0 (1 when the status needs it, e.g. qualityCheck). */
	level?: 0 | 1;
	/** Move the new order forward to this status at once (events stamped now); legacy statuses are set and frozen. */
	status?: OrderStatus;
	/** Default: a project of the writable folder whose source fits the type. */
	projectId?: string;
	targetLanguage?: string;
	/** Default: the owner. */
	requestorId?: string;
	/** false: the order does not move with the clock. Default true. */
	progress?: boolean;
}

export interface Simulate {
	createOrders(count: number, input?: SimulatedOrderInput): OrderRecord[];
	/** Appends a delivery event now (a re-delivery: the status does not change). */
	appendDeliveryEvent(orderId: string, type: DeliveryEventType, actorType?: ActorType, actorId?: string): DeliveryEvent;
	/** Moves an existing order forward along its life to `status`. */
	advanceOrderTo(orderId: string, status: OrderStatus): OrderRecord;
	/**
	 * Moves the order's next step not yet scheduled `minutes` later, so the steps after it (its completion) come that
	 * much later: orders created together finish apart. Answers the minutes from creation to each later step.
	 */
	delayOrder(orderId: string, minutes: number): { step: string; afterMinutes: number };
	setSegmentCount(orderId: string, count: number): void;
	setJobFailureRate(probability: number): void;
	setVectorizationFailureRate(probability: number): void;
	setProgression(settings: Partial<ProgressionSettings>): void;
}

const DEFAULT_ACTOR: Readonly<Record<DeliveryEventType, ActorType>> = {
	ai_delivered: 'ai',
	translator_delivered: 'translator',
	lsp_approved: 'lsp',
	order_delivered: 'system',
};

export function createSimulate(world: World): Simulate {
	const orderOf = (orderId: string): OrderRecord => {
		const order = world.state.orders.get(orderId);
		if (!order) throw new Error(`simulate: no order ${orderId}`);
		return order;
	};
	const probability = (name: string, value: number) => {
		if (!(value >= 0 && value <= 1)) throw new RangeError(`simulate: ${name} must be between 0 and 1, got ${value}`);
		return value;
	};
	return {
		createOrders(count, input = {}) {
			const created: OrderRecord[] = [];
			for (let i = 0; i < count; i++) {
				const type = input.type ?? world.rng.life.pick(CREATABLE_ORDER_TYPES);
				const level = input.level ?? (input.status === 'qualityCheck' ? 1 : 0);
				const project = input.projectId
					? world.state.projects.get(input.projectId)
					: projectFor(
							[...world.state.projects.values()].filter((p) => p.folderId === world.fixtures.folders.writable),
							type,
						);
				if (!project) throw new Error(`simulate: no project ${input.projectId}`);
				const requestor = world.state.users.get(input.requestorId ?? world.fixtures.users.owner.id) as UserRecord | undefined;
				if (!requestor) throw new Error(`simulate: no user ${input.requestorId}`);
				const order = createOrder(world, {
					project,
					type,
					level,
					targetLanguage: input.targetLanguage ?? world.rng.life.pick(['fr', 'de', 'es', 'it', 'ja']),
					requestor,
					progress: input.progress,
				});
				if (input.status) {
					if (input.progress === false && LIFECYCLE_STATUSES.includes(input.status)) fastForwardFrozen(world, order, input.status);
					else fastForward(world, order, input.status);
				}
				created.push(order);
			}
			return created;
		},
		appendDeliveryEvent(orderId, type, actorType, actorId) {
			const order = orderOf(orderId);
			const actor = actorType ?? DEFAULT_ACTOR[type];
			const defaultId = actor === 'translator' ? (order.translatorId ?? SYSTEM_ACTOR_ID) : actor === 'lsp' ? world.state.lspManager.id : actor === 'ai' ? AI_ACTOR_ID : SYSTEM_ACTOR_ID;
			appendEvent(world, order, type, actor, actorId === undefined ? defaultId : actorId, true);
			return { ...order.deliveryEvents[order.deliveryEvents.length - 1] };
		},
		advanceOrderTo(orderId, status) {
			const order = orderOf(orderId);
			fastForward(world, order, status);
			return order;
		},
		delayOrder(orderId, minutes) {
			if (!(Number.isFinite(minutes) && minutes > 0)) throw new RangeError(`simulate: delay minutes must be > 0, got ${minutes}`);
			const order = orderOf(orderId);
			// The step at `next` is already scheduled; the one after it is scheduled when it runs, with its afterMinutes.
			const step = order.life.plan[order.life.next + 1];
			if (step === undefined) throw new RangeError(`simulate: order ${orderId} has no step left to delay`);
			step.afterMinutes += minutes;
			return { step: step.kind, afterMinutes: step.afterMinutes };
		},
		setSegmentCount(orderId, count) {
			if (!(Number.isInteger(count) && count >= 0)) throw new RangeError(`simulate: segment count must be an integer >= 0, got ${count}`);
			orderOf(orderId).segmentCount = count;
		},
		setJobFailureRate(value) {
			world.settings.jobFailureRate = probability('jobFailureRate', value);
		},
		setVectorizationFailureRate(value) {
			world.settings.vectorizationFailureRate = probability('vectorizationFailureRate', value);
		},
		setProgression(settings) {
			if (settings.mode !== undefined && settings.mode !== 'fixed' && settings.mode !== 'random') {
				throw new RangeError(`simulate: progression mode must be 'fixed' or 'random', got ${String(settings.mode)}`);
			}
			if (settings.redeliveryProbability !== undefined) probability('redeliveryProbability', settings.redeliveryProbability);
			Object.assign(world.settings.progression, settings);
		},
	};
}

/** Moves a non-progressing order to a status and keeps it there. */
function fastForwardFrozen(world: World, order: OrderRecord, status: OrderStatus): void {
	fastForward(world, order, status);
	freeze(order, status);
}
