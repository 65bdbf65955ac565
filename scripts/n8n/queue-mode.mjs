// n8n's queue mode as this project runs it, in one place: `npm start -- --queue`, the queue-mode suite
// (test/e2e/queue.test.mts), the bench's queue scenario (bench/queue.mjs) and docker/docker-compose.yml follow it;
// test/tools/dockerCompose.test.cts checks the compose file against this module, so they cannot drift apart.
import { startPostgres, startRedis } from './services.mjs';

/** `n8n worker` processes beside the main process. */
export const QUEUE_WORKERS = 2;

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
 * Which worker ran an execution: the index of the worker output (one array of lines per worker) holding n8n's
 * "Worker started execution <id>" line, or undefined when no worker logged it (the main ran it, or nobody did).
 */
export function workerOfExecution(workerLogs, executionId) {
	const pattern = new RegExp(`Worker started execution ${executionId} `);
	const found = workerLogs.findIndex((lines) => lines.some((line) => pattern.test(line)));
	return found === -1 ? undefined : found;
}
