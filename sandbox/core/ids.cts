/**
 * ObjectId-like ids: 24 hex characters. The first 8 are the creation time in seconds and the next 10 a
 * counter, so sorting ids as strings follows creation order; the last 6 come from the seed.
 */
export class IdFactory {
	private counter = 0;
	private readonly tag: string;

	constructor(seed: number) {
		this.tag = (Math.imul(seed, 2654435761) >>> 8).toString(16).padStart(6, '0').slice(-6);
	}

	next(atMs: number): string {
		const seconds = Math.floor(atMs / 1000).toString(16).padStart(8, '0').slice(-8);
		const counter = (this.counter++).toString(16).padStart(10, '0');
		return seconds + counter + this.tag;
	}
}
