// n8n's queue mode as this project runs it, in one place: `npm start -- --queue`, the queue-mode suite
// (test/e2e/queue.test.mts), the bench's queue scenario (bench/queue.mjs) and docker/docker-compose.yml follow it;
// test/tools/dockerCompose.test.cts checks the compose file against this module, so they cannot drift apart.
import { startBalancer } from './balancer.mjs';
import { startN8nWebhook } from './server.mjs';
import { startPostgres, startRedis } from './services.mjs';

/** `n8n worker` processes beside the main process. */
export const QUEUE_WORKERS = 2;

/** `n8n webhook` processes beside the main process and the workers: they take the production webhooks. */
export const QUEUE_WEBHOOK_PROCESSES = 2;

/**
 * The main's settings when webhook processes take the production webhooks (n8n's docs): it serves none itself, so
 * a request routed to it by mistake fails visibly (404) instead of loading the main.
 */
export const MAIN_BEHIND_WEBHOOK_PROCESSES = Object.freeze({ N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' });

/**
 * The webhook processes' settings. Before any webhook node but its own Webhook node runs, n8n acquires an expression
 * isolate for it, a new one under a burst (about 34 ms of CPU each on two cores): acquired lazily, only when an
 * expression runs, which the Ollang Callback Trigger's webhook never does. The webhook processes run no executions
 * (the workers do), so nothing else changes there (docs/internals/deployment.md, bench scenario 11: 200 callbacks at once).
 */
export const WEBHOOK_PROCESS_SETTINGS = Object.freeze({ N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' });

/**
 * n8n's settings for every process (main and workers) besides the database and Redis: executions go through Redis
 * to the workers, manual ones too (as n8n 3.0 always does), and binary data lives in the database, which every
 * process reads (queue mode's default in n8n 2.x; a per-machine filesystem folder is not shared between containers).
 */
export const QUEUE_MODE_SETTINGS = Object.freeze({
	EXECUTIONS_MODE: 'queue',
	OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
	N8N_DEFAULT_BINARY_DATA_MODE: 'database',
});

/**
 * A private PostgreSQL and Redis, started together. `env` is what every n8n process on them needs (CLI commands,
 * main, workers): the database, Redis and QUEUE_MODE_SETTINGS. `stop()` stops both by process id.
 */
export async function startQueueServices({ label = 'queue' } = {}) {
	const [postgres, redis] = await Promise.allSettled([startPostgres({ label }), startRedis()]);
	if (postgres.status === 'rejected' || redis.status === 'rejected') {
		await Promise.all([postgres.value?.stop(), redis.value?.stop()]);
		throw postgres.reason ?? redis.reason;
	}
	return {
		postgres: postgres.value,
		redis: redis.value,
		env: { ...postgres.value.env, ...redis.value.env, ...QUEUE_MODE_SETTINGS },
		stop: async () => {
			await Promise.all([postgres.value.stop(), redis.value.stop()]);
		},
	};
}

/**
 * QUEUE_WEBHOOK_PROCESSES `n8n webhook` processes and the balancer in front of them and of the main (`mainUrl`) on
 * `port`: the address users and the API reach (WEBHOOK_URL points at it). `env`: queue mode's, as for the main.
 * `onLine(index, line)` receives each webhook process's output. Returns `{ webhooks, balancer, stop() }`; `stop()`
 * stops the balancer, then the webhook processes, by process id.
 */
export async function startWebhookProcesses(userFolder, { env, mainUrl, port = 0, onLine }) {
	const started = await Promise.allSettled(
		Array.from({ length: QUEUE_WEBHOOK_PROCESSES }, (_, index) => startN8nWebhook(userFolder, { env, onLine: (line) => onLine?.(index, line) })),
	);
	const webhooks = started.filter((result) => result.status === 'fulfilled').map((result) => result.value);
	const stopWebhooks = async () => {
		await Promise.all(webhooks.map((webhook) => webhook.stop()));
	};
	const failed = started.find((result) => result.status === 'rejected');
	if (failed) {
		await stopWebhooks();
		throw failed.reason;
	}
	let balancer;
	try {
		balancer = await startBalancer({ port, main: mainUrl, webhooks: webhooks.map((webhook) => webhook.url) });
	} catch (error) {
		await stopWebhooks();
		throw error;
	}
	return {
		webhooks,
		balancer,
		stop: async () => {
			await balancer.stop();
			await stopWebhooks();
		},
	};
}

/**
 * Which worker ran an execution: the index of the worker output (one array of lines per worker) holding n8n's
 * "Worker started execution <id>" line, or undefined when no worker logged it (the main ran it, or nobody did).
 */
export function workerOfExecution(workerLogs, executionId) {
	const pattern = new RegExp(`Worker started execution ${executionId} `);
	const found = workerLogs.findIndex((lines) => lines.some((line) => pattern.test(line)));
	return found === -1 ? undefined : found;
}
