// Every relative link and #anchor in README.md, CONTRIBUTING.md and docs/**/*.md leads somewhere: the file exists, and
// the anchor is a heading of it by GitHub's rules (lower case, punctuation dropped, spaces to hyphens, a repeated
// heading gets -1, -2...). Links to this repository on github.com / raw.githubusercontent.com count as relative.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { anchorsOf, brokenLinks, checkedPages, githubSlug, linksOf } from './markdown.cts';

const repoRoot = path.resolve(__dirname, '..', '..');

describe('links in README.md, CONTRIBUTING.md and docs/**/*.md', () => {
	it("anchors follow GitHub's rules", () => {
		expect(githubSlug('Restarts, and what each n8n mode guarantees')).toBe('restarts-and-what-each-n8n-mode-guarantees');
		expect(githubSlug('n8n 3.0 and Docker')).toBe('n8n-30-and-docker');
		expect(githubSlug('Order: Get Many')).toBe('order-get-many');
		expect(githubSlug('Sandbox (programmatic API, `sandbox/index.cts`)')).toBe('sandbox-programmatic-api-sandboxindexcts');
		expect(githubSlug('Writes across n8n\'s retries')).toBe('writes-across-n8ns-retries');
		expect([...anchorsOf('# A\n## Usage\n```\n# not a heading\n```\n### Usage\n')]).toEqual(['a', 'usage', 'usage-1']);
	});

	it('finds a missing file, a missing anchor and a link into this repository on GitHub, and skips code and other sites', () => {
		const fixture = [
			'[ok](README.md#links) [self](#top) [gone](docs/nope.md) [bad anchor](README.md#nope)',
			'`[in code](nope.md)` [site](https://n8n.io/x.md) ![img](https://raw.githubusercontent.com/someone/n8n-nodes-ollang/main/docs/images/missing.png)',
			'```', '[in a block](nope.md)', '```', '# Top',
		].join('\n');
		const root = mkdtempSync(path.join(tmpdir(), 'ollang-links-'));
		writeFileSync(path.join(root, 'README.md'), '# Links\n');
		writeFileSync(path.join(root, 'page.md'), fixture);
		expect(brokenLinks(root, 'page.md')).toEqual([
			'page.md:1 links docs/nope.md: docs/nope.md does not exist',
			'page.md:1 links README.md#nope: README.md has no heading with the anchor #nope',
			'page.md:2 links https://raw.githubusercontent.com/someone/n8n-nodes-ollang/main/docs/images/missing.png: docs/images/missing.png does not exist',
		]);
	});

	it.each(checkedPages(repoRoot))('%s: every relative link and anchor leads somewhere', (file) => {
		expect(brokenLinks(repoRoot, file)).toEqual([]);
	});

	it('the README links the docs index, and the index (docs/README.md) links every other page of docs/, subfolders too', () => {
		const fromReadme = new Set(linksOf(readFileSync(path.join(repoRoot, 'README.md'), 'utf8')).map(({ target }) => target.split('#')[0]));
		expect(fromReadme.has('docs/README.md')).toBe(true);
		const fromIndex = new Set(
			linksOf(readFileSync(path.join(repoRoot, 'docs', 'README.md'), 'utf8')).map(({ target }) => path.posix.join('docs', target.split('#')[0])),
		);
		const unlinked = checkedPages(repoRoot).filter((file) => file.startsWith('docs/') && file !== 'docs/README.md' && !fromIndex.has(file));
		expect(unlinked).toEqual([]);
	});
});
