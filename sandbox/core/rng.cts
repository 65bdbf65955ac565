/** Deterministic pseudo-random numbers (mulberry32), so every sandbox run with the same seed is the same. */
export class Rng {
	private state: number;

	constructor(seed: number) {
		this.state = seed >>> 0;
	}

	/** A float in [0, 1). */
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}

	/** An integer in [min, max], both inclusive. */
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}

	float(min: number, max: number): number {
		return min + this.next() * (max - min);
	}

	chance(probability: number): boolean {
		return this.next() < probability;
	}

	pick<T>(items: readonly T[]): T {
		if (items.length === 0) throw new Error('Rng.pick: no items to pick from');
		return items[Math.floor(this.next() * items.length)];
	}

	/** Picks by relative weight: [[value, weight], ...]. */
	weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
		const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
		let roll = this.next() * total;
		for (const [value, weight] of entries) {
			roll -= weight;
			if (roll < 0) return value;
		}
		return entries[entries.length - 1][0];
	}

	/** A few distinct items, in random order. */
	sample<T>(items: readonly T[], count: number): T[] {
		const pool = [...items];
		const out: T[] = [];
		while (out.length < count && pool.length > 0) {
			out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]);
		}
		return out;
	}

	/** An independent generator for one concern, so draws for faults never shift the data or the order life. */
	fork(label: string): Rng {
		return new Rng(hashString(label, this.state));
	}
}

/** 32-bit FNV-1a, mixed with a seed; used for per-row deterministic values without a stored sequence. */
export function hashString(text: string, seed = 0): number {
	let hash = (0x811c9dc5 ^ seed) >>> 0;
	for (let i = 0; i < text.length; i++) {
		hash ^= text.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return hash;
}

/** A well-mixed 32-bit value from two integers (for per-segment values: hash of order, row index). */
export function mix32(a: number, b: number): number {
	let h = (a ^ Math.imul(b + 0x9e3779b9, 0x85ebca6b)) >>> 0;
	h ^= h >>> 16;
	h = Math.imul(h, 0x7feb352d) >>> 0;
	h ^= h >>> 15;
	h = Math.imul(h, 0x846ca68b) >>> 0;
	h ^= h >>> 16;
	return h >>> 0;
}
