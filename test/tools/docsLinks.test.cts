// Every relative link and #anchor in README.md, CONTRIBUTING.md and docs/*.md leads somewhere: the file exists, and
// the anchor is a heading of it by GitHub's rules (lower case, punctuation dropped, spaces to hyphens, a repeated
// heading gets -1, -2...). Links to this repository on github.com / raw.githubusercontent.com count as relative.
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..');
const OWN_REPOSITORY = /^https:\/\/(?:github\.com\/[^/]+\/n8n-nodes-ollang\/(?:blob|tree)\/[^/]+|raw\.githubusercontent\.com\/[^/]+\/n8n-nodes-ollang\/[^/]+)\/(.*)$/;

/** GitHub's anchor of a heading's text. */
export function githubSlug(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
		.replace(/<[^>]+>/g, '') // inline HTML
		.replace(/[*_`~]/g, (mark) => (mark === '_' ? '_' : ''));
	return text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings, repeated ones numbered as GitHub numbers them. */
export function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const counts = new Map<string, number>();
	for (const line of withoutCode(markdown).split('\n')) {
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (!heading) continue;
		const base = githubSlug(heading[1]);
		const seen = counts.get(base) ?? 0;
		counts.set(base, seen + 1);
		anchors.add(seen === 0 ? base : `${base}-${seen}`);
	}
	for (const match of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]);
	return anchors;
}

/** The text without fenced code blocks and inline code, where brackets are not links. */
function withoutCode(markdown: string): string {
	return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``');
}

/** Every link target (and image source) of a Markdown text, with its line. */
export function linksOf(markdown: string): Array<{ target: string; line: number }> {
	const links: Array<{ target: string; line: number }> = [];
	withoutCode(markdown)
		.split('\n')
		.forEach((text, index) => {
			for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ target: match[1], line: index + 1 });
			for (const match of text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/g)) links.push({ target: match[1], line: index + 1 });
		});
	return links;
}

/** What is wrong with each link of `file` (a path relative to `root`). */
export function brokenLinks(root: string, file: string): string[] {
	const problems: string[] = [];
	const source = readFileSync(path.join(root, file), 'utf8');
	for (const { target, line } of linksOf(source)) {
		const own = OWN_REPOSITORY.exec(target);
		if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !own) continue; // another site, mailto:
		const [rawPath, anchor] = (own ? own[1] : target).split('#') as [string, string | undefined];
		const linked = own ? path.join(root, decodeURIComponent(rawPath)) : rawPath === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(rawPath));
		const where = `${file}:${line} links ${target}`;
		if (!existsSync(linked)) {
			problems.push(`${where}: ${path.relative(root, linked)} does not exist`);
			continue;
		}
		if (anchor === undefined || anchor === '') continue;
		if (statSync(linked).isDirectory() || !linked.endsWith('.md')) problems.push(`${where}: an anchor into a file that is not Markdown`);
		else if (!anchorsOf(readFileSync(linked, 'utf8')).has(anchor)) problems.push(`${where}: ${path.relative(root, linked)} has no heading with the anchor #${anchor}`);
	}
	return problems;
}

/** The pages the check reads: README.md, CONTRIBUTING.md and every docs/*.md. */
export function checkedPages(root: string): string[] {
	const docs = readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => path.posix.join('docs', name));
	return ['README.md', 'CONTRIBUTING.md', ...docs.sort()].filter((file) => existsSync(path.join(root, file)));
}

describe('links in README.md, CONTRIBUTING.md and docs/*.md', () => {
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

	it('the README links every page of docs/', () => {
		const linked = new Set(linksOf(readFileSync(path.join(repoRoot, 'README.md'), 'utf8')).map(({ target }) => target.split('#')[0]));
		const unlinked = checkedPages(repoRoot).filter((file) => file.startsWith('docs/') && !linked.has(file));
		expect(unlinked).toEqual([]);
	});
});
