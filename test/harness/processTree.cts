// The processes a command started, read from /proc, so tests can check that stopping it left none running.
import { readdirSync, readFileSync } from 'node:fs';

/** Every descendant process id of `pid` (children, their children, ...). */
export function descendants(pid: number): number[] {
	const parentOf = new Map<number, number>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
		} catch {
			// the process ended while we looked
		}
	}
	const found: number[] = [];
	const queue = [pid];
	while (queue.length > 0) {
		const current = queue.shift()!;
		for (const [child, parent] of parentOf) {
			if (parent === current) {
				found.push(child);
				queue.push(child);
			}
		}
	}
	return found;
}

export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** The processes of `pids` still running after waiting up to `timeoutMs` for them to end. */
export async function stillRunning(pids: number[], timeoutMs = 5000): Promise<number[]> {
	const deadline = Date.now() + timeoutMs;
	while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
	return pids.filter(isAlive);
}
