// Types of process.mjs for the TypeScript that imports it (the end-to-end tests). Keep in step with process.mjs.
export function freePort(): Promise<number>;
export function formatElapsed(ms: number): string;
