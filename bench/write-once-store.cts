// Bench scenario 12 on n8n's own store: what write-once's store work for a paid item costs in n8n's database, done
// by the shipped code (writeOnce/markers.ts: the claim with the baseline, then the end with the ids made and the
// baseline removed, each inside the exclusive section) against n8n's own DeduplicationHelper and ProcessedData
// entity on SQLite, loaded from a cached n8n runtime and run on its Node. With nothing and with 1,000 items remembered
// in the node's row, and with the row at its bound: n8n reads and writes that row whole on each call, so this is where its size shows in time.
//
//   N8N_MODULES=<runtime>/n8n/node_modules <runtime>/node/.../bin/node --import tsx bench/write-once-store.cts \
//     [--items 20] [--remembered 1000] [--json <file>]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MAX_REMEMBERED } from '../nodes/Ollang/actions/common/writeOnce/records';
import { NAMES_PER_ITEM, StoreMarkers } from '../nodes/Ollang/actions/common/writeOnce/markers';

const { values: flags } = parseArgs({ options: { items: { type: 'string', default: '20' }, remembered: { type: 'string', default: String(MAX_REMEMBERED) }, json: { type: 'string' } } });
const ITEMS = Number(flags.items);
const REMEMBERED = Number(flags.remembered);
const load = (name: string) => require(join(process.env.N8N_MODULES as string, name));

/** What an ended Run QC Evaluation item leaves (bench/write-once-cost.cts counts it): its claim, its end, two ids. */
const namesOfEnded = (key: string) => [`${key}|a0`, `${key}|a0|applied`, `${key}|a0|made:e`, `${key}|a0|made:o`];

export interface StoreRow {
	database: string;
	remembered: number;
	items: number;
	msPerItem: number;
	rowBytes: number;
}

async function main(): Promise<void> {
	const { Container } = load('@n8n/di');
	const { DataSource } = load('@n8n/typeorm');
	const db = load('@n8n/db');
	const { DeduplicationHelper } = load('n8n/dist/deduplication/deduplication-helper.js');
	const dir = mkdtempSync(join(tmpdir(), 'ollang-write-once-store-'));
	const source = new DataSource({ type: 'sqlite', database: join(dir, 'n8n.sqlite'), entities: [db.ProcessedData], synchronize: true });
	await source.initialize();
	Container.set(db.ProcessedDataRepository, new db.ProcessedDataRepository(source));
	const repository = Container.get(db.ProcessedDataRepository);
	const helper = new DeduplicationHelper();
	const options = { mode: 'entries', maxEntries: NAMES_PER_ITEM * MAX_REMEMBERED } as const;
	const rows: StoreRow[] = [];
	try {
		// Nothing, 1,000 items, and the row at its bound (n8n keeps NAMES_PER_ITEM x 1,000 names: 7,000 items of 4).
		for (const remembered of [0, REMEMBERED, (NAMES_PER_ITEM * REMEMBERED) / namesOfEnded('').length]) {
			const context = { workflow: { id: `wf-${remembered}` }, node: { id: 'node-1' } };
			const helpers = {
				checkProcessedAndRecord: async (items: string[], scope: string, opts: unknown) => await helper.checkProcessedAndRecord(items, scope, context, opts),
				removeProcessed: async (items: string[], scope: string, opts: unknown) => await helper.removeProcessed(items, scope, context, opts),
				clearAllProcessedItems: async (scope: string, opts: unknown) => await helper.clearAllProcessedItems(scope, context, opts),
			};
			const markers = new StoreMarkers({ helpers, logger: { debug: () => undefined } } as never, options);
			if (remembered > 0) await helper.checkProcessedAndRecord(Array.from({ length: remembered }, (_, index) => namesOfEnded(`earlier-${index}`)).flat(), 'node', context, options);
			const started = performance.now();
			for (let index = 0; index < ITEMS; index++) {
				const key = `order.runQcEvaluation:key:bench-${index}`;
				const baseline = [`evaluation-before-${index}`, 'delivery-before'];
				if ((await markers.claimAttempt(key, 0, baseline)) !== 'won') throw new Error(`${key}: claim not won`);
				await markers.recordEnd(key, 0, { applied: [`eval-${index}`, `order-${index}`] }, baseline);
			}
			const ms = performance.now() - started;
			const row = await repository.findOne({ where: { workflowId: context.workflow.id, context: `n:${context.node.id}` } });
			rows.push({ database: 'SQLite', remembered, items: ITEMS, msPerItem: ms / ITEMS, rowBytes: Buffer.byteLength(JSON.stringify(row?.value ?? {})) });
		}
	} finally {
		await source.destroy();
		rmSync(dir, { recursive: true, force: true });
	}
	for (const row of rows) console.log(`${row.database}, ${row.remembered} remembered: ${row.msPerItem.toFixed(1)} ms per item of store work, row ${(row.rowBytes / 1024).toFixed(1)} KiB`);
	if (flags.json) writeFileSync(flags.json, JSON.stringify(rows));
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error instanceof Error ? error.stack : String(error));
		process.exit(1);
	},
);
