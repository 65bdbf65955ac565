/**
 * Named entries registered now, or through a loader run on first use: our node and credential files may not
 * exist yet when the harness is compiled, and a missing one should fail only the test that needs it.
 */
export class LazyRegistry<T> {
	private readonly entries = new Map<string, T>();
	private readonly loaders = new Map<string, () => T>();

	constructor(
		private readonly kind: string,
		/** Returns what is wrong with a loaded entry for this name, or undefined when it fits. */
		private readonly checkLoaded: (name: string, loaded: T) => string | undefined,
	) {}

	register(name: string, entry: T): void {
		this.entries.set(name, entry);
	}

	registerLoader(name: string, load: () => T): void {
		this.loaders.set(name, load);
	}

	recognizes(name: string): boolean {
		return this.entries.has(name) || this.loaders.has(name);
	}

	get(name: string): T {
		const known = this.entries.get(name);
		if (known) return known;
		const load = this.loaders.get(name);
		if (!load) throw new Error(`Unknown ${this.kind} "${name}": register it first`);
		const loaded = load();
		const problem = this.checkLoaded(name, loaded);
		if (problem) throw new Error(`${this.kind} "${name}" was loaded, but ${problem}`);
		this.entries.set(name, loaded);
		return loaded;
	}
}
