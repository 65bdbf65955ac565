// The words of our machinery that a user never has to act on: user-facing text (the nodes' panel, the README, the
// task pages) must not name them. One list, read by the panel check (test/node/uxGuidelines.test.cts) and the docs
// check (test/tools/docsWords.test.cts). A page that must name one (a user acts on it) lists it as an exception there,
// with the reason.

/** Mechanism words, matched as whole words, case-insensitive. */
export const MECHANISM_WORDS: readonly string[] = [
	'claim',
	'claims',
	'claimant',
	'store',
	'deduplication store',
	'baseline',
	'sweep',
	'sweeps',
	'read-back',
	'read-backs',
	'static data',
	'isolate',
	'write-once',
	'marker',
	'markers',
	'cursor',
	'cursors',
	'hand-over',
];

/** The mechanism words a text names, each once, in the list's order. */
export function mechanismWordsIn(text: string): string[] {
	// The hyphens stand unescaped: a unicode pattern refuses "\-" outside a character class.
	return MECHANISM_WORDS.filter((word) => new RegExp(`(^|[^\\p{L}\\-])${word}($|[^\\p{L}\\-])`, 'iu').test(text));
}
