import type { Evaluation, OrderRecord } from '../types.cts';
import type { World } from '../world.cts';
import { recordLedger } from './wallet.cts';

/**
 * Quality evaluations: the one an order's life writes at AI delivery (with autoQc) and through the human review,
 * and a QC evaluation the client requests (public docs; the sandbox's reading is in sandbox/README.md).
 */

const CRITERIA = [
	['Accuracy', 'Meaning of the source is preserved'],
	['Fluency', 'Reads naturally in the target language'],
	['Terminology', 'Glossary and domain terms are respected'],
	['Style', 'Tone and register follow the guidelines'],
] as const;

/** Two segment remarks, on segments `spacing` and 2 x `spacing` (within the order's segments). */
function segmentEvalsOf(order: OrderRecord, spacing: number): NonNullable<Evaluation['segmentEvals']> {
	const segments = Math.max(1, order.segmentCount);
	return [1, 2].map((n) => ({
		id: `${order.id}-seg-${Math.min(segments, n * spacing)}`,
		explain: n === 1 ? 'The idiom is translated literally.' : 'The line is longer than the reading speed allows.',
		suggestedNewValue: n === 1 ? 'A more idiomatic rendering of the line.' : 'A shorter version of the line.',
	}));
}

export function evaluationOf(world: World, order: OrderRecord, isLoading: boolean): Evaluation {
	const rng = world.rng.life;
	return {
		id: world.ids.next(world.clock.nowMillis()),
		orderId: order.id,
		createdAt: world.clock.nowIso(),
		textSummary: isLoading ? '' : `Overall the ${order.targetLanguage} translation is accurate and fluent; a few segments could be tightened.`,
		scores: isLoading ? [] : CRITERIA.map(([name, description]) => ({ name, description, value: rng.int(70, 100) })),
		segmentEvals: isLoading ? [] : segmentEvalsOf(order, 7),
		isLoading,
	};
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
 * evaluation after QC_MINUTES (unless another evaluation replaced it meanwhile), then its callback is sent when one
 * was given. Charges its credits now.
 */
export function startQcEvaluation(
	world: World,
	order: OrderRecord,
	criteria: QcCriteria,
	customPrompt: string | null,
	callbackUrl: string | null = null,
): { evalId: string; creditsUsed: number } {
	const evalId = world.ids.next(world.clock.nowMillis());
	const createdAt = world.clock.nowIso();
	const creditsUsed = qcCostCredits(order, criteria);
	recordLedger(world, 'qcEvaluation', order.id, creditsUsed);
	order.latestEvaluation = { id: evalId, orderId: order.id, createdAt, isLoading: true };
	world.clock.scheduleIn(QC_MINUTES, () => {
		if (order.latestEvaluation?.id !== evalId) return;
		const rng = world.rng.life;
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
			segmentEvals: segmentEvalsOf(order, 5),
			isLoading: false,
		};
		if (callbackUrl) world.callbacks?.qcCompleted(order, order.latestEvaluation, callbackUrl);
	});
	return { evalId, creditsUsed };
}
