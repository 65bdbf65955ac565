import { parseArgs } from 'node:util';
import { startSandbox, type SandboxOptions } from './index.cts';

/**
 * `npm run sandbox -- [--port N] [--seed N] [--volume small|demo|large] [--realtime SPEED] [--latency MS] [--start-at ISO]`
 * Prints the base URL and keys for people, and one `SANDBOX_READY {json}` line for scripts.
 */
const USAGE = 'usage: npm run sandbox -- [--port N] [--seed N] [--volume small|demo|large] [--realtime SPEED] [--latency MS] [--start-at ISO]';

function numberFlag(name: string, value: string | undefined, min: number): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed) || parsed < min) {
		throw new Error(`--${name} must be a number >= ${min}, got "${value}"`);
	}
	return parsed;
}

function parseOptions(argv: string[]): SandboxOptions {
	const { values } = parseArgs({
		args: argv,
		options: {
			port: { type: 'string' },
			seed: { type: 'string' },
			volume: { type: 'string' },
			realtime: { type: 'string' },
			latency: { type: 'string' },
			'start-at': { type: 'string' },
			help: { type: 'boolean' },
		},
		strict: true,
	});
	if (values.help) {
		console.log(USAGE);
		process.exit(0);
	}
	const volume = values.volume;
	if (volume !== undefined && volume !== 'small' && volume !== 'demo' && volume !== 'large') {
		throw new Error(`--volume must be small, demo or large, got "${volume}"`);
	}
	const speed = numberFlag('realtime', values.realtime, Number.MIN_VALUE);
	return {
		port: numberFlag('port', values.port, 0),
		seed: numberFlag('seed', values.seed, 0),
		volume,
		realtime: speed === undefined ? false : { speed },
		latencyMs: numberFlag('latency', values.latency, 0),
		startAt: values['start-at'],
	};
}

async function main(): Promise<void> {
	let options: SandboxOptions;
	try {
		options = parseOptions(process.argv.slice(2));
	} catch (error) {
		console.error(`${(error as Error).message}\n${USAGE}`);
		process.exit(2);
	}
	const sandbox = await startSandbox(options);
	const { baseUrl, keys } = sandbox;
	console.log(`Ollang API sandbox listening on ${baseUrl}`);
	console.log(`  simulated time: ${sandbox.clock.now().toISOString()}${options.realtime ? ` (realtime x${options.realtime.speed})` : ' (advance it: POST /__sandbox/clock/advance)'}`);
	console.log(`  X-Api-Key owner   (client_owner):          ${keys.owner}`);
	console.log(`  X-Api-Key billing (client_accessBillings): ${keys.billing}`);
	console.log(`  X-Api-Key member  (no role):               ${keys.member}`);
	console.log(`  admin: ${baseUrl}/__sandbox/info`);
	console.log(`SANDBOX_READY ${JSON.stringify({ baseUrl, keys })}`);

	const stop = () => {
		sandbox.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
