// Bench scenario 12: what the write-once protocol costs a paid item (bench/write-once-cost.cts, in-process: n8n-core's
// engine against the in-process sandbox). Store calls (the exclusive section's included), names and stored bytes per
// item with 1,000 items remembered, the row's bound, and the time per item beside Retry Protection off.
import { smokeChecks } from './smoke-checks.mjs';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { log, runCommand } from '../scripts/n8n/process.mjs';
import { REPO_ROOT } from '../scripts/n8n/runtime.mjs';

const LOG_PREFIX = 'bench';

export async function runWriteOnceScenario(_context, scenario) {
	log(LOG_PREFIX, `${scenario.title} ...`);
	const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'ollang-write-once-')), 'rows.json');
	await runCommand(process.execPath, ['--require', 'tsx/cjs', path.join(REPO_ROOT, 'bench', 'write-once-cost.cts'), '--items', String(scenario.items), '--remembered', String(scenario.remembered), '--json', out], { cwd: REPO_ROOT });
	return { key: 'writeOnce', title: scenario.title, rows: JSON.parse(readFileSync(out, 'utf8')) };
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

export function writeOnceSection(result) {
	return {
		header: ['operation', 'store calls / item', 'names / item', 'stored / item', 'row, remembered items included', 'row bound', 'ms / item', 'Retry Protection off, ms / item', 'ratio', 'waits on other processes, ms'],
		rows: result.rows.map((row) => [
			row.operation,
			row.storeCallsPerItem.toFixed(1),
			row.namesPerItem.toFixed(1),
			`${row.bytesPerItem.toFixed(0)} B`,
			`${kib(row.rowBytes)} (${row.remembered} items)`,
			kib(row.rowBoundBytes),
			row.msPerItem.toFixed(0),
			row.peerMsPerItem.toFixed(0),
			`${(row.msPerItem / row.peerMsPerItem).toFixed(1)}x`,
			String(row.floorMsPerItem),
		]),
		goals: [],
		notes: [
			`Each operation: ${result.rows[0]?.items} items with an Idempotency Key, one node run, after 1,000 earlier items (their static records, and their names copied into the store's row). In-process: n8n-core's engine, the in-process sandbox (no added latency), the harness's store (one row, as n8n's database keeps it: an md5 in base64 per name, in a JSON array; "stored" counts those bytes). The peer: the same items with Retry Protection off (no record, no store). Store calls include the exclusive section's (an insert and a delete of the workflow's row around each call on the node's row: nodes/shared/exclusive.ts); no claim waits on other processes' pace (the last column). Against the real API a paid action's own round trip (hundreds of milliseconds) sits in both columns; the sandbox answers in about a millisecond.`,
			'The row bound: NAMES_PER_ITEM names for each of the 1,000 items n8n\'s store keeps (maxEntries), at this run\'s bytes per name: what the row cannot outgrow, however the items use their reader slots.',
		],
	};
}

export function writeOnceDetails(result) {
	return result.rows.map((row) => `- ${row.operation}: ${row.items} items, ${row.storeCallsPerItem} store calls and ${row.namesPerItem} names each; ${Math.round(row.msPerItem)} ms vs ${Math.round(row.peerMsPerItem)} ms per item`).join('\n');
}

/** What the smoke fails on: an operation without its figures, or a protected item that made no store call. */
export function writeOnceSmokeProblems(result) {
	const { check, result: checked } = smokeChecks('writeOnce');
	check(result.rows.length === 2, `${result.rows.length} operations measured`);
	for (const row of result.rows) {
		check(row.storeCallsPerItem > 0 && row.namesPerItem > 0 && row.bytesPerItem > 0, `${row.operation}: no store calls or names`);
		check(row.rowBytes > 0 && row.rowBoundBytes >= row.rowBytes, `${row.operation}: row ${row.rowBytes} B over its bound ${row.rowBoundBytes} B`);
		check([row.msPerItem, row.peerMsPerItem].every((ms) => Number.isFinite(ms) && ms > 0), `${row.operation}: no time per item`);
	}
	return checked();
}
