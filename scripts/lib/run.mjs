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
