// n8n's queue mode as this project runs it, in one place: `npm start -- --queue`, the queue-mode suite
// (test/e2e/queue.test.mts) and docker/docker-compose.yml follow it; test/tools/dockerCompose.test.cts checks the
// compose file against this module, so the three cannot drift apart.

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
