import type {
	ActorType,
	DeliveryEventType,
	Evaluation,
	OrderDoc,
	OrderPricing,
	OrderRecord,
	OrderStatus,
	OrderType,
	PlanStep,
	ProjectRecord,
	StepKind,
	UserRecord,
} from '../types.cts';
import type { World } from '../world.cts';
import { type AiStage, isDubbingType, isMediaType, PROVIDERS, RATES, type ProviderRun, stageRuns } from './catalog.cts';
import { recordLedger, reviewCostCredits, spendCredits, usdToCredits } from './wallet.cts';

/**
 * The life of an order (the spec shows only the cancel-human-review transition; the rest is ours):
 *   level 0: pending -> ongoing [-> waitingForCC | waitingForSubtitle -> ongoing] -> completed (ai_delivered)
 *            -> delivered (order_delivered) [-> later re-delivery: order_delivered again, status unchanged]
 *   level 1: pending -> ongoing [-> waiting -> ongoing] -> ai_delivered (still ongoing) -> translator assigned
 *            -> qualityCheck (translator_delivered) -> completed (lsp_approved) -> delivered (order_delivered)
 *            [-> re-delivery: translator_delivered and order_delivered again]
 * Each step is scheduled on the clock when the previous one ran, so the clock's queue holds one task per live order.
 */

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

/** Share of the level-0 price billed at each AI stage; aiDelivered bills the rest. */
const STAGE_SHARE: Readonly<Record<Exclude<AiStage, 'aiDelivered'>, number>> = { start: 0.25, resume: 0.1 };

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

