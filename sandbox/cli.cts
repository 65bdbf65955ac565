import { parseArgs } from 'node:util';
import { isRetryPolicy, RETRY_POLICIES, RETRY_POLICY_NAMES, type RetryPolicy } from './callbacks.cts';
import { DRIFT_MODES, type DriftMode, isDriftMode } from './drift.cts';
import { type ListingGrowth, startSandbox, type SandboxOptions } from './index.cts';

/**
 * `npm run sandbox -- [--port N] [--files-port N] [--seed N] [--volume small|demo|large] [--realtime SPEED] [--latency MS] [--start-at ISO] [--drift MODE[,MODE]]
 *   [--allow-loopback-callbacks] [--callback-repeat P] [--callback-retries none|once|three] [--growth consumption=N,orders=N,clockStepMs=MS,batches=N]`
 * Prints the base URL and keys for people, and one `SANDBOX_READY {json}` line for scripts.
 */
const USAGE = `usage: npm run sandbox -- [--port N] [--files-port N] [--seed N] [--volume small|demo|large] [--realtime SPEED] [--latency MS] [--start-at ISO] [--drift MODE[,MODE]]
    [--allow-loopback-callbacks] [--callback-repeat P] [--callback-retries none|once|three] [--growth consumption=N,orders=N,clockStepMs=MS,batches=N]
  --files-port N: the port of the storage host serving the order documents (default: a free one)
  --allow-loopback-callbacks: completion callbacks may target loopback (a local n8n); the real API refuses them
  --callback-repeat P: chance (0 to 1) that a callback delivery is sent twice (default 0.1)
  --callback-retries: how a failed callback is tried again (simulated minutes after the failure): ${RETRY_POLICY_NAMES.map((name) => `${name} [${RETRY_POLICIES[name].join(', ')}]`).join(', ')} (default three)
  growth: new consumption lines / orders after each answered page of their listing (sandbox/README.md)
  drift modes (answer as a changed or hostile service would, for npm run contract):
${Object.entries(DRIFT_MODES).map(([mode, what]) => `    ${mode}: ${what}`).join('\n')}`;

function driftFlag(value: string | undefined): DriftMode[] | undefined {
	if (value === undefined) return undefined;
	const modes = value.split(',').map((mode) => mode.trim()).filter((mode) => mode !== '');
	const unknown = modes.filter((mode) => !isDriftMode(mode));
	if (unknown.length > 0 || modes.length === 0) throw new Error(`--drift must be one or more of ${Object.keys(DRIFT_MODES).join(', ')}, got "${value}"`);
	return modes as DriftMode[];
}

const GROWTH_FIELDS: ReadonlyArray<keyof ListingGrowth> = ['consumption', 'orders', 'clockStepMs', 'batches'];

function growthFlag(value: string | undefined): Partial<ListingGrowth> | undefined {
	if (value === undefined) return undefined;
	const growth: Partial<Record<keyof ListingGrowth, number>> = {};
	for (const pair of value.split(',')) {
		const [name, count] = pair.split('=').map((part) => part.trim());
		const number = Number(count);
		if (!GROWTH_FIELDS.includes(name as keyof ListingGrowth) || count === undefined || count === '' || !Number.isInteger(number) || number < 0) {
			throw new Error(`--growth takes ${GROWTH_FIELDS.map((field) => `${field}=N`).join(',')} (whole numbers >= 0), got "${value}"`);
		}
		growth[name as keyof ListingGrowth] = number;
	}
	return growth;
}

function retriesFlag(value: string | undefined): RetryPolicy | undefined {
	if (value === undefined) return undefined;
	if (!isRetryPolicy(value)) throw new Error(`--callback-retries must be one of ${RETRY_POLICY_NAMES.join(', ')}, got "${value}"`);
	return value;
}

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
			'files-port': { type: 'string' },
			seed: { type: 'string' },
			volume: { type: 'string' },
			realtime: { type: 'string' },
			latency: { type: 'string' },
			'start-at': { type: 'string' },
			drift: { type: 'string' },
			'allow-loopback-callbacks': { type: 'boolean' },
			'callback-repeat': { type: 'string' },
			'callback-retries': { type: 'string' },
			growth: { type: 'string' },
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
	const repeat = numberFlag('callback-repeat', values['callback-repeat'], 0);
	if (repeat !== undefined && repeat > 1) throw new Error(`--callback-repeat must be a number from 0 to 1, got "${values['callback-repeat']}"`);
	const retries = retriesFlag(values['callback-retries']);
	return {
		port: numberFlag('port', values.port, 0),
		filesPort: numberFlag('files-port', values['files-port'], 0),
		seed: numberFlag('seed', values.seed, 0),
		volume,
		realtime: speed === undefined ? false : { speed },
		latencyMs: numberFlag('latency', values.latency, 0),
		startAt: values['start-at'],
		drift: driftFlag(values.drift),
		callbacks: {
			allowLoopback: values['allow-loopback-callbacks'] ?? false,
			...(repeat === undefined ? {} : { repeatProbability: repeat }),
			...(retries === undefined ? {} : { retries }),
		},
		listingGrowth: growthFlag(values.growth),
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
	console.log(`  order documents (signed links, another origin): ${sandbox.files.origin}`);
	if (options.callbacks?.allowLoopback) console.log('  callbacks: loopback targets allowed (a local n8n; the real API refuses them)');
	if (options.callbacks?.retries) console.log(`  callbacks: failed deliveries retried ${options.callbacks.retries} ([${RETRY_POLICIES[options.callbacks.retries].join(', ')}] simulated minutes)`);
	if (options.listingGrowth) console.log(`  listing growth after each answered page: ${JSON.stringify(sandbox.setListingGrowth({}))}`);
	if (options.drift) console.log(`  drift: ${options.drift.map((mode) => `${mode} (${DRIFT_MODES[mode]})`).join('; ')}`);
	console.log(`SANDBOX_READY ${JSON.stringify({ baseUrl, keys, filesOrigin: sandbox.files.origin })}`);

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
