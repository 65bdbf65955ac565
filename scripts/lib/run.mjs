import { spawnSync } from 'node:child_process';

/** Runs a command with inherited output; throws with the command line when it fails. */
export function run(command, args, options = {}) {
	const result = spawnSync(command, args, { stdio: 'inherit', ...options });
	if (result.status !== 0) {
		const why = result.signal ? `signal ${result.signal}` : `exit code ${result.status}`;
		throw new Error(`${command} ${args.join(' ')} failed (${why})`);
	}
	return result;
}

/**
 * Runs a command without blocking; resolves when it exits, rejects (with the command line) when it fails. With
 * `logFile`, its output goes there instead of the terminal (the caller prints it once it ended, so two runs side by
 * side do not interleave their reports).
 */
export async function runAsync(command, args, { logFile, ...options } = {}) {
	const { spawn } = await import('node:child_process');
	const { openSync, closeSync } = await import('node:fs');
	const out = logFile === undefined ? 'inherit' : openSync(logFile, 'w');
	try {
		const child = spawn(command, args, { stdio: ['ignore', out, out], ...options });
		const [code, signal] = await new Promise((resolve, reject) => {
			child.once('error', reject);
			child.once('exit', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
		});
		if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${signal ? `signal ${signal}` : `exit code ${code}`})`);
	} finally {
		if (typeof out === 'number') closeSync(out);
	}
}
