// Types of queue-mode.mjs for the TypeScript that imports it (tests). Keep in step with queue-mode.mjs.
import type { RunningBalancer } from './balancer.mjs';
import type { RunningWebhook } from './runtime.mjs';
import type { RunningPostgres, RunningRedis } from './services.mjs';

export const QUEUE_WORKERS: number;
export const QUEUE_WEBHOOK_PROCESSES: number;
export const MAIN_BEHIND_WEBHOOK_PROCESSES: Readonly<Record<string, string>>;
export const WEBHOOK_PROCESS_SETTINGS: Readonly<Record<string, string>>;
export const QUEUE_MODE_SETTINGS: Readonly<Record<string, string>>;
export interface RunningQueueServices {
	postgres: RunningPostgres;
	redis: RunningRedis;
	env: Record<string, string>;
	stop(): Promise<void>;
}
export function startQueueServices(options?: { label?: string }): Promise<RunningQueueServices>;
export interface RunningWebhookProcesses {
	webhooks: RunningWebhook[];
	balancer: RunningBalancer;
	stop(): Promise<void>;
}
export function startWebhookProcesses(
	userFolder: string,
	options: { env: Record<string, string>; mainUrl: string; port?: number; onLine?: (index: number, line: string) => void },
): Promise<RunningWebhookProcesses>;
export function workerOfExecution(workerLogs: string[][], executionId: string): number | undefined;
