/**
 * The simulated clock. Work that happens later (order stages, import job steps) is scheduled as tasks in a
 * time-ordered heap; advancing runs due tasks in time order, with `now` set to each task's time while it runs,
 * so a 100,000-minute advance costs one heap pop per task, not one step per minute.
 */
interface ScheduledTask {
	at: number;
	seq: number;
	run: () => void;
}

const MINUTE_MS = 60_000;
const REALTIME_TICK_MS = 100;

export class SimClock {
	private nowMs: number;
	private readonly heap: ScheduledTask[] = [];
	private seq = 0;
	private advancing = false;
	private realtimeTimer: NodeJS.Timeout | undefined;
	private realtimeSpeed: number | null = null;

	constructor(startMs: number) {
		this.nowMs = startMs;
	}

	now(): Date {
		return new Date(this.nowMs);
	}

	nowMillis(): number {
		return this.nowMs;
	}

	nowIso(): string {
		return new Date(this.nowMs).toISOString();
	}

	get speed(): number | null {
		return this.realtimeSpeed;
	}

	get pendingTasks(): number {
		return this.heap.length;
	}

	/** Runs `run` when the clock reaches `atMs` (at the next advance if that time has already passed). */
	schedule(atMs: number, run: () => void): void {
		this.push({ at: atMs, seq: this.seq++, run });
	}

	scheduleIn(minutes: number, run: () => void): void {
		this.schedule(this.nowMs + minutes * MINUTE_MS, run);
	}

	advance(minutes: number): void {
		if (!Number.isFinite(minutes) || minutes < 0) {
			throw new RangeError(`clock.advance: minutes must be a finite number >= 0, got ${minutes}`);
		}
		this.advanceTo(this.nowMs + minutes * MINUTE_MS);
	}

	advanceTo(targetMs: number): void {
		// A task that advances the clock itself would reorder history; tasks only schedule.
		if (this.advancing) throw new Error('clock.advance called from inside a scheduled task');
		this.advancing = true;
		try {
			while (this.heap.length > 0 && this.heap[0].at <= targetMs) {
				const task = this.pop();
				if (task.at > this.nowMs) this.nowMs = task.at;
				task.run();
			}
			if (targetMs > this.nowMs) this.nowMs = targetMs;
		} finally {
			this.advancing = false;
		}
	}

	/** Follows wall time multiplied by `speed` until stopped. */
	startRealtime(speed: number): void {
		if (!(speed > 0)) throw new RangeError(`realtime speed must be > 0, got ${speed}`);
		this.stopRealtime();
		this.realtimeSpeed = speed;
		let lastWall = Date.now();
		this.realtimeTimer = setInterval(() => {
			const wall = Date.now();
			const elapsed = (wall - lastWall) * speed;
			lastWall = wall;
			if (!this.advancing) this.advanceTo(this.nowMs + elapsed);
		}, REALTIME_TICK_MS);
		this.realtimeTimer.unref();
	}

	stopRealtime(): void {
		if (this.realtimeTimer) clearInterval(this.realtimeTimer);
		this.realtimeTimer = undefined;
		this.realtimeSpeed = null;
	}

	private before(a: ScheduledTask, b: ScheduledTask): boolean {
		return a.at < b.at || (a.at === b.at && a.seq < b.seq);
	}

	private push(task: ScheduledTask): void {
		const heap = this.heap;
		heap.push(task);
		let i = heap.length - 1;
		while (i > 0) {
			const parent = (i - 1) >> 1;
			if (!this.before(heap[i], heap[parent])) break;
			[heap[i], heap[parent]] = [heap[parent], heap[i]];
			i = parent;
		}
	}

	private pop(): ScheduledTask {
		const heap = this.heap;
		const top = heap[0];
		const last = heap.pop() as ScheduledTask;
		if (heap.length > 0) {
			heap[0] = last;
			let i = 0;
			for (;;) {
				const left = 2 * i + 1;
				const right = left + 1;
				let smallest = i;
				if (left < heap.length && this.before(heap[left], heap[smallest])) smallest = left;
				if (right < heap.length && this.before(heap[right], heap[smallest])) smallest = right;
				if (smallest === i) break;
				[heap[i], heap[smallest]] = [heap[smallest], heap[i]];
				i = smallest;
			}
		}
		return top;
	}
}

export function minutesToMs(minutes: number): number {
	return minutes * MINUTE_MS;
}
