// The sweep's hand-over memory (nodes/OllangCallbackTrigger/unsettled.ts): what a sweep hands n8n again, what it
// gives up on past its bound, and which ended executions count as run through. The generated schedules
// (callbackSchedules.test.cts) drive it through n8n-core with executions refused, dropped and run late.
import type { IDataObject, IRun } from 'n8n-workflow';
import { handOver, ranThrough, refused, settle, UNSETTLED_AT_MOST } from '../../nodes/OllangCallbackTrigger/unsettled';

/** How many completions wait in the node's static data to be handed over again. */
const unsettledCount = (nodeData: IDataObject): number => Object.keys((nodeData['sweep:unsettled'] as IDataObject | undefined) ?? {}).length;
const item = (key: string): IDataObject => ({ arrivedBy: 'sweep', completionKey: key, orderId: key.split(':')[1] });

describe('the sweep hands over again what no execution ran through', () => {
	it('hands over what it found, and an earlier hand-over only once the wait for it has passed', () => {
		const nodeData: IDataObject = {};
		expect(handOver(nodeData, [item('order:a:1'), item('order:b:1')], 1_000, 500).keys).toEqual(['order:a:1', 'order:b:1']);
		// The execution may still be under way: not handed over again yet.
		expect(handOver(nodeData, [item('order:c:1')], 1_400, 500).keys).toEqual(['order:c:1']);
		expect(handOver(nodeData, [], 1_500, 500).keys).toEqual(['order:a:1', 'order:b:1']);
		settle(nodeData, ['order:a:1', 'order:b:1']);
		expect(handOver(nodeData, [], 10_000, 500).keys).toEqual(['order:c:1']);
		settle(nodeData, ['order:c:1']);
		expect(unsettledCount(nodeData)).toBe(0);
		expect(handOver(nodeData, [], 20_000, 500)).toEqual({ items: [], keys: [], givenUp: 0 });
	});

	it('what n8n refused is due at the next sweep, however soon; a completion found again goes as read now', () => {
		const nodeData: IDataObject = {};
		handOver(nodeData, [item('order:a:1')], 1_000, 60_000);
		refused(nodeData, ['order:a:1', 'order:unknown:1']);
		const fresh = { ...item('order:a:1'), found: { order: { id: 'a', status: 'completed' } } };
		const again = handOver(nodeData, [fresh], 1_001, 60_000);
		expect(again.items).toEqual([fresh]);
		expect(unsettledCount(nodeData)).toBe(1);
	});

	it(`keeps at most ${UNSETTLED_AT_MOST}: the oldest are given up first, and not handed over`, () => {
		const nodeData: IDataObject = {};
		handOver(nodeData, Array.from({ length: UNSETTLED_AT_MOST }, (_, index) => item(`order:old${index}:1`)), 1_000, 60_000);
		const next = handOver(nodeData, [item('order:new1:1'), item('order:new2:1')], 2_000, 60_000);
		expect(next.givenUp).toBe(2);
		expect(next.keys).toEqual(['order:new1:1', 'order:new2:1']);
		expect(unsettledCount(nodeData)).toBe(UNSETTLED_AT_MOST);
		const due = handOver(nodeData, [], 100_000, 60_000).keys;
		expect(due).toHaveLength(UNSETTLED_AT_MOST);
		expect(due.slice(0, 2)).toEqual(['order:old2:1', 'order:old3:1']);
	});

	it('an execution ran through when it ended without an error; refused, dropped or failed ones did not', () => {
		const run = (status: string, error?: Error) => ({ status, data: { resultData: { runData: {}, ...(error ? { error } : {}) } } }) as unknown as IRun;
		expect(ranThrough(run('success'))).toBe(true);
		expect(ranThrough(run('waiting'))).toBe(true);
		expect(ranThrough(run('error'))).toBe(false);
		expect(ranThrough(run('crashed'))).toBe(false);
		expect(ranThrough(run('canceled'))).toBe(false);
		expect(ranThrough(run('success', new Error('a node after the trigger failed')))).toBe(false);
		expect(ranThrough(undefined)).toBe(false);
	});

	it('rewrites its entry at the node\'s level, so n8n sees the static data changed', () => {
		const nodeData: IDataObject = {};
		handOver(nodeData, [item('order:a:1')], 1_000, 500);
		const before = nodeData['sweep:unsettled'];
		settle(nodeData, ['order:a:1']);
		expect(nodeData['sweep:unsettled']).not.toBe(before);
		expect(nodeData['sweep:unsettled']).toEqual({});
	});
});
