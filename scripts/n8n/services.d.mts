// Types of services.mjs for the TypeScript that imports it (the end-to-end tests). Keep in step with services.mjs.
import type { ChildProcess } from 'node:child_process';

export const DATABASE: string;
export const DATABASE_USER: string;

export interface RunningPostgres {
	port: number;
	pid: number;
	child: ChildProcess;
	/** n8n's DB_* settings for this cluster. */
	env: Record<string, string>;
	query(sql: string): string[][];
	stop(): Promise<void>;
}

export interface RunningRedis {
	port: number;
	pid: number;
	child: ChildProcess;
	/** n8n's QUEUE_BULL_REDIS_* settings for this server. */
	env: Record<string, string>;
	stop(): Promise<void>;
}

export function ensurePostgres(): Promise<string>;
export function ensureRedis(): Promise<string>;
export function startPostgres(options?: { label?: string }): Promise<RunningPostgres>;
export function startRedis(): Promise<RunningRedis>;
