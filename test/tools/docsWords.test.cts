// The docs in two layers (issue 50): what users read (the README, the task pages, the reference pages listed under
// "For users" in docs/README.md) is short and names what users decide, not our mechanisms; how it works is in the
// contributor pages (docs/internals/, ARCHITECTURE.md, TESTING.md). This prints the word counts and the package's
// counts, and fails when a page is over its limit, a user page names a mechanism word (test/tools/userWords.cts), the
// index lists a contributor page among the user pages or after them, or the README's counts are not the code's.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { resources } from '../../nodes/Ollang/actions/router';
import { linksOf } from './markdown.cts';
import { mechanismWordsIn } from './userWords.cts';

const repoRoot = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

const README_LIMIT = 800;
const TASK_PAGE_LIMIT = 600;

/** User pages that are references, not tasks: no word limit, and why. */
const REFERENCE_PAGES: Record<string, string> = {
	'docs/operations.md': 'generated from the nodes (scripts/docs/operations.mjs): every parameter of every operation',
	'docs/operations-overview.md': 'one table row per operation (55), then items, errors and retries',
};

/**
 * Mechanism words a user page still names, each with the reason. The test also fails when an exception is no longer
 * needed, so the list never outlives its reason.
 */
const MECHANISM_EXCEPTIONS: Record<string, { words: string[]; reason: string }> = {};

/** Contributor pages: never listed among the user pages. */
function isContributorPage(file: string): boolean {
	return file.startsWith('docs/internals/') || ['docs/ARCHITECTURE.md', 'docs/TESTING.md', 'docs/contract.md', 'sandbox/README.md', 'CONTRIBUTING.md'].includes(file);
}

/** Whitespace-separated words, as `wc -w` counts them (Markdown's table bars and list marks included). */
export function wordCount(text: string): number {
	return text.split(/\s+/).filter((word) => word !== '').length;
}

/** The pages docs/README.md links under one of its `## ` headings, as paths from the repository root, in order. */
function indexSection(index: string, heading: string): string[] {
	const start = index.indexOf(`\n## ${heading}\n`);
	if (start < 0) return [];
	const rest = index.slice(start + 1);
	const next = rest.indexOf('\n## ');
	const section = next < 0 ? rest : rest.slice(0, next);
	return linksOf(section)
		.map(({ target }) => target.split('#')[0])
		.filter((target) => target.endsWith('.md') && !/^[a-z][a-z0-9+.-]*:/i.test(target))
		.map((target) => path.posix.normalize(path.posix.join('docs', target)));
}

const index = read('docs/README.md');
const userPages = indexSection(index, 'For users');
const contributorPages = indexSection(index, 'For contributors');
const taskPages = userPages.filter((file) => REFERENCE_PAGES[file] === undefined);

const nodeFiles = readdirSync(path.join(repoRoot, 'nodes'), { withFileTypes: true })
	.filter((entry) => entry.isDirectory())
	.flatMap((entry) => readdirSync(path.join(repoRoot, 'nodes', entry.name)).filter((name) => name.endsWith('.node.ts')));
const resourceCount = Object.keys(resources).length;
const operationCount = Object.values(resources).reduce((sum, operations) => sum + Object.keys(operations).length, 0);
const exampleCount = readdirSync(path.join(repoRoot, 'examples')).filter((name) => name.endsWith('.json')).length;

describe('the docs for users: short, in their words, listed first', () => {
	beforeAll(() => {
		console.log(`README.md: ${wordCount(read('README.md'))} words (limit ${README_LIMIT - 1})`);
		for (const file of userPages) {
			const limit = REFERENCE_PAGES[file] === undefined ? `limit ${TASK_PAGE_LIMIT - 1}` : 'reference, no limit';
			console.log(`${file}: ${wordCount(read(file))} words (${limit})`);
		}
		console.log(`nodes ${nodeFiles.length} (${nodeFiles.join(', ')}), resources ${resourceCount}, operations ${operationCount}, examples ${exampleCount}`);
	});

	it('counts words as wc -w does', () => {
		expect(wordCount('# A title\n\n| a | b |\n- one, two\n')).toBe(11);
	});

	it(`the README is under ${README_LIMIT} words`, () => {
		expect(wordCount(read('README.md'))).toBeLessThan(README_LIMIT);
	});

	it('the index lists user pages, then contributor pages, and every task page is a page', () => {
		expect(index.indexOf('\n## For users\n')).toBeGreaterThan(-1);
		expect(index.indexOf('\n## For contributors\n')).toBeGreaterThan(index.indexOf('\n## For users\n'));
		expect(taskPages.length).toBeGreaterThanOrEqual(6);
		expect(userPages.filter(isContributorPage)).toEqual([]);
		expect(contributorPages.filter((file) => !isContributorPage(file))).toEqual([]);
		const internals = readdirSync(path.join(repoRoot, 'docs', 'internals')).map((name) => `docs/internals/${name}`);
		expect(internals.filter((file) => !contributorPages.includes(file))).toEqual([]);
		for (const file of Object.keys(REFERENCE_PAGES)) expect(userPages).toContain(file);
	});

	it.each(taskPages)(`%s: under ${TASK_PAGE_LIMIT} words`, (file) => {
		expect(wordCount(read(file))).toBeLessThan(TASK_PAGE_LIMIT);
	});

	it.each(['README.md', ...userPages])('%s names no mechanism word, except those listed with a reason', (file) => {
		const named = mechanismWordsIn(read(file));
		const allowed = MECHANISM_EXCEPTIONS[file]?.words ?? [];
		expect(named.filter((word) => !allowed.includes(word))).toEqual([]);
		// An exception still needed: the page names each word it lists.
		expect(allowed.filter((word) => !named.includes(word))).toEqual([]);
	});

	it("the README's counts are the code's: operations, resources and example workflows", () => {
		const readme = read('README.md');
		expect(readme).toContain(`${operationCount} operations on ${resourceCount} resources`);
		expect(readme).toContain(`${exampleCount} importable workflows`);
		expect(nodeFiles.sort()).toEqual(['Ollang.node.ts', 'OllangCallbackTrigger.node.ts', 'OllangTrigger.node.ts']);
	});
});
