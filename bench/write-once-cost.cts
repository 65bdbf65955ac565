// Bench scenario 12: what the write-once protocol costs a paid item, in-process (n8n-core's engine, the in-process
// sandbox, the harness's deduplication store standing in for n8n's database row), with 1,000 items remembered:
// store calls (the exclusive section's included), names and stored bytes per item, the row's size, and the time per
// item beside the same item with Retry Protection off (the peer: no record, no store). Nothing waits on other
// processes' pace any more (nodes/shared/claim.ts): the floor is 0.
//
//   node --require tsx/cjs bench/write-once-cost.cts [--items 20] [--remembered 1000] [--json <file>]
import { createHash } from 'node:crypto';
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

/** n8n keeps an entry as the md5 of the name in base64 (deduplication-helper.ts), in a JSON array. */
const storedBytes = (names: string[]) => Buffer.byteLength(JSON.stringify(names.map((name) => createHash('md5').update(name).digest('base64'))));

interface Row {
	operation: string;
	items: number;
	remembered: number;
	storeCallsPerItem: number;
	namesPerItem: number;
	bytesPerItem: number;
	rowBytes: number;
	rowBoundBytes: number;
	msPerItem: number;
	peerMsPerItem: number;
	floorMsPerItem: number;
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

/** The names one item leaves, copied for `count` other keys: a row as 1,000 earlier items of this node left it. */
function rememberedRow(oneItem: string[], key: string, count: number): string[] {
	return Array.from({ length: count }, (_, index) => oneItem.map((name) => name.split(key).join(`${key}-earlier-${index}`))).flat();
}

async function measure(sandbox: Sandbox, name: string): Promise<Row> {
	// One item first: the names an item of this operation leaves.
	deduplicationStore.clear();
	const [probe] = await itemsOf(sandbox, name, 1, `${name}-probe-`);
	await runItems(sandbox, name, [probe], {}, true);
	const probeNames = [...new Set(deduplicationStore.calls.filter((call) => call.kind === 'check').flatMap((call) => call.items))];
	const probeKey = probeNames[0].split('|')[0];
	// The remembered items: their static records and their names in the store's row.
	const staticData: IDataObject = {
		'node:Ollang': {
			ollangAppliedItems: Object.fromEntries(
				Array.from({ length: REMEMBERED }, (_, index) => [`${name}:key:earlier-${index}`, { state: 'applied', at: Date.now() - 60_000 - index, result: { orderId: `earlier-${index}` } }]),
			),
		},
	};
	deduplicationStore.clear();
	const row = rememberedRow(probeNames, probeKey, REMEMBERED);
	await deduplicationStore.checkProcessedAndRecord(row, 'node', { node: { id: 'node-under-test' }, workflow: { id: 'harness-workflow' } } as never, { mode: 'entries', maxEntries: NAMES_PER_ITEM * MAX_REMEMBERED });
	const before = deduplicationStore.calls.length;
	const measured = await itemsOf(sandbox, name, ITEMS, `${name}-on-`);
	const ms = await runItems(sandbox, name, measured, staticData, true);
	const calls = deduplicationStore.calls.slice(before);
	const names = new Set(calls.filter((call) => call.kind === 'check').flatMap((call) => call.items));
	const peerItems = await itemsOf(sandbox, name, ITEMS, `${name}-off-`);
	const peerMs = await runItems(sandbox, name, peerItems, {}, false);
	const rowNames = [...row, ...names];
	return {
		operation: name,
		items: ITEMS,
		remembered: REMEMBERED,
		storeCallsPerItem: calls.length / ITEMS,
		namesPerItem: names.size / ITEMS,
		bytesPerItem: storedBytes([...names]) / ITEMS,
		rowBytes: storedBytes(rowNames),
		rowBoundBytes: Math.round((storedBytes(rowNames) / rowNames.length) * NAMES_PER_ITEM * MAX_REMEMBERED),
		msPerItem: ms / ITEMS,
		peerMsPerItem: peerMs / ITEMS,
		floorMsPerItem: 0,
	};
}

async function main(): Promise<void> {
	const sandbox = await startSandbox({ quiet: true });
	const rows: Row[] = [];
	try {
		for (const name of OPERATIONS) rows.push(await measure(sandbox, name));
	} finally {
		await sandbox.close();
	}
	const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
	console.log('| operation | store calls / item | names / item | stored / item | row with the remembered items | row bound | ms / item (protected) | ms / item (Retry Protection off) | ratio | floor (read-backs) |');
	console.log('|---|---|---|---|---|---|---|---|---|---|');
	for (const row of rows) {
		console.log(
			`| ${row.operation} | ${row.storeCallsPerItem.toFixed(1)} | ${row.namesPerItem.toFixed(1)} | ${row.bytesPerItem.toFixed(0)} B | ${kib(row.rowBytes)} (${row.remembered} items) | ${kib(row.rowBoundBytes)} | ` +
				`${row.msPerItem.toFixed(0)} | ${row.peerMsPerItem.toFixed(0)} | ${(row.msPerItem / row.peerMsPerItem).toFixed(1)}x | ${row.floorMsPerItem} |`,
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
