import { readOrder } from '../../../shared/readOrder';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { LostAnswer } from '../common/writeOnce';
import { isRecord } from '../common/responses';

/** The order's latest evaluation, and how many AI deliveries its log holds (each may bring an Auto QC evaluation). */
async function stateOf(ctx: IExecuteFunctions, orderId: string, itemIndex: number): Promise<{ latest: string; aiDeliveries: string }> {
	const order = await readOrder(ctx, orderId, { itemIndex });
	const latest = order.latestEvaluation;
	const events = Array.isArray(order.deliveryEvents) ? (order.deliveryEvents as IDataObject[]) : [];
	return {
		latest: isRecord(latest) && typeof latest.id === 'string' ? latest.id : 'none',
		aiDeliveries: `aiDeliveries:${events.filter((event) => event.type === 'ai_delivered').length}`,
	};
}

/**
 * Run QC Evaluation's lost answer, read from the order's state. The baseline is the latest evaluation's id before
 * sending, and the count of AI deliveries then: another evaluation after was started by the lost request, unless
 * the AI delivered meanwhile (an order with Auto QC gets an evaluation with each delivery: then it cannot tell), or
 * another item of this node owns it.
 */
export function byLatestEvaluation(ctx: IExecuteFunctions, orderId: string, itemIndex: number): LostAnswer {
	return {
		readFrom: 'state',
		baseline: async () => {
			const state = await stateOf(ctx, orderId, itemIndex);
			return [state.latest, state.aiDeliveries];
		},
		settle: async ({ has, claimed }) => {
			const state = await stateOf(ctx, orderId, itemIndex);
			const unchanged = await has(state.latest);
			if (unchanged === undefined) return undefined;
			if (unchanged) return { notApplied: true };
			const noDeliverySince = await has(state.aiDeliveries);
			if (noDeliverySince !== true || claimed.has(state.latest)) return undefined;
			return { applied: { orderId, evalId: state.latest } };
		},
		candidates: async () => {
			const { latest } = await stateOf(ctx, orderId, itemIndex);
			return { ids: latest === 'none' ? [] : [latest], output: () => ({ orderId, evalId: latest }) };
		},
	};
}
