// The failed tests of a run, named with their error's first lines: `npm test` prints them right before its last line,
// because CI keeps only the tail of a long run's output and a count alone does not say what to reproduce.
import { existsSync, readFileSync } from 'node:fs';

/** Enough for a generated schedule's diagnosis (its schedule, the order's requests, n8n's log lines about it). */
const MAX_ERROR_LINES = 40;

/** First lines of an error text, indented, the sandbox's API keys (sbx_<role>_<hex>) masked all the same. */
function excerpt(text) {
	return text
		.split('\n')
		.map((line) => line.trimEnd())
		.filter((line) => line.trim() !== '')
		.slice(0, MAX_ERROR_LINES)
		.map((line) => `      ${line.replace(/\b(sbx_[a-z]+_)[0-9a-f]+/g, '$1***')}`)
		.join('\n');
}

/**
 * Leaf failures of a TAP report written by node's test runner: "not ok" lines whose YAML block is not
 * `failureType: 'subtestsFailed'`, named by the path of subtests above them.
 */
export function failuresOfTap(file) {
	if (!existsSync(file)) return [];
	const lines = readFileSync(file, 'utf8').split('\n');
	const failures = [];
	const parents = [];
	for (let index = 0; index < lines.length; index++) {
		const subtest = /^(\s*)# Subtest: (.*)$/.exec(lines[index]);
		if (subtest) {
			const depth = subtest[1].length / 4;
			parents.length = depth;
			parents[depth] = subtest[2];
			continue;
		}
		const failed = /^(\s*)not ok \d+ - (.*)$/.exec(lines[index]);
		if (!failed) continue;
		const indent = failed[1];
		const depth = indent.length / 4;
		const block = [];
		for (let next = index + 1; next < lines.length && lines[next].startsWith(`${indent}  `); next++) block.push(lines[next]);
		if (block.some((line) => line.includes("failureType: 'subtestsFailed'"))) continue;
		failures.push({ name: [...parents.slice(0, depth).filter(Boolean), failed[2]].join(' > '), error: errorOfTapBlock(block, indent) });
	}
	return failures;
}

/** The `error:` value of a TAP YAML block, on one line or as a `|-` block. */
function errorOfTapBlock(block, indent) {
	const at = block.findIndex((line) => line.startsWith(`${indent}  error:`));
	if (at < 0) return '';
	const inline = block[at].slice(`${indent}  error:`.length).trim();
	if (inline !== '|-' && inline !== '|') return inline.replace(/^'|'$/g, '');
	const body = [];
	for (let next = at + 1; next < block.length && block[next].startsWith(`${indent}    `); next++) body.push(block[next].trim());
	return body.join('\n');
}

/** Failed tests of a jest JSON report (`--json --outputFile`). */
export function failuresOfJest(file) {
	if (!existsSync(file)) return [];
	const report = JSON.parse(readFileSync(file, 'utf8'));
	const failures = [];
	for (const suite of report.testResults ?? []) {
		const file = suite.name.replace(/^.*\/test\//, 'test/');
		const failedAssertions = (suite.assertionResults ?? []).filter((assertion) => assertion.status === 'failed');
		for (const assertion of failedAssertions) failures.push({ name: `${file} > ${assertion.fullName}`, error: (assertion.failureMessages ?? []).join('\n') });
		// A suite that failed to run (a syntax error, a hook) has a message and no failed assertion.
		if (failedAssertions.length === 0 && suite.status === 'failed') failures.push({ name: file, error: suite.message ?? '' });
	}
	return failures;
}

/** The lines `npm test` prints for the failures of one runner. */
export function describeFailures(runner, failures) {
	return failures.map((failure) => `  ✖ ${runner}: ${failure.name}\n${excerpt(failure.error)}`).join('\n');
}
