// Types of balancer.mjs for the TypeScript that imports it (tests). Keep in step with balancer.mjs.
export const WEBHOOK_PROCESS_PATHS: readonly string[];
export const SINGLE_WEBHOOK_PROCESS_PATHS: readonly string[];
export function routeOf(pathname: string): 'webhook' | 'firstWebhook' | 'main';
export interface RunningBalancer {
	url: string;
	port: number;
	forwarded: { main: number; webhooks: number[] };
	stop(): Promise<void>;
}
export function startBalancer(options: { port?: number; main: string; webhooks: string[] }): Promise<RunningBalancer>;
