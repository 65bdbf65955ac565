// Types of queue-mode.mjs for the TypeScript that imports it (tests). Keep in step with queue-mode.mjs.
import type { RunningPostgres, RunningRedis } from './services.mjs';

export const QUEUE_WORKERS: number;
export const QUEUE_MODE_SETTINGS: Readonly<Record<string, string>>;
export interface RunningQueueServices {
	postgres: RunningPostgres;
	redis: RunningRedis;
	env: Record<string, string>;
	stop(): Promise<void>;
}
export function startQueueServices(options?: { label?: string }): Promise<RunningQueueServices>;
export function workerOfExecution(workerLogs: string[][], executionId: string): number | undefined;
