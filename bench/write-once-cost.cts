// Bench scenario 12: what the write-once protocol costs a paid item, in-process (n8n-core's engine, the in-process
// sandbox, the harness's deduplication store standing in for n8n's database row), with 1,000 items remembered:
// store calls (the exclusive section's included), names and stored bytes per item, the row's size, and the time per
// item beside the same item with Retry Protection off (the peer: no record, no store). Nothing waits on other
// processes' pace any more (nodes/shared/claim.ts): the floor is 0.
//
//   node --require tsx/cjs bench/write-once-cost.cts [--items 20] [--remembered 1000] [--json <file>]
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { MAX_REMEMBERED } from '../nodes/Ollang/actions/common/writeOnce';
import { NAMES_PER_ITEM } from '../nodes/Ollang/actions/common/writeOnce/markers';
import { startSandbox } from '../sandbox/index.cts';
import type { Sandbox } from '../sandbox/index.cts';
import { runNode } from '../test/harness/engine.cts';
import { deduplicationStore } from '../test/harness/runtime.cts';
import { ACTIONS, withOptions } from '../test/reliability/operations.cts';

const { values: flags } = parseArgs({ options: { items: { type: 'string', default: '20' }, remembered: { type: 'string', default: String(MAX_REMEMBERED) }, json: { type: 'string' } } });
const ITEMS = Number(flags.items);
const REMEMBERED = Number(flags.remembered);
const OPERATIONS = ['order.runQcEvaluation', 'order.create'];

interface Row {
	operation: string;
	items: number;
	remembered: number;
	storeCallsPerItem: number;
	/** Names an item left in the row once it ended (recorded and not removed). */
	namesPerItem: number;
	rowBytes: number;
	rowBoundBytes: number;
	/** Bytes of the node's and the workflow's rows read and written per item. */
	trafficPerItem: number;
	msPerItem: number;
	peerMsPerItem: number;
}

async function itemsOf(sandbox: Sandbox, name: string, count: number, label: string): Promise<INodeExecutionData[]> {
	const action = ACTIONS.find((candidate) => candidate.name === name)!;
	const items: INodeExecutionData[] = [];
	for (let index = 0; index < count; index++) {
		const marker = `${label}${index}`;
		const item = await action.item(sandbox, marker);
		items.push({ ...item, json: { ...item.json, marker, eventId: `bench-${marker}` } });
	}
	return items;
}

async function runItems(sandbox: Sandbox, name: string, items: INodeExecutionData[], staticData: IDataObject, protectedRun: boolean): Promise<number> {
	const action = ACTIONS.find((candidate) => candidate.name === name)!;
	const parameters = withOptions(action.parameters(sandbox), { retryProtection: protectedRun, ...(protectedRun ? { idempotencyKey: '={{ $json.eventId }}' } : {}) });
	const started = performance.now();
	const result = await runNode({ parameters, items, credentials: { baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.owner }, staticData, mode: 'webhook' });
	if (result.error) throw new Error(`${name}: ${result.error.message}`);
	return performance.now() - started;
}

/** The names one item leaves, copied for `count` other keys: a row as `count` earlier items of this node left it. */
function rememberedRow(oneItem: string[], key: string, count: number): string[] {
	return Array.from({ length: count }, (_, index) => oneItem.map((name) => name.split(key).join(`${key}-earlier-${index}`))).flat();
}

/** Names recorded and not removed since call `from`. */
function namesLeft(from = 0): string[] {
	const calls = deduplicationStore.calls.slice(from);
	const removed = new Set(calls.filter((call) => call.kind === 'remove').flatMap((call) => call.items));
	return [...new Set(calls.filter((call) => call.kind === 'check').flatMap((call) => call.items))].filter((name) => !removed.has(name));
}

const ROW_OPTIONS = { mode: 'entries', maxEntries: NAMES_PER_ITEM * MAX_REMEMBERED } as const;
const CONTEXT = { node: { id: 'node-under-test' }, workflow: { id: 'harness-workflow' } } as never;

/** ITEMS protected items after `remembered` earlier ones (their static records, their names in the row). */
async function measure(sandbox: Sandbox, name: string, remembered: number, probeNames: string[], peerMsPerItem: number): Promise<Row> {
	const probeKey = probeNames[0].split('|')[0];
	const staticData: IDataObject = {
		'node:Ollang': {
			ollangAppliedItems: Object.fromEntries(
				Array.from({ length: remembered }, (_, index) => [`${name}:key:earlier-${index}`, { state: 'applied', at: Date.now() - 60_000 - index, result: { orderId: `earlier-${index}` } }]),
			),
		},
	};
	deduplicationStore.clear();
	if (remembered > 0) await deduplicationStore.checkProcessedAndRecord(rememberedRow(probeNames, probeKey, remembered), 'node', CONTEXT, ROW_OPTIONS);
	const before = deduplicationStore.calls.length;
	const traffic = { ...deduplicationStore.traffic };
	const ms = await runItems(sandbox, name, await itemsOf(sandbox, name, ITEMS, `${name}-${remembered}-`), staticData, true);
	const moved = deduplicationStore.traffic.read - traffic.read + deduplicationStore.traffic.written - traffic.written;
	const rowBytes = 27 * (await deduplicationStore.getProcessedDataCount('node', CONTEXT));
	return {
		operation: name,
		items: ITEMS,
		remembered,
		storeCallsPerItem: (deduplicationStore.calls.length - before) / ITEMS,
		namesPerItem: namesLeft(before).length / ITEMS,
		rowBytes,
		rowBoundBytes: 27 * NAMES_PER_ITEM * MAX_REMEMBERED,
		trafficPerItem: moved / ITEMS,
		msPerItem: ms / ITEMS,
		peerMsPerItem,
	};
}

/** The names one item of the operation leaves, and the peer's time per item (Retry Protection off). */
async function probe(sandbox: Sandbox, name: string): Promise<{ probeNames: string[]; peerMsPerItem: number }> {
	deduplicationStore.clear();
	await runItems(sandbox, name, await itemsOf(sandbox, name, 1, `${name}-probe-`), {}, true);
	const probeNames = namesLeft();
	const peerMs = await runItems(sandbox, name, await itemsOf(sandbox, name, ITEMS, `${name}-off-`), {}, false);
	return { probeNames, peerMsPerItem: peerMs / ITEMS };
}

async function main(): Promise<void> {
	const sandbox = await startSandbox({ quiet: true });
	const rows: Row[] = [];
	try {
		for (const name of OPERATIONS) {
			const { probeNames, peerMsPerItem } = await probe(sandbox, name);
			for (const remembered of [0, REMEMBERED]) rows.push(await measure(sandbox, name, remembered, probeNames, peerMsPerItem));
		}
	} finally {
		await sandbox.close();
	}
	const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
	console.log('| operation | items remembered | store calls / item | names left / item | row | store traffic / item | ms / item | Retry Protection off | over it |');
	console.log('|---|---|---|---|---|---|---|---|---|');
	for (const row of rows) {
		console.log(
			`| ${row.operation} | ${row.remembered} | ${row.storeCallsPerItem.toFixed(1)} | ${row.namesPerItem.toFixed(1)} | ${kib(row.rowBytes)} | ${kib(row.trafficPerItem)} | ` +
				`${row.msPerItem.toFixed(1)} | ${row.peerMsPerItem.toFixed(1)} | +${(row.msPerItem - row.peerMsPerItem).toFixed(1)} ms |`,
		);
	}
	if (flags.json) writeFileSync(flags.json, JSON.stringify(rows));
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error instanceof Error ? error.stack : String(error));
		process.exit(1);
	},
);
