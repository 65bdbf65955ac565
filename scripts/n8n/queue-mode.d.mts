// Types of queue-mode.mjs for the TypeScript that imports it (tests). Keep in step with queue-mode.mjs.
export const QUEUE_WORKERS: number;
export const QUEUE_MODE_SETTINGS: Readonly<Record<string, string>>;
