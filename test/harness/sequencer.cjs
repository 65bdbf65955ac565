// Jest's order of suites: the longest first, so neither of its two workers is left running one alone at the end.
// Jest orders by the durations it cached from earlier runs, and by file size without them (a fresh clone, CI): by
// size, the generated-schedule suites, short files that run for minutes, would start last.
const Sequencer = require('@jest/test-sequencer').default;

/** Suites that take minutes, longest first (the two added by issues 49 and 51: about 150 and 90 s alone). */
const LONGEST = [
	'node/writeOnce.schedules.test.cts',
	'node/claimProcesses.test.cts',
	'reliability/faults.writes.test.cts',
	'node/createAndWait.schedules.test.cts',
	'node/retry.test.cts',
	'trigger/callback.test.cts',
	'trigger/callbackSchedules.test.cts',
	'node/claim.test.cts',
];

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