function planOf(world: World, kinds: StepKind[]): PlanStep[] {
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
function reviewPlan(world: World): PlanStep[] {
	return planOf(world, ['translatorDelivered', 'lspApproved', 'orderDelivered']);
}

/** The status an order has right after a step of its plan ran. */
function statusAfter(order: Pick<OrderRecord, 'type' | 'level'>, kind: StepKind, current: OrderStatus): OrderStatus {
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

function scheduleNext(world: World, order: OrderRecord): void {
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
	if (applyStep(world, order, step.kind)) order.life.next += 1;
}

/** Stops whatever is scheduled for the order. */
function cancelPlan(order: OrderRecord, plan: PlanStep[] = []): void {
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

/** Returns the refunded amount in credits. */
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

/** Order summary fields and prices depend on the level. */
export function currentRate(order: OrderRecord): number {
	return order.level === 1 ? order.pricing.level1Rate : order.pricing.level0Rate;
}

export function currentPrice(order: OrderRecord): number {
	return order.level === 1 ? order.pricing.level1Usd : order.pricing.level0Usd;
}

// --- billing: consumption lines as the AI stages run ---

function emitStageLines(world: World, order: OrderRecord, stage: AiStage): void {
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
		usdEquivalent: creditsUsed / 1000,
		provider: PROVIDERS[providerKey],
		providerKey,
		service,
		tags: [...requestor.tags],
		occurredAt: new Date(atMs).toISOString(),
		projectId: order.projectId,
	});
	spendCredits(world, creditsUsed);
}

// --- documents and evaluations ---

function fileUrl(world: World, ...parts: string[]): string {
	return `${world.fileBaseUrl}/${parts.map(encodeURIComponent).join('/')}`;
}

function sourceDocOf(world: World, project: ProjectRecord, orderId: string): OrderDoc {
	const source = project.source;
	const kindType = { video: 'sourceVideo', audio: 'sourceAudio', document: 'sourceDocument', subtitle: 'sourceSubtitle' }[source.kind];
	return {
		id: world.ids.next(world.clock.nowMillis()),
		name: source.fileName,
		url: fileUrl(world, 'orders', orderId, source.fileName),
		type: kindType,
		size: source.size,
		...(source.durationSec !== undefined ? { duration: source.durationSec } : {}),
		...(source.wordCount !== undefined ? { wordCount: source.wordCount } : {}),
		sourceLanguage: project.sourceLanguage,
		createdAt: project.createdAt,
		updatedAt: project.createdAt,
	};
}

/** Orders keep the guidance they were created with, even after the folder document is removed. */
function guidanceDocOf(world: World, project: ProjectRecord, copy: ProjectRecord['docs'][number]): OrderDoc {
	const now = world.clock.nowIso();
	return {
		id: world.ids.next(world.clock.nowMillis()),
		name: copy.name,
		url: copy.url,
		type: copy.type,
		size: 0,
		sourceLanguage: project.sourceLanguage,
		createdAt: now,
		updatedAt: now,
	};
}

function deliverAiOutput(world: World, order: OrderRecord): void {
	const now = world.clock.nowIso();
	const source = order.orderDocs[0];
	const base = order.name.replace(/[^A-Za-z0-9]+/g, '_');
	const media = isMediaType(order.type);
	const durationSec = source?.duration;
	order.segmentCount = media ? Math.max(1, Math.ceil((durationSec ?? 60) / 4)) : Math.max(1, Math.ceil((source?.wordCount ?? 200) / 18));
	const outputs: Array<{ type: string; ext: string }> =
		order.type === 'cc' || order.type === 'subtitle'
			? [{ type: 'subtitle', ext: 'vtt' }]
			: order.type === 'aiDubbing'
				? [{ type: 'dubbedAudio', ext: 'mp3' }, { type: 'subtitle', ext: 'vtt' }]
				: order.type === 'studioDubbing'
					? [{ type: 'dubbedVideo', ext: 'mp4' }, { type: 'subtitle', ext: 'vtt' }]
					: [{ type: 'translation', ext: 'docx' }];
	for (const output of outputs) {
		const language = order.type === 'cc' ? order.sourceLanguage : order.targetLanguage;
		const name = `${base}_${language}.${output.ext}`;
		const url = fileUrl(world, 'orders', order.id, name);
		// A rerun replaces the output of the earlier run instead of adding a second copy.
		const earlier = order.orderDocs.find((doc) => doc.type === output.type && doc.name === name);
		if (earlier) {
			earlier.updatedAt = now;
			continue;
		}
		order.orderDocs.push({
			id: world.ids.next(world.clock.nowMillis()),
			name,
			url,
			type: output.type,
			size: output.ext === 'vtt' ? order.segmentCount * 90 : output.ext === 'docx' ? 20_000 + order.segmentCount * 120 : (source?.size ?? 1_000_000),
			// The spec: duration for audio and video only, wordCount for text documents only (by the file, not the order type).
			...((output.ext === 'mp3' || output.ext === 'mp4') && durationSec !== undefined ? { duration: durationSec } : {}),
			...(output.ext === 'docx' ? { wordCount: source?.wordCount ?? order.segmentCount * 18 } : {}),
			sourceLanguage: order.sourceLanguage,
			createdAt: now,
			updatedAt: now,
		});
		if (output.ext === 'vtt') order.vttUrl = url;
	}
}

function touchOutputDocs(world: World, order: OrderRecord): void {
	const now = world.clock.nowIso();
	for (const doc of order.orderDocs) {
		if (['subtitle', 'translation', 'dubbedAudio', 'dubbedVideo'].includes(doc.type)) doc.updatedAt = now;
	}
}

const CRITERIA = [
	['Accuracy', 'Meaning of the source is preserved'],
	['Fluency', 'Reads naturally in the target language'],
	['Terminology', 'Glossary and domain terms are respected'],
	['Style', 'Tone and register follow the guidelines'],
] as const;

function evaluationOf(world: World, order: OrderRecord, isLoading: boolean): Evaluation {
	const rng = world.rng.life;
	const segments = Math.max(1, order.segmentCount);
	return {
		id: world.ids.next(world.clock.nowMillis()),
		orderId: order.id,
		createdAt: world.clock.nowIso(),
		textSummary: isLoading ? '' : `Overall the ${order.targetLanguage} translation is accurate and fluent; a few segments could be tightened.`,
		scores: isLoading ? [] : CRITERIA.map(([name, description]) => ({ name, description, value: rng.int(70, 100) })),
		segmentEvals: isLoading
			? []
			: [1, 2].map((n) => ({
					id: `${order.id}-seg-${Math.min(segments, n * 7)}`,
					explain: n === 1 ? 'The idiom is translated literally.' : 'The line is longer than the reading speed allows.',
					suggestedNewValue: n === 1 ? 'A more idiomatic rendering of the line.' : 'A shorter version of the line.',
				})),
		isLoading,
	};
}

/** Subtitle embedding: the embedded video appears as an order document a few minutes after the request. */
export function requestSubtitleEmbedding(world: World, order: OrderRecord): void {
	const embedding = { requestedAt: world.clock.nowIso(), completedAt: null as string | null };
	order.subtitleEmbedding = embedding;
	world.clock.scheduleIn(5, () => {
		if (order.subtitleEmbedding !== embedding) return;
		embedding.completedAt = world.clock.nowIso();
		const name = `${order.name.replace(/[^A-Za-z0-9]+/g, '_')}_${order.targetLanguage}_embedded.mp4`;
		order.orderDocs.push({
			id: world.ids.next(world.clock.nowMillis()),
			name,
			url: fileUrl(world, 'orders', order.id, name),
			type: 'created_subtitle_embedded_video',
			size: order.orderDocs[0]?.size ?? 1_000_000,
			...(order.orderDocs[0]?.duration !== undefined ? { duration: order.orderDocs[0].duration } : {}),
			sourceLanguage: order.sourceLanguage,
			createdAt: embedding.completedAt,
			updatedAt: embedding.completedAt,
		});
	});
}

// --- cancel, rerun and QC evaluation (public docs; the sandbox's reading is in sandbox/README.md) ---

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

export interface QcCriteria {
	accuracy: boolean;
	fluency: boolean;
	tone: boolean;
	culturalFit: boolean;
}

const QC_CRITERIA: ReadonlyArray<[keyof QcCriteria, string, string]> = [
	['accuracy', 'Accuracy', 'Meaning of the source is preserved'],
	['fluency', 'Fluency', 'Reads naturally in the target language'],
	['tone', 'Tone', 'Tone and register fit the content and the guidelines'],
	['culturalFit', 'Cultural Fit', 'References and idioms suit the target culture'],
];

/** Minutes a requested QC evaluation takes. */
export const QC_MINUTES = 5;

/** Credits of a QC evaluation: one per ten segments per criterion, at least 5. */
export function qcCostCredits(order: OrderRecord, criteria: QcCriteria): number {
	const enabled = QC_CRITERIA.filter(([key]) => criteria[key]).length;
	return Math.max(5, Math.ceil((Math.max(1, order.segmentCount) * enabled) / 10));
}

/**
 * Starts a QC evaluation: latestEvaluation is { id, orderId, createdAt, isLoading: true } at once and the finished
 * evaluation after QC_MINUTES (unless another evaluation replaced it meanwhile). Charges its credits now.
 */
export function startQcEvaluation(world: World, order: OrderRecord, criteria: QcCriteria, customPrompt: string | null): { evalId: string; creditsUsed: number } {
	const evalId = world.ids.next(world.clock.nowMillis());
	const createdAt = world.clock.nowIso();
	const creditsUsed = qcCostCredits(order, criteria);
	recordLedger(world, 'qcEvaluation', order.id, creditsUsed);
	order.latestEvaluation = { id: evalId, orderId: order.id, createdAt, isLoading: true };
	world.clock.scheduleIn(QC_MINUTES, () => {
		if (order.latestEvaluation?.id !== evalId) return;
		const rng = world.rng.life;
		const segments = Math.max(1, order.segmentCount);
		const names = QC_CRITERIA.filter(([key]) => criteria[key]);
		order.latestEvaluation = {
			id: evalId,
			orderId: order.id,
			createdAt,
			textSummary:
				`The ${order.targetLanguage} translation was evaluated on ${names.map(([, name]) => name.toLowerCase()).join(', ')}; ` +
				'it is accurate overall and a few segments could be tightened.' +
				(customPrompt ? ` Custom instructions considered: ${customPrompt}` : ''),
			scores: names.map(([, name, description]) => ({ name, description, value: rng.int(70, 100) })),
			segmentEvals: [1, 2].map((n) => ({
				id: `${order.id}-seg-${Math.min(segments, n * 5)}`,
				explain: n === 1 ? 'The idiom is translated literally.' : 'The line is longer than the reading speed allows.',
				suggestedNewValue: n === 1 ? 'A more idiomatic rendering of the line.' : 'A shorter version of the line.',
			})),
			isLoading: false,
		};
	});
	return { evalId, creditsUsed };
}
