// Child-process helpers shared by the runtime, `npm start` and the editor check.
// Long-lived servers run in their own process group so one signal stops them and everything they spawned
// (n8n's task runners, tsx's worker), and a Ctrl-C in the terminal reaches only us: we decide the order of shutdown.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

const OUTPUT_TAIL_CHARS = 8000;

const liveGroups = new Set();
const runningCommands = new Set();
// Last resort: if this process exits without stopping its children (a signal, an uncaught error), take them down
// with it: an installer killed halfway is cleaned up by the next run, a server left running would hold its port.
process.on('exit', () => {
	for (const child of runningCommands) child.kill('SIGTERM');
	for (const pid of liveGroups) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
});

export function formatElapsed(ms) {
	const seconds = Math.round(ms / 1000);
	return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

export function log(prefix, message) {
	process.stderr.write(`[${prefix}] ${message}\n`);
}

/**
 * Runs a command to completion. Output is captured, and echoed to stderr when `echo` is set; a non-zero exit
 * rejects with an Error that carries the tail of the output (unless it was echoed), so a failure is never silent.
 * `timeoutMs` kills a command that runs longer. `heartbeatMs` prints the label, the elapsed time and
 * `describeProgress()` every so often while a slow, quiet command runs.
 */
export async function runCommand(command, args, options = {}) {
	const { cwd, env = process.env, echo = false, label = `${command} ${args.join(' ')}`, heartbeatMs, describeProgress, timeoutMs } = options;
	const started = Date.now();
	const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
	runningCommands.add(child);
	child.once('exit', () => runningCommands.delete(child));
	let stdout = '';
	let stderr = '';
	let tail = '';
	const keepTail = (text) => {
		tail = (tail + text).slice(-OUTPUT_TAIL_CHARS);
	};
	child.stdout.setEncoding('utf8').on('data', (text) => {
		stdout += text;
		keepTail(text);
		if (echo) process.stderr.write(text);
	});
	child.stderr.setEncoding('utf8').on('data', (text) => {
		stderr += text;
		keepTail(text);
		if (echo) process.stderr.write(text);
	});
	const heartbeat = heartbeatMs
		? setInterval(() => {
				const detail = describeProgress?.();
				log('progress', `${label}: still running, ${formatElapsed(Date.now() - started)} elapsed${detail ? ` (${detail})` : ''}`);
			}, heartbeatMs)
		: undefined;
	let timedOut = false;
	const timeout = timeoutMs
		? setTimeout(() => {
				timedOut = true;
				child.kill('SIGKILL');
			}, timeoutMs)
		: undefined;
	try {
		// 'close' (not 'exit') comes after the output pipes are drained; once() rejects on 'error' (e.g. ENOENT).
		const [code, signal] = await once(child, 'close');
		if (code !== 0) {
			const how = timedOut ? `timed out after ${formatElapsed(timeoutMs)}` : signal ? `signal ${signal}` : `exit code ${code}`;
			const output = echo ? ' Its output is above.' : ` Its last output:\n${tail}`;
			const error = new Error(`${label} failed (${how}) after ${formatElapsed(Date.now() - started)}.${output}`);
			Object.assign(error, { code, signal, stdout, stderr });
			throw error;
		}
		return { stdout, stderr, elapsedMs: Date.now() - started };
	} finally {
		clearInterval(heartbeat);
		clearTimeout(timeout);
	}
}

/**
 * Starts a long-lived process as the leader of a new process group. Output is piped for the caller to read;
 * `stdio` may add more pipes after stdout and stderr (chromium's DevTools pipe).
 */
export function spawnGroup(command, args, { cwd, env = process.env, stdio = ['ignore', 'pipe', 'pipe'] } = {}) {
	const child = spawn(command, args, { cwd, env, detached: true, stdio });
	liveGroups.add(child.pid);
	child.once('exit', () => liveGroups.delete(child.pid));
	return child;
}

/** Sends SIGTERM to the whole group, waits up to `graceMs` for the leader to exit, then SIGKILLs the group. */
export async function stopGroup(child, { graceMs = 15000 } = {}) {
	if (!child?.pid) return;
	const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit');
	const signalGroup = (signal) => {
		try {
			process.kill(-child.pid, signal);
		} catch {
			// the group is already empty
		}
	};
	signalGroup('SIGTERM');
	let timer;
	const timedOut = await Promise.race([
		exited.then(() => false),
		new Promise((resolve) => {
			timer = setTimeout(() => resolve(true), graceMs);
		}),
	]);
	clearTimeout(timer);
	// Children that outlived their leader (or a leader that ignored SIGTERM) are not left behind.
	signalGroup('SIGKILL');
	if (timedOut) await exited;
	liveGroups.delete(child.pid);
}

/** Calls `onLine` for every line the child writes to stdout or stderr. */
export function forEachLine(child, onLine) {
	for (const [stream, name] of [
		[child.stdout, 'stdout'],
		[child.stderr, 'stderr'],
	]) {
		let pending = '';
		stream.setEncoding('utf8').on('data', (text) => {
			pending += text;
			const lines = pending.split('\n');
			pending = lines.pop();
			for (const line of lines) onLine(line, name);
		});
		stream.on('end', () => {
			if (pending) onLine(pending, name);
		});
	}
}

/** A TCP port that is free on the loopback interface right now. */
export async function freePort() {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.unref();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}
