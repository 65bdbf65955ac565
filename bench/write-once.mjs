// Bench scenario 12: what the write-once protocol costs a paid item (bench/write-once-cost.cts, in-process: n8n-core's
// engine against the in-process sandbox). Store calls (the exclusive section's included), names left and bytes moved
// per item with nothing and with 1,000 items remembered, and the time per item beside Retry Protection off; then the
// same store work on n8n's own store code and SQLite (bench/write-once-store.cts), up to the row's bound.
import { smokeChecks } from './smoke-checks.mjs';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { log, runCommand } from '../scripts/n8n/process.mjs';
import { ensureRuntime, REPO_ROOT } from '../scripts/n8n/runtime.mjs';

const LOG_PREFIX = 'bench';

export async function runWriteOnceScenario(_context, scenario) {
	log(LOG_PREFIX, `${scenario.title} ...`);
	const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'ollang-write-once-')), 'rows.json');
	const sizes = ['--items', String(scenario.items), '--remembered', String(scenario.remembered)];
	await runCommand(process.execPath, ['--require', 'tsx/cjs', path.join(REPO_ROOT, 'bench', 'write-once-cost.cts'), ...sizes, '--json', out], { cwd: REPO_ROOT });
	// The same store work on n8n's own store code and SQLite, on the runtime's Node (bench/write-once-store.cts).
	const runtime = await ensureRuntime();
	const storeOut = `${out}.store.json`;
	const modules = path.join(runtime.paths.n8nPrefix, 'node_modules');
	await runCommand(runtime.nodeBin, ['--import', 'tsx', path.join(REPO_ROOT, 'bench', 'write-once-store.cts'), ...sizes, '--json', storeOut], { cwd: REPO_ROOT, env: { ...process.env, N8N_MODULES: modules } });
	return { key: 'writeOnce', title: scenario.title, rows: JSON.parse(readFileSync(out, 'utf8')), store: JSON.parse(readFileSync(storeOut, 'utf8')) };
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

export function writeOnceSection(result) {
	return {
		header: ['operation', 'items remembered', 'store calls / item', 'names left / item', 'row', 'store traffic / item', 'ms / item', 'Retry Protection off, ms / item', 'over it'],
		rows: result.rows.map((row) => [
			row.operation,
			String(row.remembered),
			row.storeCallsPerItem.toFixed(1),
			row.namesPerItem.toFixed(1),
			kib(row.rowBytes),
			kib(row.trafficPerItem),
			row.msPerItem.toFixed(1),
			row.peerMsPerItem.toFixed(1),
			`+${(row.msPerItem - row.peerMsPerItem).toFixed(1)} ms`,
		]),
		goals: result.rows.map((row) => ({
			scenario: `12. Write-once, ${row.operation}, ${row.remembered} items remembered`,
			goal: 'at most 20 ms per paid item over Retry Protection off',
			figure: `+${(row.msPerItem - row.peerMsPerItem).toFixed(1)} ms (${row.msPerItem.toFixed(1)} vs ${row.peerMsPerItem.toFixed(1)} ms)`,
			met: row.msPerItem - row.peerMsPerItem <= 20,
			why: `${row.storeCallsPerItem.toFixed(1)} store calls per item moving ${kib(row.trafficPerItem)}: the database's time (in-process here), growing with the row n8n reads and writes whole.`,
		})).concat(
			(result.store ?? []).map((row) => ({
				scenario: `12. Write-once on n8n's ${row.database}, ${row.remembered} items remembered`,
				goal: 'at most 20 ms per paid item over Retry Protection off (which does no store work)',
				figure: `+${row.msPerItem.toFixed(1)} ms (row ${kib(row.rowBytes)})`,
				met: row.msPerItem <= 20,
				why: 'n8n reads and writes the node\'s row whole on each of the three calls on it: past about 3,000 items of 4 names the row\'s size, not the number of calls, sets the time (docs/ARCHITECTURE.md, "Sizes and traffic").',
			})),
		),
		notes: [
			`Each operation: ${result.rows[0]?.items} items with an Idempotency Key in one node run, first with nothing remembered, then after 1,000 earlier items (their records in memory, their names in the store's row). In-process: n8n-core's engine, the in-process sandbox (no added latency), the harness's store standing in for n8n's database (one row per node read and written whole per call, an md5 in base64 per name: 27 bytes). Store calls include the exclusive section's (an insert and a delete of the workflow's row around each section: nodes/shared/exclusive.ts). Names left: recorded and not removed once the item ended. Store traffic: bytes of rows read and written per item; it grows with the row, which n8n reads and writes whole. The peer: the same items with Retry Protection off (no record, no store). Against the real API a paid action's own round trip (hundreds of milliseconds) sits in both columns.`,
			`The row's bound: NAMES_PER_ITEM x 1,000 items x 27 B = ${kib(result.rows[0]?.rowBoundBytes ?? 0)} (n8n drops the oldest names past it).`,
			`On n8n's own store code and database (bench/write-once-store.cts: the cli's DeduplicationHelper on SQLite, the shipped claim and end of one Run QC Evaluation item, ${result.store?.[0]?.items} items): ${(result.store ?? []).map((row) => `${row.remembered} items remembered (row ${kib(row.rowBytes)}): ${row.msPerItem.toFixed(1)} ms per item`).join('; ')}. The last is the row at its bound (4 names an item).`,
		],
	};
}

export function writeOnceDetails(result) {
	return result.rows.map((row) => `- ${row.operation}, ${row.remembered} remembered: ${row.items} items, ${row.storeCallsPerItem} store calls and ${row.namesPerItem} names left each, ${Math.round(row.trafficPerItem)} B moved each; ${row.msPerItem.toFixed(1)} ms vs ${row.peerMsPerItem.toFixed(1)} ms per item`).join('\n');
}

/** What the smoke fails on: an operation without its figures, or a protected item that made no store call. */
export function writeOnceSmokeProblems(result) {
	const { check, result: checked } = smokeChecks('writeOnce');
	check(result.rows.length === 4, `${result.rows.length} rows measured (2 operations x 2 levels)`);
	check(result.store?.length === 3 && result.store.every((row) => row.msPerItem > 0 && row.rowBytes > 0), `n8n's store: ${JSON.stringify(result.store)}`);
	for (const row of result.rows) {
		check(row.storeCallsPerItem > 0 && row.namesPerItem > 0 && row.trafficPerItem > 0, `${row.operation}: no store calls, names or traffic`);
		check(row.rowBytes > 0 && row.rowBoundBytes >= row.rowBytes, `${row.operation}: row ${row.rowBytes} B over its bound ${row.rowBoundBytes} B`);
		check([row.msPerItem, row.peerMsPerItem].every((ms) => Number.isFinite(ms) && ms > 0), `${row.operation}: no time per item`);
	}
	return checked();
}
