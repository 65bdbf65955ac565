/**
 * Polls of one trigger node that overlap in this n8n process.
 *
 * n8n's durable scheduler (2.40-2.41, with durable poll cursors) can run two polls of the same node at once: a poll
 * task that was in flight when n8n stopped is leased again after the restart, beside the next scheduled one. Each
 * poll gets its own copy of the stored cursor, read when its task starts, and n8n writes whichever poll commits last
 * (its lease check covers only the poll's own task). Two polls built on the same copy would both emit the same events.
 * So a poll that emits records the state version it committed (the stored `commits` count), and a poll whose copy is
 * older than a version emitted while it ran stands down: it emits nothing and leaves its copy untouched, so n8n stores
 * nothing from it, and the next poll starts from the newer state.
 *
 * Only emitting polls are recorded: n8n stores their state with their execution (a poll that emits nothing may not be
 * stored at all, the activation poll's for one), and only they can repeat events. This cannot see polls in other n8n
 * processes (several main instances sharing one database): there, de-duplicate on `eventId` / `jobId`.
 */
interface EmittedVersion {
	version: number;
	at: number;
}

const emittedVersions = new Map<string, EmittedVersion>();

/**
 * How long before a poll's own start an emission still counts as overlapping it: n8n reads the poll's copy of the
 * cursor a moment before the poll starts, and stores an emitting poll's state a moment after the poll returns.
 */
const OVERLAP_MARGIN_MS = 10_000;

export class PollOverlapGuard {
	private readonly startedAt = Date.now();

	constructor(
		/** The workflow and node the polls belong to. */
		private readonly key: string,
		/** The state version this poll's copy holds. */
		private readonly loadedVersion: number,
	) {}

	/** A poll of the same node emitted a newer state while this one ran (or just before it started). */
	isSuperseded(): boolean {
		const emitted = emittedVersions.get(this.key);
		if (emitted === undefined || emitted.at < this.startedAt - OVERLAP_MARGIN_MS) return false;
		return emitted.version > this.loadedVersion;
	}

	/** This poll emits, committing the version after the one it loaded. */
	recordEmission(): void {
		emittedVersions.set(this.key, { version: this.loadedVersion + 1, at: Date.now() });
	}
}
