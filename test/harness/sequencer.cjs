// Jest's order of suites: the longest first, so neither of its two workers is left running one alone at the end.
// Jest orders by the durations it cached from earlier runs, and by file size without them (a fresh clone, CI): by
// size, the generated-schedule suites, short files that run for minutes, would start last.
const Sequencer = require('@jest/test-sequencer').default;

/** Suites that take minutes (167, 142, 45, 38, 34, 29 s in the last full run), longest first. */
const LONGEST = ['node/writeOnce.schedules.test.cts', 'reliability/faults.writes.test.cts', 'node/retry.test.cts', 'trigger/callback.test.cts', 'trigger/callbackSchedules.test.cts', 'node/claim.test.cts'];

class LongestFirst extends Sequencer {
	async sort(tests) {
		const sorted = await super.sort(tests);
		const rank = (test) => {
			const index = LONGEST.findIndex((suffix) => test.path.endsWith(suffix));
			return index === -1 ? LONGEST.length : index;
		};
		// Array.prototype.sort is stable: the rest keep jest's order.
		return [...sorted].sort((a, b) => rank(a) - rank(b));
	}
}

module.exports = LongestFirst;
