// The machine's load when the bench starts. Timings taken while other work holds the cores measure that work too,
// so a plain `npm run bench` (the run that writes RESULTS.md) refuses to start above MAX_LOAD_AVERAGE unless
// --force is given; any other run (options, the smoke inside npm test) only warns.

/** The 1-minute load average above which a plain run refuses to write figures. */
export const MAX_LOAD_AVERAGE = 2;

/**
 * What the bench does at `loadAverage` (1-minute): 'run', 'warn' or 'refuse', and the line it prints.
 * `writesResults`: a plain run, whose figures go to RESULTS.md; `force`: --force was given.
 */
export function loadVerdict(loadAverage, { writesResults, force }) {
	const line = `load average at start: ${loadAverage.toFixed(2)} (1 minute; limit ${MAX_LOAD_AVERAGE})`;
	if (loadAverage <= MAX_LOAD_AVERAGE) return { action: 'run', message: line };
	if (writesResults && !force) {
		return {
			action: 'refuse',
			message: `${line}: too busy for figures that go to RESULTS.md (they would measure the machine's other work too). Wait for a quieter machine, or run with --force (RESULTS.md records the load).`,
		};
	}
	return { action: 'warn', message: `${line}: WARNING, above the limit; the timings of this run include the machine's other work` };
}
