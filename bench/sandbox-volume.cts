// The sandbox in its own process with a chosen number of consumption lines (the CLI offers only its presets), for
// the scale curve of `npm run bench`. Prints the CLI's `SANDBOX_READY {json}` line, so scripts/n8n/sandbox.mjs
// starts and stops it as it does the CLI.
//
//   tsx bench/sandbox-volume.cts --consumption-lines 100000
import { parseArgs } from 'node:util';
import { startSandbox } from '../sandbox/index.cts';

async function main(): Promise<void> {
	const { values } = parseArgs({ options: { 'consumption-lines': { type: 'string' }, seed: { type: 'string', default: '42' } } });
	const lines = Number(values['consumption-lines']);
	if (!Number.isInteger(lines) || lines < 1) throw new Error(`--consumption-lines must be a positive whole number, got "${values['consumption-lines']}"`);
	// The 'small' volume's other counts: only the consumption lines grow.
	const sandbox = await startSandbox({ seed: Number(values.seed), quiet: true, volume: { consumptionLines: lines } });
	console.log(`SANDBOX_READY ${JSON.stringify({ baseUrl: sandbox.baseUrl, keys: sandbox.keys })}`);
	// Stopped by the bench (SIGTERM to its process group): close the server, then leave.
	for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void sandbox.close().finally(() => process.exit(0)));
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
	process.exit(1);
});
