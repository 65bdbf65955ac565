// Types of process.mjs for the TypeScript that imports it (the end-to-end tests). Keep in step with process.mjs.
export function freePort(): Promise<number>;
export function formatElapsed(ms: number): string;
export function spawnGroup(
	command: string,
	args: string[],
	options?: { cwd?: string; env?: NodeJS.ProcessEnv; stdio?: import('node:child_process').StdioOptions },
): import('node:child_process').ChildProcessWithoutNullStreams;
export function stopGroup(child: import('node:child_process').ChildProcess | undefined, options?: { graceMs?: number }): Promise<void>;
export function forEachLine(child: import('node:child_process').ChildProcess, onLine: (line: string, stream: 'stdout' | 'stderr') => void): void;
